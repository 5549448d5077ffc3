import { MEASURES } from '../migrations/0009-telemetry';
import { VENDOR_ONLY } from '../migrations/0035-ai-vendor-days';
import { AiActiveMonth, aiActiveYearRows } from '../rollups/aiActiveYears';

type Row = Record<string, unknown>;

/** Every figure of the AI usage rollups: OTLP's and what only the vendors report. */
export const USAGE_MEASURES = [...MEASURES, ...VENDOR_ONLY];
export type UsageFigures = Partial<Record<string, number>>;

/**
 * The demo's AI usage rollups as the writers keep them (docs/ai-vendors.md#what-the-figures-count): each member's
 * daily row is handed back to be inserted as it streams by, while the organization's daily sums and the members'
 * active month bits (for the tool and for any tool) add up here across both sources, OTLP's telemetry and a
 * vendor's reports, and are inserted once both are generated.
 */
export class DemoUsageRollups {
  private readonly organization = new Map<string, Row>();
  private readonly months = new Map<string, AiActiveMonth>();

  constructor(private readonly organizationId: string) {}

  /** A member's (or, with userKey '', the unattributed) row of a day, tool, model and source, added to the organization's. */
  member(day: string, userKey: string, tool: string, model: string, source: 'otlp' | 'vendor', figures: UsageFigures): Row {
    const sums = Object.fromEntries(USAGE_MEASURES.map((m) => [m, figures[m] ?? 0]));
    const key = [day, tool, model, userKey !== '', source].join('|');
    const org = this.organization.get(key) ?? { organization_id: this.organizationId, day, tool, model, attributed: userKey !== '', source, ...Object.fromEntries(USAGE_MEASURES.map((m) => [m, 0])) };
    for (const m of USAGE_MEASURES) org[m] = Number(org[m]) + sums[m];
    this.organization.set(key, org);
    if (userKey !== '') for (const t of [tool, '']) this.activeOn(day, userKey, t);
    return { organization_id: this.organizationId, day, user_key: userKey, tool, model, source, ...sums };
  }

  /** A vendor's account matched to no member: the organization's figures only. */
  unmatched(day: string, tool: string, figures: UsageFigures): void {
    this.member(day, '', tool, '', 'vendor', figures);
  }

  async insert(ins: { insertAll(table: string, rows: Iterable<Row>): Promise<void> }): Promise<void> {
    await ins.insertAll('ai_usage_org_days', this.organization.values());
    await ins.insertAll('ai_active_years', aiActiveYearRows(this.months.values()));
  }

  /** Bit d - 1 of a month's `days`: day d. */
  private activeOn(day: string, userKey: string, tool: string): void {
    const key = [userKey, day.slice(0, 7), tool].join('|');
    const row = this.months.get(key) ?? { organization_id: this.organizationId, user_key: userKey, month: day.slice(0, 7), tool, days: 0 };
    row.days |= 2 ** (Number(day.slice(8, 10)) - 1);
    this.months.set(key, row);
  }
}
