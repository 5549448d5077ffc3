import { Commit, Team } from '../../../db/models';
import type { ResultCache } from '../../persistence/query/countCache';
import type { DataVersions } from '../../persistence/query/dataVersions';
import { activityFigures } from './activity';
import { aiUsageFigures } from './aiUsage';
import { collaborationFigures } from './collaboration';
import { aiImpactFigures } from './aiImpact';
import { financialFigures } from './financial';
import { doraFigures } from './dora';
import { flowFigures } from './flow';
import { pullRequestFigures } from './pullRequests';
import { MetricScope, organizationScope, teamScope } from './reading/scope';
import { MetricSql } from './reading/sql';
import { day, MetricWindow } from './reading/window';
import { ComputationSlots } from './computationSlots';
import { EVERYONE_S_DETAIL, MetricDetail } from './detail';
import { AppliedMetricSettings, DEFAULT_APPLIED } from './settings/document';
import { appliedMetricSettings } from './settings/metricSettings';

export { EVERYONE_S_DETAIL, type MetricDetail };

export const METRICS = { dora: doraFigures, pullRequests: pullRequestFigures, flow: flowFigures, activity: activityFigures, aiUsage: aiUsageFigures, collaboration: collaborationFigures, aiImpact: aiImpactFigures, financial: financialFigures };
export type MetricKind = keyof typeof METRICS;
export type MetricPayload<K extends MetricKind> = Awaited<ReturnType<typeof computeMetric<K>>>;
/** A metric's figures and the version of the organization's settings they were computed under (`meta.settings_version`). */
export type MetricAnswer<K extends MetricKind> = { figures: MetricPayload<K>; settingsVersion: number };

/** What each metric reads, a team's repositories included: the versions of these key its cached figures. */
const READS: Record<MetricKind, string[]> = {
  dora: ['deployments', 'incidents', 'incident_repositories', 'commits', 'team_memberships'],
  pullRequests: ['pull_requests', 'commits', 'team_memberships'],
  flow: ['tasks', 'teams'],
  activity: ['commits', 'interactions', 'team_memberships'],
  // Telemetry raises no data version (a shared row every batch would wait on): its figures show within the TTL. A
  // vendor's pull does (ai_vendor_days), a day at a time.
  aiUsage: ['team_memberships', 'organization_memberships', 'ai_vendor_days'],
  // And the telemetry's days, which raise no version (see aiUsage).
  aiImpact: ['ai_vendor_days', 'commits', 'pull_requests', 'pull_request_activities', 'deployments', 'incidents', 'incident_repositories', 'team_memberships', 'teams'],
  financial: ['cost_rates', 'organization_memberships', 'team_memberships', 'tasks', 'pull_requests', 'pull_request_activities', 'commits'],
  collaboration: ['pull_requests', 'pull_request_activities', 'commits', 'team_memberships', 'organization_memberships'],
};

/** An organization, or one of its teams (already allowed to the caller). */
export type MetricTarget = { organizationId: string; team: Team | null };

/**
 * The Metrics API's figures (docs/metrics.md). A dashboard asks many times for the same figures: each is computed once
 * per key (metric, scope, window, the versions of the tables it reads) and kept for the count cache's time to
 * live, and concurrent requests for it wait for one computation. A change made through the service raises the
 * versions, so it shows at once; the "now" figures are at most that old.
 */
export class MetricsService {
  /** "Now" of the figures: what "today" and the "now" figures are taken at. */
  readonly now: () => Date;

  constructor(
    private readonly versions: DataVersions,
    private readonly cache: ResultCache<unknown>,
    private readonly slots: ComputationSlots,
    private readonly options: { queryTimeoutMs?: number; now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async compute<K extends MetricKind>(kind: K, target: MetricTarget, window: MetricWindow, now = new Date(), detail = EVERYONE_S_DETAIL): Promise<MetricAnswer<K>> {
    const versions = await this.versions.of([...READS[kind], 'metric_settings']);
    const key = ['metric', kind, target.organizationId, target.team?.id ?? '', day(window.from), window.days, window.interval ?? '', detail.adoptionTiers ? 'tiers' : '', versions].join('|');
    return (await this.cache.getOrCompute(key, () =>
      this.slots.run(async () => {
        const [scope, settings] = await Promise.all([target.team ? teamScope(target.team) : organizationScope(target.organizationId), appliedMetricSettings(target.organizationId)]);
        return { figures: await computeMetric(kind, scope, window, now, this.options.queryTimeoutMs, detail, settings), settingsVersion: settings.version };
      }),
    )) as MetricAnswer<K>;
  }
}

/** A metric's payload: what it covers, its window, and its figures, computed in the database. */
export async function computeMetric<K extends MetricKind>(
  kind: K,
  scope: MetricScope,
  window: MetricWindow,
  now = new Date(),
  queryTimeoutMs?: number,
  detail = EVERYONE_S_DETAIL,
  settings: AppliedMetricSettings = DEFAULT_APPLIED,
) {
  const q = new MetricSql(Commit.sequelize!, scope, window, now, queryTimeoutMs, settings);
  const figures = (await METRICS[kind](q, detail)) as Awaited<ReturnType<(typeof METRICS)[K]>>;
  return {
    scope: { organization_id: scope.organizationId, team_id: scope.teamId, repositories: scope.repositories },
    from: day(window.from),
    to: day(new Date(window.before.getTime() - 1)),
    interval: window.interval ?? null,
    ...figures,
  };
}
