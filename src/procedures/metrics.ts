import { z } from 'zod';
import { guard } from '../access/guard';
import { authedProcedure, router } from './init';
import type { AuthedContext } from './context';
import { ActivityMetricsResponse, AiUsageMetricsResponse, DoraMetricsResponse, FlowMetricsResponse, PullRequestMetricsResponse } from '../resources/metrics';
import { EVERYONE_S_DETAIL, MetricDetail, MetricKind, MetricPayload, MetricTarget } from '../services/metrics';
import { rules } from '../access/rules';
import { CollaborationMetricsResponse } from '../resources/collaborationMetrics';
import { AiImpactMetricsResponse } from '../resources/aiImpactMetrics';
import { FinancialMetricsResponse } from '../resources/financialMetrics';
import { DAY_MS, day, DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, startOfUtcDay, windowOf } from '../services/metrics/reading/window';
import { parseDateParam } from '../wire/dates';
import { idParam, strictQuery } from '../wire/query';
import { EndpointDoc, openapi } from './endpoint';
import { invalid } from '../errors';

const DATE_RULE = 'must be a date, YYYY-MM-DD (a whole UTC day)';

/** A `YYYY-MM-DD` day's start (UTC), or undefined for anything else. */
function parseDay(value: string): Date | undefined {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseDateParam(value) : undefined;
  return parsed?.kind === 'day' ? parsed.start : undefined;
}

const dateParam = (name: 'from' | 'to', description: string) =>
  z
    .string({ error: `${name} ${DATE_RULE}` })
    .refine((v) => parseDay(v) !== undefined, { error: `${name} ${DATE_RULE}` })
    .meta({ description })
    .optional();

/** The Metrics API's query (docs/metrics.md): one scope, a window of whole UTC days, an optional series interval. */
export const metricsQuery = strictQuery({
  organization_id: idParam('organization_id')
    .meta({ description: 'The organization whose figures to compute. Exactly one of organization_id and team_id. Example: `org_acme`.' })
    .optional(),
  team_id: idParam('team_id')
    .meta({ description: 'The team whose figures to compute: its tasks, interactions and the repositories its members authored commits in. Exactly one of organization_id and team_id. Example: `team_platform`.' })
    .optional(),
  from: dateParam('from', `First day of the window, YYYY-MM-DD (UTC, inclusive). Default: ${DEFAULT_WINDOW_DAYS - 1} days before \`to\`. Example: \`2026-01-01\`.`),
  to: dateParam('to', `Last day of the window, YYYY-MM-DD (UTC, inclusive; today at most matters). Default: today. The window has at most ${MAX_WINDOW_DAYS} days. Example: \`2026-01-28\`.`),
  interval: z
    .enum(['day', 'week', 'month'], { error: 'interval must be day, week or month' })
    .meta({ description: 'Adds a `series` of the same figures per UTC day, ISO week (from Monday) or calendar month, clipped to the window. Example: `week`.' })
    .optional(),
}).superRefine((q, ctx) => {
  if ((q.organization_id === undefined) === (q.team_id === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'Give exactly one of organization_id and team_id' });
  }
});

type MetricsQuery = z.infer<typeof metricsQuery>;

/** The start of a day the schema has checked. */
const dayOf = (value: string) => parseDay(value)!;

/**
 * `to` defaults to today (UTC), `from` to the 28 days ending at `to`. Checked here rather than in the schema:
 * "today" is the service's clock's (`now`), which the schema cannot see.
 */
function windowDays(q: Pick<MetricsQuery, 'from' | 'to'>, now: Date): { from: Date; to: Date } {
  const to = q.to ? dayOf(q.to) : startOfUtcDay(now);
  const from = q.from ? dayOf(q.from) : new Date(to.getTime() - (DEFAULT_WINDOW_DAYS - 1) * DAY_MS);
  if (to < from) throw invalid(`to (${q.to ?? 'today'}) is before from (${q.from})`);
  if ((to.getTime() - from.getTime()) / DAY_MS + 1 > MAX_WINDOW_DAYS) {
    throw invalid(`The window from ${day(from)} to ${day(to)} has more than ${MAX_WINDOW_DAYS} days; ask for at most ${MAX_WINDOW_DAYS}`);
  }
  return { from, to };
}

