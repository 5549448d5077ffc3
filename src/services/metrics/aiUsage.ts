import { VENDOR_MEASURES, VendorMeasure } from '../aiVendors/vendorDay';
import { recordOf } from './reading/records';
import { membersInWindowSql } from './members';
import { MetricSql } from './reading/sql';
import { countBuckets, ratio, round, series } from './reading/figures';

/**
 * AI coding tools' usage (docs/metrics.md#ai-review-and-cost-figures), read from the rollups the telemetry writer keeps: sums from the
 * organization's daily rows (a few thousand a year, whatever its size) or, for a team, from its members' daily
 * rows; who was active, and on how many days, from each member's yearly day bits (one or two rows a year's window).
 */
/** OTLP's measures and the vendors' own (both kept in the daily rollups; docs/ai-vendors.md#what-the-figures-count). */
type Sums = Record<VendorMeasure, number>;
type SumRow = Sums & { bucket: number; tool: string; model: string; attributed: number };
/** The members who used a tool in the window, by how many days a week they did. */
type ActiveMembers = { active_users: number; light: number | null; moderate: number | null; heavy: number | null };

const sumsSql = VENDOR_MEASURES.map((m) => `SUM(a.${m}) AS ${m}`).join(', ');
const money = (usd: number) => round(usd, 4);
const hours = (seconds: number) => round(seconds / 3600, 2);
const zero = (): Sums => recordOf(VENDOR_MEASURES, () => 0);

function add(into: Sums, row: Sums): Sums {
  for (const m of VENDOR_MEASURES) into[m] += Number(row[m] ?? 0);
  return into;
}
const total = (rows: SumRow[]) => rows.reduce((sum, row) => add(sum, row), zero());

function figures(s: Sums) {
  const decisions = s.edits_accepted + s.edits_rejected;
  return {
    sessions: s.sessions,
    prompts: s.prompts,
    api_requests: s.api_requests,
    active_hours: { user: hours(s.active_seconds_user), cli: hours(s.active_seconds_cli) },
    tokens: { input: s.input_tokens, output: s.output_tokens, cache_read: s.cache_read_tokens, cache_creation: s.cache_creation_tokens },
    cost_usd: money(s.cost_usd),
    lines: { added: s.lines_added, removed: s.lines_removed },
    commits: s.commits,
    pull_requests: s.pull_requests,
    edit_decisions: { accepted: s.edits_accepted, rejected: s.edits_rejected, acceptance_rate: ratio(s.edits_accepted, decisions) },
  };
}

/**
 * Active days a week: light < 1, moderate 1 to 3, heavy ≥ 3, of members `d` with `active_days`: in whole numbers
 * (days × 7 against the window's days), so no quotient is rounded.
 */
