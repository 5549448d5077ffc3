import { QueryTypes, Sequelize } from 'sequelize';
import { timestampSql } from '../query/selectSql';

const DAY_MS = 86_400_000;
const CHUNK = 5_000;

/** What a purge removed, per table. */
export type Purged = Record<'telemetry_batches' | 'telemetry_points' | 'telemetry_events' | 'telemetry_series', number>;

/**
 * Telemetry kept no longer than DESIGN §15 says: raw bodies OTLP_RAW_RETENTION_DAYS, points and events
 * TELEMETRY_RETENTION_DAYS (a series not seen for as long is forgotten too); the daily rollups stay. Every API
 * process purges once an hour (the first a minute after it starts), in chunks, so no statement holds many locks;
 * several processes purging at once delete disjoint rows or none.
 */
export class TelemetryRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly options: { rawDays: number; telemetryDays: number; intervalMs?: number; onError: (err: unknown) => void },
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.purge(this.now()).catch(this.options.onError);
      this.timer = setTimeout(tick, this.options.intervalMs ?? 3_600_000);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  async purge(now: Date): Promise<Purged> {
    const raw = new Date(now.getTime() - this.options.rawDays * DAY_MS);
    const kept = new Date(now.getTime() - this.options.telemetryDays * DAY_MS);
    return {
      telemetry_batches: await this.deleteBefore('telemetry_batches', 'received_at', raw),
      telemetry_points: await this.deleteBefore('telemetry_points', 'end_at', kept),
      telemetry_events: await this.deleteBefore('telemetry_events', 'created_at', kept),
      telemetry_series: await this.deleteBefore('telemetry_series', 'last_at', kept),
    };
  }

  private async deleteBefore(table: string, column: string, before: Date): Promise<number> {
    const cutoff = timestampSql(this.sequelize, before);
    const mysql = this.sequelize.getDialect() === 'mysql';
    // SQLite has no DELETE … LIMIT unless compiled with it: the rows go by rowid.
    const sql = mysql
      ? `DELETE FROM ${table} WHERE ${column} < ${cutoff} LIMIT ${CHUNK}`
      : `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ${cutoff} LIMIT ${CHUNK})`;
    let total = 0;
    for (;;) {
      // A bulk delete answers how many rows went, in both dialects.
      const deleted = Number(await this.sequelize.query(sql, { type: QueryTypes.BULKDELETE }));
      total += deleted;
      if (deleted < CHUNK) return total;
    }
  }
}
