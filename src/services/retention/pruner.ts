import { QueryTypes, Sequelize } from 'sequelize';
import { timestampSql } from '../../persistence/query/selectSql';
import { ChangeRunner } from '../../persistence/changes/change';
import type { RetentionPolicy } from './policies';
import { Periodic } from '../periodic';

const DAY_MS = 86_400_000;

export interface PrunerOptions {
  /** Rows deleted per statement: each batch is its own short transaction. */
  batchSize?: number;
  /** Between two runs; the first starts a minute after `start`. */
  intervalMs?: number;
  onError(err: unknown): void;
  /** Called inside each batch's transaction, after its rows are taken and before they go (tests hold a batch here). */
  inBatch?: (table: string) => Promise<void>;
  /**
   * What a domain service erases, not rows of one table: repositories past their grace after their provider reported
   * them deleted, with all they hold. Run after the tables, each as of the run's `now`; how many it erased, by name.
   */
  erasures?: Record<string, (now: Date) => Promise<number>>;
}

/** What one run removed, per table. */
export type Pruned = Record<string, number>;

/**
 * Deletes what the retention policies say has expired (docs/operating.md), table by table, in batches: each batch is a
 * transaction that takes up to `batchSize` due rows by key and deletes them. On MySQL the rows are taken with
 * `FOR UPDATE SKIP LOCKED` at READ COMMITTED, so pruners on several instances take disjoint rows and never wait
 * for each other, and no gap is locked: a writer adding new rows waits for no batch, and one touching a due row
 * waits for one batch at most. SQLite has a single writer; its batches are short for the same reason.
 */
export class Pruner {
  private readonly periodic: Periodic;
  private readonly batchSize: number;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly policies: readonly RetentionPolicy[],
    private readonly options: PrunerOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.batchSize = options.batchSize ?? 1_000;
    this.periodic = new Periodic(() => this.prune(this.now()).catch(this.options.onError), 60_000, options.intervalMs ?? 3_600_000);
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One run over every table, as of `now`. */
  async prune(now: Date): Promise<Pruned> {
    const pruned: Pruned = {};
    for (const policy of this.policies) {
      const cutoff = new Date(now.getTime() - policy.days * DAY_MS);
      let total = 0;
      for (;;) {
        const deleted = await this.batch(policy, cutoff);
        total += deleted;
        if (deleted < this.batchSize) break;
      }
      pruned[policy.table] = total;
    }
    for (const [name, erase] of Object.entries(this.options.erasures ?? {})) pruned[name] = await erase(now);
    return pruned;
  }

  /**
   * A key value as read, written back as SQL. Times keep their milliseconds (a replacement's Date would lose them
   * on MySQL, and then match no row).
   */
  private sqlValue(value: unknown): string {
    if (value instanceof Date) return timestampSql(this.sequelize, value);
    if (typeof value === 'string' || typeof value === 'number') return this.sequelize.escape(value);
    throw new Error(`a key value of an unexpected type: ${typeof value}`);
  }

  /** One batch is one change (docs/architecture.md#writers), so the lists and figures cached by data version see the rows go. */
  private batch(policy: RetentionPolicy, cutoff: Date): Promise<number> {
    const mysql = this.sequelize.getDialect() === 'mysql';
    return ChangeRunner.for(this.sequelize).run(
      async ({ transaction, wrote }) => {
        const due = `${policy.column} < ${timestampSql(this.sequelize, cutoff)}${policy.also ? ` AND ${policy.also}` : ''}`;
        const keys = policy.key.join(', ');
        const rows = await this.sequelize.query<Record<string, unknown>>(
          `SELECT ${keys} FROM ${policy.table} WHERE ${due} ORDER BY ${policy.column} LIMIT ${this.batchSize}${mysql ? ' FOR UPDATE SKIP LOCKED' : ''}`,
          { type: QueryTypes.SELECT, transaction },
        );
        if (rows.length === 0) return 0;
        await this.options.inBatch?.(policy.table);
        const target = policy.key.length === 1 ? keys : `(${keys})`;
        const tuples = rows.map((row) => {
          const values = policy.key.map((k) => this.sqlValue(row[k]));
          return values.length === 1 ? values[0] : `(${values.join(', ')})`;
        });
        await this.sequelize.query(`DELETE FROM ${policy.table} WHERE ${target} IN (${tuples.join(', ')})`, { transaction });
        wrote(policy.table);
        return rows.length;
      },
      // No gap locks: rows written meanwhile, due or not, are not the batch's business.
      { readCommitted: true },
    );
  }
}
