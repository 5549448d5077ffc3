import { AI_MEASURES, AiMeasure, Contribution } from './aiTools';
import type { TelemetrySql } from './sql';

const KEYS = ['organization_id', 'day', 'user_key', 'tool', 'model'] as const;

/**
 * A request's additions to the daily AI usage rollups (DESIGN §16), summed per (day, actor, tool, model) in the
 * process and added to the stored rows in one statement per 500 keys, in the transaction that stores the points.
 */
export class UsageRollup {
  private readonly rows = new Map<string, Record<string, string | number>>();

  constructor(private readonly organizationId: string) {}

  add(timeMs: number, userId: string | null, tool: string, contributions: Contribution[]): void {
    const day = new Date(timeMs).toISOString().slice(0, 10);
    for (const { measure, value, model } of contributions) {
      const key = `${day}\u0000${userId ?? ''}\u0000${tool}\u0000${model}`;
      let row = this.rows.get(key);
      if (!row) {
        row = { organization_id: this.organizationId, day, user_key: userId ?? '', tool, model, ...zeros() };
        this.rows.set(key, row);
      }
      row[measure] = Number(row[measure]) + value;
    }
  }

  get size(): number {
    return this.rows.size;
  }

  /** Sorted by key, so concurrent requests lock shared rows in one order. */
  async write(sql: TelemetrySql): Promise<void> {
    const rows = [...this.rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    if (rows.length) await sql.addTo('ai_usage_days', KEYS, AI_MEASURES, rows);
  }
}

function zeros(): Record<AiMeasure, number> {
  return Object.fromEntries(AI_MEASURES.map((m) => [m, 0])) as Record<AiMeasure, number>;
}