/** The scope addressed: 404 and 403 as for the organization or the team itself. */
async function targetOf(ctx: AuthedContext, q: MetricsQuery): Promise<MetricTarget> {
  if (q.organization_id !== undefined) {
    await guard.organizationMetrics(ctx.principal, q.organization_id);
    return { organizationId: q.organization_id, team: null };
  }
  const team = await guard.team(ctx.principal, q.team_id!);
  return { organizationId: team.organization_id, team };
}

/** Figures are computed once per key and kept (MetricsService): identical concurrent requests share one answer too. */
const metricProcedure = (doc: Omit<EndpointDoc, 'tag'>) => authedProcedure.meta({ ...openapi({ ...doc, tag: 'Metrics' }), sharedAnswer: true }).input(metricsQuery);

/**
 * Scope (404/403), what else the metric asks of the caller, window, then the figures, as the caller may see them:
 * what only some callers may see is decided before anything is read (`detail`), or removed from what everyone's
 * computation gives (`forCaller`) where that costs no more than the figures themselves.
 */
const resolveMetric =
  <K extends MetricKind, T = MetricPayload<K>>(
    kind: K,
    {
      forCaller = (f) => f as T,
      mayRead = () => undefined,
      detail = () => EVERYONE_S_DETAIL,
    }: {
      forCaller?: (figures: MetricPayload<K>, ctx: AuthedContext, target: MetricTarget) => T;
      mayRead?: (ctx: AuthedContext, target: MetricTarget) => void;
      detail?: (ctx: AuthedContext, target: MetricTarget) => MetricDetail;
    } = {},
  ) =>
  async ({ ctx, input }: { ctx: AuthedContext; input: MetricsQuery }) => {
    const now = ctx.services.metrics.now();
    // A window that cannot be is the request's mistake whoever asks: 400 before the scope's 404 or 403.
    const { from, to } = windowDays(input, now);
    const target = await targetOf(ctx, input);
    mayRead(ctx, target);
    const { figures, settingsVersion } = await ctx.services.metrics.compute(kind, target, windowOf(from, to, input.interval), now, detail(ctx, target));
    return { status: 'success' as const, data: forCaller(figures, ctx, target), meta: { settings_version: settingsVersion } };
  };

/** Who reviews whom is personal: only for those who may read figures per person. */
const collaborationForCaller = (figures: MetricPayload<'collaboration'>, ctx: AuthedContext, target: MetricTarget) =>
  rules.canReadPeopleMetrics(ctx.principal, target) ? figures : { ...figures, review_load: null, review_network: null, knowledge_silos: null };

/** An organization's teams by AI adoption: computed for the organization's admins only (a team's figures have none). */
const aiImpactDetail = (ctx: AuthedContext, target: MetricTarget): MetricDetail => ({
  adoptionTiers: target.team === null && rules.canReadAdoptionTiers(ctx.principal, target.organizationId),
});

/**
 * Each metric's answer, as the Metrics API gives it to a caller: `/v1/metrics/...`, tRPC `metrics.*` and the
 * dashboards' `dashboards.metrics.*` (a signed-in session's) all go through these, so their numbers are the same.
 */
export const metricResolvers = {
  dora: resolveMetric('dora'),
  pullRequests: resolveMetric('pullRequests'),
  flow: resolveMetric('flow'),
  activity: resolveMetric('activity'),
  aiUsage: resolveMetric('aiUsage'),
  aiImpact: resolveMetric('aiImpact', { detail: aiImpactDetail }),
  collaboration: resolveMetric('collaboration', { forCaller: collaborationForCaller }),
  financial: resolveMetric('financial', { mayRead: (ctx, target) => guard.financialMetrics(ctx.principal, target.organizationId) }),
};

