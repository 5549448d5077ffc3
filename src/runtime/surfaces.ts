import { Config, publicBase } from '../config';
import type { Logger } from '../logger';
import type { RedisClient } from '../redis';
import type { ServiceMetrics } from '../observability/serviceMetrics';
import { RateLimiter, rateLimitTiers } from '../rateLimit/rateLimiter';
import type { AppDeps } from '../http/app';
import type { HeadRefuser } from '../wire/headRefusals';
import { ScimAuthenticator } from '../auth/scimAuthenticator';
import { Directory } from '../services/people/directory';
import { scimRouter } from '../scim/router';
import { scimHeadRefuser } from '../scim/headRefusals';
import { OtlpAuthenticator } from '../auth/otlpAuthenticator';
import { otlpRouter } from '../otlp/router';
import { otlpHeadRefuser } from '../otlp/headRefusals';
import { authRoutes } from '../settings/authRoutes';
import { settingsPageRoutes } from '../settings/pageRoutes';
import { dashboardsPageRoutes } from '../dashboardsPage/pageRoutes';
import type { SignIn } from './access';
import type { Writers } from './writers';

/** What every surface is built from. */
export interface SurfaceContext {
  config: Config;
  logger: Logger;
  /** Where the rate limiters count, shared by every instance (memory without REDIS_URL), and their keys' prefix. */
  redis?: RedisClient;
  keyPrefix: string;
  /** Undefined without METRICS_PORT. */
  metrics?: ServiceMetrics;
  /** Tells the metrics of each request a surface's limiter refuses, by tier. */
  rejectedOn: (surface: string) => ((tier: string) => void) | undefined;
}

/** A transport beside the REST one: its routers at their path, and the answers the HTTP server gives a refused head there. */
export interface Surface {
  mounts: AppDeps['surfaces'];
  headRefusers: [prefix: string, refuse: HeadRefuser][];
}

/** SCIM 2.0 at /scim/v2 (docs/scim.md): the identity providers' tokens and limits, over the people's writers. */
export function scimSurface({ config, logger, redis, keyPrefix, rejectedOn }: SurfaceContext, writers: Writers): Surface {
  const scim = {
    authenticator: new ScimAuthenticator({
      cacheTtlMs: 5_000,
      lastUsedIntervalMs: 60_000,
      onBackgroundError: (err) => logger.warn({ err }, 'could not record SCIM token use'),
    }),
    limiter: new RateLimiter(
      rateLimitTiers(config.SCIM_RATE_LIMIT_PER_HOUR, config.SCIM_RATE_LIMIT_PER_MINUTE),
      redis,
      `${keyPrefix}:scim`,
      rejectedOn('scim'),
    ),
    members: writers.members,
    teams: writers.teams,
    directory: new Directory(),
    base: `${publicBase(config)}/scim/v2`,
    bodyLimitBytes: config.SCIM_BODY_LIMIT_KB * 1024,
    logger,
  };
  return {
    mounts: [{ path: '/scim/v2', router: scimRouter(scim) }],
    headRefusers: [['/scim/v2', scimHeadRefuser(scim.limiter)]],
  };
}

/** OpenTelemetry in at /otlp (docs/telemetry.md): its tokens and limits, over the telemetry writer. */
export function otlpSurface({ config, logger, redis, keyPrefix, rejectedOn, metrics }: SurfaceContext, writers: Writers): Surface {
  const otlp = {
    authenticator: new OtlpAuthenticator({
      cacheTtlMs: 5_000,
      lastUsedIntervalMs: 60_000,
      onBackgroundError: (err) => logger.warn({ err }, 'could not record OTLP token use'),
    }),
    telemetry: writers.telemetry,
    limiter: new RateLimiter(
      rateLimitTiers(config.OTLP_RATE_LIMIT_PER_MINUTE * 60, config.OTLP_RATE_LIMIT_PER_MINUTE),
      redis,
      `${keyPrefix}:otlp`,
      rejectedOn('otlp'),
    ),
    bodyLimitBytes: config.OTLP_BODY_LIMIT_KB * 1024,
    logger,
    onReceived: metrics && ((signal: string, accepted: number, rejected: number) => metrics.otlpReceived(signal, accepted, rejected)),
  };
  return {
    mounts: [{ path: '/otlp', router: otlpRouter(otlp), smallAnswers: true }],
    headRefusers: [['/otlp', otlpHeadRefuser(otlp.limiter)]],
  };
}

/**
 * The browser's pages (docs/settings.md): sign-in at /auth, limited as the API (`limiter`), then the settings and
 * the dashboards. Their heads are refused as the REST surface's.
 */
export function pageSurfaces({ logger }: SurfaceContext, signIn: SignIn, limiter: RateLimiter, publicOrigin: string): Surface {
  return {
    mounts: [
      {
        path: '/auth',
        router: authRoutes({ sessions: signIn.sessions, oidc: signIn.oidc, limiter, publicOrigin, secureCookies: publicOrigin.startsWith('https:'), logger }),
      },
      { path: '/settings', router: settingsPageRoutes() },
      { path: '/dashboards', router: dashboardsPageRoutes() },
    ],
    headRefusers: [],
  };
}