function engagementSql(windowDays: number): string {
  const perWeek = 'd.active_days * 7';
  const count = (condition: string) => `SUM(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
  return `${count(`${perWeek} < ${windowDays}`)} AS light, ${count(`${perWeek} >= ${windowDays} AND ${perWeek} < ${3 * windowDays}`)} AS moderate, ${count(`${perWeek} >= ${3 * windowDays}`)} AS heavy`;
}

function groupBy(rows: SumRow[], key: (row: SumRow) => string): Map<string, SumRow[]> {
  const groups = new Map<string, SumRow[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export async function aiUsageFigures(q: MetricSql) {
  const members = `${q.scoped('a', 'member')} AND ${q.inDays('a.day')} AND a.user_key <> ''`;
  const bucket = countBuckets(q)('a.day');
  const sums = q.scope.teamId
    ? `SELECT ${bucket} AS bucket, a.tool, a.model, 1 AS attributed, ${sumsSql} FROM ai_usage_days a WHERE ${members} GROUP BY bucket, a.tool, a.model`
    : `SELECT ${bucket} AS bucket, a.tool, a.model, a.attributed, ${sumsSql} FROM ai_usage_org_days a
        WHERE a.organization_id = :scope_organization_id AND ${q.inDays('a.day')} GROUP BY bucket, a.tool, a.model, a.attributed`;
  const years = q.yearsInWindow('a');
  const [rows, [active], activeByTool, activeByBucket, [population]] = await Promise.all([
    q.rows<SumRow>(sums, ['tool', 'model']),
    // Each member's days in the window from their all-tools years (one or two rows a member, in key order), banded
    // in the database: one row comes back, whatever the number of members.
    q.rows<ActiveMembers>(
      `SELECT COUNT(*) AS active_users, ${engagementSql(q.window.days)} FROM (SELECT a.user_key, SUM(${years.days}) AS active_days FROM ai_active_years a
        WHERE ${q.scoped('a', 'member')} AND a.tool = '' AND ${years.where} GROUP BY a.user_key HAVING SUM(${years.days}) > 0) d`,
    ),
    q.rows<{ tool: string; active_users: number }>(
      `SELECT a.tool, COUNT(DISTINCT a.user_key) AS active_users FROM ai_active_years a
        WHERE ${q.scoped('a', 'member')} AND a.tool <> '' AND ${years.where} AND ${years.any} <> 0 GROUP BY a.tool`,
      ['tool'],
    ),
    q.window.interval
      ? q.rows<{ bucket: number; active_users: number }>(`SELECT ${bucket} AS bucket, COUNT(DISTINCT a.user_key) AS active_users FROM ai_usage_days a WHERE ${members} GROUP BY bucket`)
      : Promise.resolve([]),
    // Adoption's population: whoever was a member at some time in the window, as the active users are people
    // active in it (a member who left during it counts in both; one who left before, in neither).
    q.rows<{ members: number }>(membersInWindowSql(q)),
  ]);
  const attributed = rows.filter((r) => Number(r.attributed) === 1);
  const unattributed = total(rows.filter((r) => Number(r.attributed) !== 1));
  const byTool = groupBy(attributed, (r) => r.tool);
  const byModel = groupBy(attributed.filter((r) => r.model !== ''), (r) => r.model);
  const byBucket = groupBy(attributed, (r) => String(r.bucket));
  const usersOf = new Map(activeByTool.map((r) => [r.tool, r.active_users]));
  const activeIn = new Map(activeByBucket.map((r) => [Number(r.bucket), r.active_users]));
  const memberCount = population?.members ?? 0;
  const activeUsers = Number(active?.active_users ?? 0);
  return {
    active_users: activeUsers,
    members: memberCount,
    adoption_rate: ratio(activeUsers, memberCount),
    engagement: { light: Number(active?.light ?? 0), moderate: Number(active?.moderate ?? 0), heavy: Number(active?.heavy ?? 0) },
    ...figures(total(attributed)),
    by_tool: [...byTool].map(([tool, toolRows]) => {
      const s = total(toolRows);
      return {
        tool,
        active_users: usersOf.get(tool) ?? 0,
        sessions: s.sessions,
        cost_usd: money(s.cost_usd),
        tokens: figures(s).tokens,
        suggestions: { shown: s.suggestions_shown, accepted: s.suggestions_accepted, acceptance_rate: ratio(s.suggestions_accepted, s.suggestions_shown) },
        lines: { suggested: s.lines_suggested, added: s.lines_added, removed: s.lines_removed },
        chat_requests: s.chat_requests,
        agent_requests: s.agent_requests,
      };
    }),
    by_model: [...byModel].map(([model, modelRows]) => {
      const s = total(modelRows);
      return { model, cost_usd: money(s.cost_usd), tokens: figures(s).tokens };
    }),
    unattributed: q.scope.teamId ? null : { sessions: unattributed.sessions, cost_usd: money(unattributed.cost_usd) },
    series: series(q, (b, i) => ({ start: b.start, active_users: activeIn.get(i) ?? 0, ...figures(total(byBucket.get(String(i)) ?? [])) })),
  };
}