const SCOPE_RULES = 'Exactly one of `organization_id` (404 or 403 as for the organization; not with a team-scoped token) or `team_id` (as for the team).';

export const metricsRouter = router({
  dora: metricProcedure({
    path: '/metrics/dora',
    operationId: 'getDoraMetrics',
    summary: 'DORA metrics',
    description: `Deployment frequency, lead time for changes, change failure rate and time to restore, by the Four Keys method, over production deployments. ${SCOPE_RULES}`,
  })
    .output(DoraMetricsResponse)
    .query(metricResolvers.dora),
  pullRequests: metricProcedure({
    path: '/metrics/pull-requests',
    operationId: 'getPullRequestMetrics',
    summary: 'Pull request metrics',
    description: `Pull requests opened, merged and closed, time to merge, and what is open now. ${SCOPE_RULES}`,
  })
    .output(PullRequestMetricsResponse)
    .query(metricResolvers.pullRequests),
  flow: metricProcedure({
    path: '/metrics/flow',
    operationId: 'getFlowMetrics',
    summary: 'Flow metrics',
    description: `Tasks completed, their cycle time and types, and the work in progress now. ${SCOPE_RULES}`,
  })
    .output(FlowMetricsResponse)
    .query(metricResolvers.flow),
  activity: metricProcedure({
    path: '/metrics/activity',
    operationId: 'getActivityMetrics',
    summary: 'Activity metrics',
    description: `Commits, active authors and interactions by type. ${SCOPE_RULES}`,
  })
    .output(ActivityMetricsResponse)
    .query(metricResolvers.activity),
  aiUsage: metricProcedure({
    path: '/metrics/ai-usage',
    operationId: 'getAiUsageMetrics',
    summary: 'AI usage metrics',
    description: `How members use AI coding tools (Claude Code, Gemini CLI, Codex, GitHub Copilot, Cursor): active users and adoption, engagement, sessions, prompts, tokens, cost, lines, commits, pull requests and edit decisions, per tool (with suggestions, chat and agent requests where the vendors report them) and per model, from the telemetry the tools send to /otlp and the usage the vendors' APIs report, a member's day of a tool counted once. A team's figures are its members' today. ${SCOPE_RULES}`,
  })
    .output(AiUsageMetricsResponse)
    .query(metricResolvers.aiUsage),
  aiImpact: metricProcedure({
    path: '/metrics/ai-impact',
    operationId: 'getAiImpactMetrics',
    summary: 'AI impact metrics',
    description: `Whether AI-assisted work ships faster or breaks more: the share of AI-assisted commits and merged pull requests (by an AI tool's mark, or the author's AI tool use that day), their time to merge, pickup time and size against the others, and the change failure rate of deployments that shipped AI-assisted commits against the others; for the organization's admins, its teams grouped by AI adoption with each group's time to merge, deployments a day and change failure rate. ${SCOPE_RULES}`,
  })
    .output(AiImpactMetricsResponse)
    .query(metricResolvers.aiImpact),
  collaboration: metricProcedure({
    path: '/metrics/collaboration',
    operationId: 'getCollaborationMetrics',
    summary: 'Collaboration metrics',
    description: `How people review each other's pull requests: pickup, first approval and review-to-merge times, pull requests iterated or merged unreviewed, how evenly reviews are shared, and (for the organization's admins and the team's managers only) review load, who reviews whom and knowledge silos. ${SCOPE_RULES}`,
  })
    .output(CollaborationMetricsResponse)
    .query(metricResolvers.collaboration),
  financial: metricProcedure({
    path: '/metrics/financial',
    operationId: 'getFinancialMetrics',
    summary: 'Financial metrics',
    description: `What engineering costs, for the organization's admins only (403 for everyone else): people cost from the rates set with \`npm run costs\`, cost per engineer, merged pull request and completed task, the split of time between capitalizable and expensed work, and what AI coding tools cost. A figure that needs a rate nobody set is null, never 0. ${SCOPE_RULES}`,
  })
    .output(FinancialMetricsResponse)
    .query(metricResolvers.financial),
});
