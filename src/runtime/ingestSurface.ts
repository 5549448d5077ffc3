import { RateLimiter, rateLimitTiers } from '../rateLimit/rateLimiter';
import { ingestRouter } from '../ingest/pipeline';
import type { IntegrationProvider } from '../integrations/provider';
import { ingestBodyBudget } from '../ingest/body';
import { ingestHeadRefuser } from '../ingest/headRefusals';
import type { Surface, SurfaceContext } from './surfaces';
import type { Writers } from './writers';
import { ConnectionStates } from '../services/apps/connectionStates';

/** Webhooks in at /ingest (docs/ingest.md): every registered provider's deliveries, through the one pipeline. */
export function ingestSurface({ config, logger, redis, keyPrefix, rejectedOn, metrics }: SurfaceContext, writers: Writers, providers: readonly IntegrationProvider[]): Surface {
  const ingest = {
    providers,
    gitApps: writers.gitApps,
    apps: writers.apps,
    activity: writers.gitActivity,
    tasks: writers.tasks,
    operations: writers.operations,
    conversations: writers.conversations,
    limiter: new RateLimiter(
      rateLimitTiers(config.INGEST_RATE_LIMIT_PER_HOUR, config.INGEST_RATE_LIMIT_PER_MINUTE),
      redis,
      `${keyPrefix}:ingest`,
      rejectedOn('ingest'),
    ),
    bodyLimitBytes: config.INGEST_BODY_LIMIT_KB * 1024,
    // The bodies this process holds at once, whichever provider sent them.
    budget: ingestBodyBudget(config.INGEST_BODY_LIMIT_KB * 1024),
    logger,
    connectionStates: new ConnectionStates(writers.changes, (err) => logger.warn({ err }, 'a connection’s state could not be recorded')),
    onDelivery: metrics && ((provider: string, result: string) => metrics.ingestDelivered(provider, result)),
  };
  return {
    mounts: [{ path: '/ingest', router: ingestRouter(ingest), smallAnswers: true }],
    headRefusers: [['/ingest', ingestHeadRefuser(ingest.limiter)]],
  };
}
