import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import { TelemetryBatch } from '../../../db/models';
import { timestampSql } from '../query/selectSql';

/** The few statements the telemetry writer needs in both databases' words. */
export class TelemetrySql {
  readonly mysql: boolean;
  private readonly sequelize: Sequelize;

  constructor(private readonly transaction: Transaction) {
    // The connection the models were bound to (db/models initModels), which opened the transaction.
    this.sequelize = TelemetryBatch.sequelize!;
    this.mysql = this.sequelize.getDialect() === 'mysql';
  }

  select<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T[]> {
    return this.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: this.transaction });
  }

  async run(sql: string, replacements: Record<string, unknown>): Promise<void> {
    await this.sequelize.query(sql, { replacements, transaction: this.transaction });
  }

  /**
   * A time as the dialect's own escaped literal, milliseconds included (a plain replacement would drop them on
   * MariaDB, and differ from what the models write on SQLite).
   */
  time(date: Date): string {
    return timestampSql(this.sequelize, date);
  }

  /** Locks the rows read until the change commits (MariaDB); SQLite has one writer at a time anyway. */
  get forUpdate(): string {
    return this.mysql ? ' FOR UPDATE' : '';
  }

  insertIgnore(table: string, columns: readonly string[], rows: Record<string, unknown>[]): Promise<void> {
    return this.insertRows(this.mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE', table, columns, rows, '');
  }

  insert(table: string, columns: readonly string[], rows: Record<string, unknown>[]): Promise<void> {
    return this.insertRows('INSERT', table, columns, rows, '');
  }

  /** Inserts rows, or combines their `added` columns into the row already under the same key: sums, or bit sets. */
  addTo(table: string, keys: readonly string[], added: readonly string[], rows: Record<string, unknown>[], combine: '+' | '|' = '+'): Promise<void> {
    const tail = this.mysql
      ? ` ON DUPLICATE KEY UPDATE ${added.map((c) => `${c} = ${c} ${combine} VALUES(${c})`).join(', ')}`
      : ` ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${added.map((c) => `${c} = ${c} ${combine} excluded.${c}`).join(', ')}`;
    return this.insertRows('INSERT', table, [...keys, ...added], rows, tail);
  }

  /** Multi-row statements of at most 500 rows: few round trips, packets well under max_allowed_packet. */
  private async insertRows(verb: string, table: string, columns: readonly string[], rows: Record<string, unknown>[], tail: string): Promise<void> {
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const replacements: Record<string, unknown> = {};
      const tuples = chunk.map((row, r) => `(${columns.map((c) => this.placeholder(replacements, `${c}_${r}`, row[c])).join(', ')})`);
      await this.run(`${verb} INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}${tail}`, replacements);
    }
  }

  private placeholder(replacements: Record<string, unknown>, name: string, value: unknown): string {
    if (value instanceof Date) return this.time(value);
    replacements[name] = value ?? null;
    return `:${name}`;
  }
}
