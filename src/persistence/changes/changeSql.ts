import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import { Task } from '../../../db/models';

/** What the writer stores in a column. */
export type SqlValue = string | number | boolean | Date | Buffer | null;
export type SqlRow = Record<string, SqlValue | undefined>;

/**
 * The few statements writers need in both databases' words, for many rows at once: the telemetry writer's points
 * and events, the rollups the git and activity writers keep, the task writer's issues.
 */
export class ChangeSql {
  readonly mysql: boolean;
  private readonly sequelize: Sequelize;

  constructor(readonly transaction: Transaction) {
    // The connection the models were bound to (db/models initModels), which opened the transaction.
    this.sequelize = Task.sequelize!;
    this.mysql = this.sequelize.getDialect() === 'mysql';
  }

  select<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T[]> {
    return this.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction: this.transaction });
  }

  async run(sql: string, replacements: Record<string, unknown>): Promise<void> {
    await this.sequelize.query(sql, { replacements, transaction: this.transaction });
  }

  /**
   * A time as the dialect's own literal, milliseconds included (a plain replacement would drop them on MariaDB,
   * and differ from what the models write on SQLite): the text `timestampSql` gives, formatted here because a
   * request writes thousands of them and Sequelize's escape formats each through moment.
   */
  time(date: Date): string {
    const iso = date.toISOString();
    return `'${iso.slice(0, 10)} ${iso.slice(11, 23)}${this.mysql ? '' : ' +00:00'}'`;
  }

  /** A value as SQL text: strings and bytes escaped by Sequelize, numbers only when finite. */
  literal(value: SqlValue | undefined): string {
    if (value === null || value === undefined) return 'NULL';
    if (value instanceof Date) return this.time(value);
    if (typeof value === 'boolean') return value ? '1' : '0';
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
      return String(value);
    }
    // Bytes as a hex literal, as Sequelize writes them on both dialects (its typings take no Buffer).
    if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
    return this.sequelize.escape(value);
  }

  /** Locks the rows read until the change commits (MariaDB); SQLite has one writer at a time anyway. */
  get forUpdate(): string {
    return this.mysql ? ' FOR UPDATE' : '';
  }

  insertIgnore(table: string, columns: readonly string[], rows: SqlRow[]): Promise<void> {
    return this.insertRows(this.mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE', table, columns, rows, '');
  }

  insert(table: string, columns: readonly string[], rows: SqlRow[]): Promise<void> {
    return this.insertRows('INSERT', table, columns, rows, '');
  }

  /** Inserts rows, or combines their `added` columns into the row already under the same key: sums, or bit sets. */
  addTo(table: string, keys: readonly string[], added: readonly string[], rows: SqlRow[], combine: '+' | '|' = '+'): Promise<void> {
    const tail = this.mysql
      ? ` ON DUPLICATE KEY UPDATE ${added.map((c) => `${c} = ${c} ${combine} VALUES(${c})`).join(', ')}`
      : ` ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${added.map((c) => `${c} = ${c} ${combine} excluded.${c}`).join(', ')}`;
    return this.insertRows('INSERT', table, [...keys, ...added], rows, tail);
  }

  /** Inserts rows, or sets their `set` columns on the row already under the same key. */
  upsert(table: string, keys: readonly string[], set: readonly string[], rows: SqlRow[]): Promise<void> {
    const tail = this.mysql
      ? ` ON DUPLICATE KEY UPDATE ${set.map((c) => `${c} = VALUES(${c})`).join(', ')}`
      : ` ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${set.map((c) => `${c} = excluded.${c}`).join(', ')}`;
    return this.insertRows('INSERT', table, [...keys, ...set], rows, tail);
  }

  /**
   * Multi-row statements of at most 500 rows: few round trips, packets well under max_allowed_packet. Values are
   * written as literals: thousands of named replacements cost more to substitute than the database takes to
   * insert the rows. Table and column names are the callers' constants.
   */
  private async insertRows(verb: string, table: string, columns: readonly string[], rows: SqlRow[], tail: string): Promise<void> {
    for (let i = 0; i < rows.length; i += 500) {
      const tuples = rows.slice(i, i + 500).map((row) => `(${columns.map((c) => this.literal(row[c])).join(',')})`);
      await this.sequelize.query(`${verb} INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(',')}${tail}`, { transaction: this.transaction });
    }
  }
}
