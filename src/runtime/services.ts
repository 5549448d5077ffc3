import { Config, publicBase } from '../config';
import { MetricsService } from '../services/metrics';
import type { ComputationSlots } from '../services/metrics/computationSlots';
import { ResultCache } from '../persistence/query/countCache';
import type { RequestContext } from '../procedures/context';
import type { Data } from './stores';
import type { Writers } from './writers';

/**
 * A year's daily DORA series is under 100 KB of JSON; expired figures are dropped as new ones come, so this bounds
 * what one TTL's distinct requests may keep, well inside the heap of 128 MB (package.json nodeFlags).
 */
const METRICS_CACHE_ENTRIES = 100;

/** The services the procedures call: lists, the Metrics API's figures (at most `slots` computed at once), the settings. */
export function createServices(config: Config, { listing, dataVersions }: Data, writers: Writers, slots: ComputationSlots, clock: () => Date): RequestContext['services'] {
  return {
    listing,
    metrics: new MetricsService(
      dataVersions,
      new ResultCache(config.COUNT_CACHE_TTL_MS, METRICS_CACHE_ENTRIES),
      slots,
      { queryTimeoutMs: config.METRICS_QUERY_TIMEOUT_MS, now: clock },
    ),
    settings: { webhookEndpoints: writers.webhookEndpoints, gitApps: writers.gitApps, apps: writers.apps, members: writers.memberAdministration, teams: writers.teams, accountLinks: writers.accountLinks, dashboardViews: writers.dashboardViews, metricSettings: writers.metricSettings, teamRepositories: writers.teamRepositories, repositoryProduction: writers.repositoryProduction, costRates: writers.costRates, publicBase: publicBase(config), clock },
  };
}
