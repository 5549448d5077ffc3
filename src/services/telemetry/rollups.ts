import { AI_MEASURES, AiMeasure, Contribution } from './aiTools';
import { recordOf } from '../metrics/reading/records';
import type { ChangeSql } from '../../persistence/changes/changeSql';
import { AuthorDay, weighCommitsOfDays } from '../git/rollups/aiEvidence';
import { dayBit } from '../activity/dayBits';
import { addAiDays } from '../activity/memberActiveYears';
import { addAiActiveYears } from '../activity/aiActiveYears';
import type { AiActiveMonth } from '../../../db/rollups/aiActiveYears';
import { yieldVendorDaysToOtlp } from '../aiUsage/vendorRollups';

const KEYS = ['organization_id', 'day', 'user_key', 'tool', 'model', 'source'] as const;
const ORG_KEYS = ['organization_id', 'day', 'tool', 'model', 'attributed', 'source'] as const;

/**
 * A request's additions to the daily AI usage rollups (docs/metrics.md#ai-review-and-cost-figures), summed in the process per (day, member, tool,
 * model) and per (day, tool, model, attributed) for the organization, and added to the stored rows in one
 * statement per 500 keys, in the transaction that stores the points.
 */
export class UsageRollup {
  private readonly members = new Map<string, Record<string, string | number | boolean>>();
  private readonly organization = new Map<string, Record<string, string | number | boolean>>();
  private readonly months = new Map<string, AiActiveMonth>();

  constructor(private readonly organizationId: string) {}

  add(timeMs: number, userId: string | null, tool: string, contributions: Contribution[]): void {
    const day = new Date(timeMs).toISOString().slice(0, 10);
    for (const { measure, value, model } of contributions) {
      if (value === 0) continue;
      const member = rowFor(this.members, [day, userId ?? '', tool, model], () => ({ organization_id: this.organizationId, day, user_key: userId ?? '', tool, model, source: 'otlp' }));
      const organization = rowFor(this.organization, [day, tool, model, String(userId !== null)], () => ({ organization_id: this.organizationId, day, tool, model, attributed: userId !== null, source: 'otlp' }));
      member[measure] = Number(member[measure]) + value;
      organization[measure] = Number(organization[measure]) + value;
      if (userId !== null) for (const t of [tool, '']) this.activeOn(day, userId, t);
    }
  }

  private activeOn(day: string, userId: string, tool: string): void {
    const month = day.slice(0, 7);
    const id = [userId, month, tool].join('\u0000');
    const row = this.months.get(id) ?? { organization_id: this.organizationId, user_key: userId, month, tool, days: 0 };
    row.days |= dayBit(day);
    this.months.set(id, row);
  }

  /**
   * Sorted by key, so concurrent requests lock shared rows in one order. Where a vendor's API counted one of these
   * members' days of a tool, OTLP's figures take its place (after OTLP's rows are written, so a pull writing that
   * day at once is waited for: aiUsage/vendorRollups.ts). The members' commits of the days this request reports code
   * of are weighed again in the same change (AI impact reads their evidence; git/rollups/aiEvidence.ts).
   */
  async write(sql: ChangeSql): Promise<void> {
    await this.addRollups(sql);
    await yieldVendorDaysToOtlp(sql, this.organizationId, this.memberDays());
    await weighCommitsOfDays(sql.transaction, this.organizationId, this.codeDays());
  }

  /** The rollup rows alone: what the benchmark's ingest floor writes too (scripts/bench/otlp/rows.ts). */
  async addRollups(sql: ChangeSql): Promise<void> {
    if (this.members.size) await sql.addTo('ai_usage_days', KEYS, AI_MEASURES, sortedRows(this.members));
    if (this.organization.size) await sql.addTo('ai_usage_org_days', ORG_KEYS, AI_MEASURES, sortedRows(this.organization));
    if (this.months.size) {
      const months = sortedRows(this.months);
      await addAiActiveYears(sql, months);
      await addAiDays(sql, months.filter((r) => r.tool === ''));
    }
  }

  /** Each member, day and tool this request reports. */
  private memberDays(): { userId: string; day: string; tool: string }[] {
    return [...this.members.values()].flatMap((row) => (row.user_key === '' ? [] : [{ userId: String(row.user_key), day: String(row.day), tool: String(row.tool) }]));
  }

  /** Each member and day this request reports code of: lines a tool changed or commits it made (aiEvidence.ts). */
  private codeDays(): AuthorDay[] {
    const days = new Map<string, AuthorDay>();
    for (const row of this.members.values()) {
      if (row.user_key === '' || !CODE_MEASURES.some((m) => Number(row[m]) !== 0)) continue;
      days.set(`${String(row.user_key)}\u0000${String(row.day)}`, { userId: String(row.user_key), day: String(row.day) });
    }
    return [...days.values()];
  }
}

/** What a tool reports of the code it wrote: the evidence a member's commits of the day are AI-assisted by (db/rollups/aiEvidence.ts). */
const CODE_MEASURES: AiMeasure[] = ['lines_added', 'lines_removed', 'commits'];

function rowFor(rows: Map<string, Record<string, string | number | boolean>>, key: string[], create: () => Record<string, string | boolean>) {
  const id = key.join('\u0000');
  let row = rows.get(id);
  if (!row) rows.set(id, (row = { ...create(), ...zeros() }));
  return row;
}

const sortedRows = <Row>(rows: Map<string, Row>) =>
  [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);

function zeros(): Record<AiMeasure, number> {
  return recordOf(AI_MEASURES, () => 0);
}
