import { AI_MEASURES, AiMeasure } from '../telemetry/aiTools';
import { conditions } from '../../access/conditions';
import { BucketOf, MetricSql } from './sql';
import { byBucket, countBuckets, ratio, round, series } from './figures';

/**
 * AI coding tools' usage (DESIGN §16), read from the daily rollups the telemetry writer keeps (one row per
 * organization, day, member, tool and model): members' figures, and, for an organization, what could not be
 * matched to a member, apart.
 */
type Sums = Record<AiMeasure, number>;
type SumRow = Sums & { bucket: number; active_users: number };

const sums = AI_MEASURES.map((m) => `SUM(a.${m}) AS ${m}`).join(', ');

/** Active days a week: light < 1, moderate 1 to 3, heavy ≥ 3. */
function engagement(activeDays: number[], windowDays: number) {
  const weeks = windowDays / 7;
  const counts = { light: 0, moderate: 0, heavy: 0 };
  for (const days of activeDays) {
    const perWeek = days / weeks;
    counts[perWeek < 1 ? 'light' : perWeek < 3 ? 'moderate' : 'heavy']++;
  }
  return counts;
}

const money = (usd: number) => round(usd, 4);
const hours = (seconds: number) => round(seconds / 3600, 2);

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

const zero = (): Sums => Object.fromEntries(AI_MEASURES.map((m) => [m, 0])) as Sums;
const sumOf = (row: Partial<Sums> | undefined): Sums => ({ ...zero(), ...Object.fromEntries(AI_MEASURES.map((m) => [m, Number(row?.[m] ?? 0)])) });

export async function aiUsageFigures(q: MetricSql) {
  const members = `${q.scoped('a', 'member')} AND ${q.inDays('a.day')} AND a.user_key <> ''`;
  const grouped = (bucket: BucketOf) =>
    q.rows<SumRow>(`SELECT ${bucket('a.day')} AS bucket, COUNT(DISTINCT a.user_key) AS active_users, ${sums} FROM ai_usage_days a WHERE ${members} GROUP BY bucket`);
  const [buckets, days, tools, models, unattributed, [population]] = await Promise.all([
    grouped(countBuckets(q)),
    q.rows<{ user_key: string; active_days: number }>(`SELECT a.user_key, COUNT(DISTINCT a.day) AS active_days FROM ai_usage_days a WHERE ${members} GROUP BY a.user_key`, ['user_key']),
    q.rows<Sums & { tool: string; active_users: number }>(`SELECT a.tool, COUNT(DISTINCT a.user_key) AS active_users, ${sums} FROM ai_usage_days a WHERE ${members} GROUP BY a.tool ORDER BY a.tool`, ['tool']),
    q.rows<Sums & { model: string }>(`SELECT a.model, ${sums} FROM ai_usage_days a WHERE ${members} AND a.model <> '' GROUP BY a.model ORDER BY a.model`, ['model']),
    q.scope.teamId
      ? undefined
      : q.rows<Sums>(`SELECT ${sums} FROM ai_usage_days a WHERE ${q.scoped('a', 'member')} AND ${q.inDays('a.day')} AND a.user_key = ''`),
    q.rows<{ members: number }>(membersOfScope(q)),
  ]);
  const total = sumOf(Object.fromEntries(AI_MEASURES.map((m) => [m, buckets.reduce((n, b) => n + Number(b[m] ?? 0), 0)])));
  const activeUsers = days.length;
  const byBucketIndex = byBucket(buckets);
  return {
    active_users: activeUsers,
    members: population?.members ?? 0,
    adoption_rate: ratio(activeUsers, population?.members ?? 0),
    engagement: engagement(days.map((d) => d.active_days), q.window.days),
    ...figures(total),
    by_tool: tools.map((t) => ({ tool: t.tool, active_users: t.active_users, sessions: Number(t.sessions), cost_usd: money(Number(t.cost_usd)), tokens: figures(sumOf(t)).tokens })),
    by_model: models.map((m) => ({ model: m.model, cost_usd: money(Number(m.cost_usd)), tokens: figures(sumOf(m)).tokens })),
    unattributed: unattributed ? { sessions: Number(unattributed[0]?.sessions ?? 0), cost_usd: money(Number(unattributed[0]?.cost_usd ?? 0)) } : null,
    series: series(q, (bucket, i) => {
      const row = byBucketIndex.get(i);
      return { start: bucket.start, active_users: row?.active_users ?? 0, ...figures(sumOf(row)) };
    }),
  };
}

/** The members an adoption rate is out of: the organization's or the team's, today. */
function membersOfScope(q: MetricSql): string {
  return q.scope.teamId
    ? `SELECT COUNT(*) AS members FROM team_memberships tm WHERE tm.team_id = :scope_team_id AND ${conditions.activeMembershipSql('tm')}`
    : `SELECT COUNT(*) AS members FROM organization_memberships om WHERE om.organization_id = :scope_organization_id AND ${conditions.activeMembershipSql('om')}`;
}
