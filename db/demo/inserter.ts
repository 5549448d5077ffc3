import { DataTypes, Sequelize, Transaction } from 'sequelize';

/**
 * How the demo's rows go in: one table at a time, in chunks (on SQLite one transaction per table), each row's
 * timestamps moved from the fixtures' timeline to the seed's end day unless it is dated on that one already.
 */

export type Row = Record<string, unknown>;

const DATE_COLUMNS = ['created_at', 'merged_at', 'closed_at', 'completed_at', 'user_created_at', 'finished_at', 'resolved_at', 'provider_updated_at', 'start_at', 'end_at', 'started_at', 'canceled_at', 'at'];

export class Inserter {
  readonly counts: Record<string, number> = {};
  private readonly dateAttributes: Record<string, { type: unknown }>;
  private readonly sqlite: boolean;

  constructor(
    private readonly sequelize: Sequelize,
    readonly chunkSize: number,
    private readonly concurrency: number,
    private readonly log: (msg: string) => void,
    /** How far the written timeline moves to end on the seed's end day (whole days, in ms). */
    private readonly moveMs: number,
  ) {
    this.sqlite = sequelize.getDialect() === 'sqlite';
    // Dialect-normalised DATE(3): on MySQL the bare Date escape would drop the milliseconds.
    // (`normalizeDataType` is what Model.init uses; it is missing from Sequelize 6's typings.)
    const normalizer = sequelize as unknown as { normalizeDataType(type: unknown): unknown };
    const dateType = normalizer.normalizeDataType(DataTypes.DATE(3));
    this.dateAttributes = Object.fromEntries(DATE_COLUMNS.map((c) => [c, { type: dateType }]));
  }

  /**
   * Opens a writer for one table; only one writer may be open at a time. `timeline: 'written'` rows have the
   * dates of the fixtures' timeline and move to the end day's; `'seeded'` rows are on the end day's already.
   */
  async open(table: string, timeline: Timeline): Promise<TableWriter> {
    const transaction = this.sqlite ? await this.sequelize.transaction() : undefined;
    return new TableWriter(this, table, transaction, this.sqlite ? 1 : Math.max(1, this.concurrency), timeline === 'written' ? this.moveMs : 0);
  }

  async insertAll(table: string, rows: Iterable<Row>, timeline: Timeline = 'written'): Promise<void> {
    await this.stream(
      table,
      async (writer) => {
        for (const row of rows) await writer.add(row);
      },
      timeline,
    );
  }

  /** Runs `produce` with a writer for the table; commits what it wrote, or rolls back if it throws. */
  async stream(table: string, produce: (writer: TableWriter) => Promise<void>, timeline: Timeline = 'written'): Promise<void> {
    const writer = await this.open(table, timeline);
    try {
      await produce(writer);
      await writer.close();
    } catch (e) {
      await writer.abort();
      throw e;
    }
  }

  async write(table: string, rows: Row[], transaction: Transaction | undefined): Promise<void> {
    await this.sequelize
      .getQueryInterface()
      // Sequelize 6 types the last argument as column names; at run time it takes the attribute definitions by column.
      .bulkInsert(table, rows, { transaction, logging: false }, this.dateAttributes as never);
  }

  report(table: string, count: number, startedMs: number): void {
    this.counts[table] = (this.counts[table] ?? 0) + count;
    this.log(`${table}: ${count.toLocaleString('en-US')} rows (${((performance.now() - startedMs) / 1000).toFixed(1)} s)`);
  }
}

/** Which timeline a table's rows are dated on (see Inserter.open). */
type Timeline = 'written' | 'seeded';

/** The row with each of its timestamps `moveMs` later. */
function moved(row: Row, moveMs: number): Row {
  if (moveMs === 0) return row;
  const out: Row = { ...row };
  for (const column of DATE_COLUMNS) {
    const value = out[column];
    if (value instanceof Date) out[column] = new Date(value.getTime() + moveMs);
  }
  return out;
}

class TableWriter {
  private buffer: Row[] = [];
  private count = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;
  private readonly startedMs = performance.now();

  constructor(
    private readonly inserter: Inserter,
    readonly table: string,
    private readonly transaction: Transaction | undefined,
    private readonly maxInFlight: number,
    private readonly moveMs: number,
  ) {}

  async add(row: Row): Promise<void> {
    this.buffer.push(moved(row, this.moveMs));
    if (this.buffer.length >= this.inserter.chunkSize) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    this.count += rows.length;
    const p: Promise<void> = this.inserter.write(this.table, rows, this.transaction).then(
      () => void this.inFlight.delete(p),
      (e: unknown) => {
        this.inFlight.delete(p);
        this.failure ??= e;
      },
    );
    this.inFlight.add(p);
    while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure;
  }

  async close(): Promise<number> {
    await this.flush();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
    if (this.transaction) await this.transaction.commit();
    this.inserter.report(this.table, this.count, this.startedMs);
    return this.count;
  }

  async abort(): Promise<void> {
    await Promise.allSettled(this.inFlight);
    if (this.transaction) await this.transaction.rollback().catch(() => undefined);
  }
}
