import type { Server } from 'node:http';
import type { Sequelize } from 'sequelize';
import type { Express } from 'express';
import { Config, publicBase } from '../config';
import type { Logger } from '../logger';
import type { RedisClient } from '../redis';
import { RateLimiter, rateLimitTiers } from '../rateLimit/rateLimiter';
import { ComputationSlots } from '../services/metrics/computationSlots';
import { SecretBox, secretsKeyFor } from '../secrets/secretBox';
import type { DeliveryWorker } from '../delivery/worker';
import type { Pruner } from '../services/retention/pruner';
import type { VendorPullSchedule } from '../services/aiVendors/pullSchedule';
import type { HistoryCatchUp } from '../services/history/historySchedule';
import { databasePools, ServiceMetrics } from '../observability/serviceMetrics';
import { appRouter } from '../procedures';
import type { RequestContext } from '../procedures/context';
import { API_VERSION } from '../openapi';
import { createApp } from '../http/app';
import { createHttpServer, refuserByPath } from '../http/server';
import { restHeadRefuser } from '../http/headRefusals';
import { connect, disconnect, openData, readiness } from './stores';
import { createAccess, SignIn } from './access';
import { createWriters, Writers } from './writers';
import { createServices } from './services';
import { createDeliveryWorker, createHistoryCatchUp, createPruner, createRecomputations, createVendorPullSchedule } from './background';
import { otlpSurface, pageSurfaces, scimSurface, SurfaceContext } from './surfaces';
import { ingestSurface } from './ingestSurface';
import { providerCatalog } from '../integrations/catalog';
import type { IntegrationProvider } from '../integrations/provider';
import { INTEGRATIONS } from '../integrations/registry';
import type { Recomputations } from '../services/metrics/settings/recomputation';

export interface Runtime {
  app: Express;
  /** An HTTP server for the app, with the configured timeouts and error-envelope answers to malformed requests. */
  createServer(): Server;
  /** Set on SIGTERM: /readyz answers 503 and responses ask clients to close their connection. */
  lifecycle: { draining: boolean };
  sequelize: Sequelize;
  redis?: RedisClient;
  /** The domain services every writing surface calls (docs/architecture.md#writers). */
  writers: Writers;
  /** The read services the procedures call (lists, metrics). */
  services: RequestContext['services'];
  /** Sends outgoing webhooks; src/service.ts starts it (tests start it when they need it). close() stops it. */
  webhooks: DeliveryWorker;
  /** Browser sessions of the settings (docs/settings.md). */
  signIn: SignIn;
  /** Prometheus' figures of this process; undefined without METRICS_PORT. src/service.ts serves them. */
  metrics?: ServiceMetrics;
  /** Deletes what has outlived its retention once an hour (docs/operating.md); src/service.ts starts it. close() stops it. */
  retention: Pruner;
  /** Pulls the AI vendors' apps once a day (docs/ai-vendors.md#the-daily-pull); src/service.ts starts it. close() stops it. */
  aiPulls: VendorPullSchedule;
  /** Imports each connection's history again once a day (docs/history.md#the-daily-catch-up); src/service.ts starts it. close() stops it. */
  historyCatchUp: HistoryCatchUp;
  /** Changed settings recomputed over the history (src/services/metrics/settings/recomputation.ts). */
  recomputations: Recomputations;
  /** The service's "now": the metrics' default windows and the day a first start's demo data ends on. */
  clock: () => Date;
  /** Closes the database pool and the Redis connection. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  rateLimitKeyPrefix?: string;
  clock?: () => Date;
  /** The providers connected to: the registry's (src/integrations/registry.ts), or a test's own beside them. */
  integrations?: readonly IntegrationProvider[];
}

/**
 * Wires config → stores → services → express app. The process (src/service.ts) and the tests both start here; each
 * part is built by its own file of this folder.
 */
export function createRuntime(config: Config, logger: Logger, options: RuntimeOptions = {}): Runtime {
  const integrations = options.integrations ?? INTEGRATIONS;
  const catalog = providerCatalog(integrations);
  const clock = options.clock ?? (() => new Date());
  const keyPrefix = options.rateLimitKeyPrefix ?? 'rl';
  const connections = connect(config, logger);
  const { sequelize, redis } = connections;
  // Prometheus' figures when METRICS_PORT is set (src/service.ts serves them); the parts below report to it.
  const metrics: ServiceMetrics | undefined = config.METRICS_PORT
    ? new ServiceMetrics({
        dueWebhookDeliveries: () => webhooks.status().due,
        databasePools: () => databasePools(sequelize.connectionManager),
        metricComputations: () => computationSlots.load,
      })
    : undefined;
  const computationSlots = new ComputationSlots(config.METRICS_MAX_COMPUTATIONS, config.METRICS_MAX_WAITING, metrics && (() => metrics.metricComputationRefused()));
  const rejectedOn = (surface: string) => (metrics ? (tier: string) => metrics.limiterRejected(surface, tier) : undefined);
  const limiter = new RateLimiter(rateLimitTiers(config.RATE_LIMIT_PER_HOUR, config.RATE_LIMIT_PER_MINUTE), redis, keyPrefix, rejectedOn('api'));
  const data = openData(config, logger, connections);
  const { authenticator, signIn, accessChanges } = createAccess(config, logger, redis, keyPrefix, data.changes);
  // The key is read when a secret is first sealed or opened: a process that never does needs none.
  const secrets = new SecretBox(() => secretsKeyFor(config));
  const writers = createWriters(config, data.changes, secrets, catalog, clock);
  const webhooks = createDeliveryWorker(config, logger, data.changes, secrets, metrics);
  const retention = createPruner(config, logger, sequelize);
  const aiPulls = createVendorPullSchedule(config, logger, data.changes, secrets, catalog);
  const historyCatchUp = createHistoryCatchUp(config, logger, data.changes, secrets, catalog);
  const recomputations = createRecomputations(logger, data.changes);

  const lifecycle = { draining: false };
  const publicOrigin = new URL(publicBase(config)).origin;
  const context: SurfaceContext = { config, logger, redis, keyPrefix, metrics, rejectedOn };
  const surfaces = [
    scimSurface(context, writers),
    ingestSurface(context, writers, integrations),
    otlpSurface(context, writers),
    pageSurfaces(context, signIn, limiter, publicOrigin),
  ];
  const services = createServices(config, data, writers, computationSlots, clock);
  const app = createApp({
    surfaces: surfaces.flatMap((surface) => surface.mounts),
    router: appRouter,
    logger,
    version: API_VERSION,
    contactUrl: config.API_CONTACT_URL ?? `${publicBase(config)}/docs`,
    trustProxy: config.TRUST_PROXY,
    corsOrigins: config.CORS_ORIGINS,
    authenticator,
    sessions: signIn.authenticator,
    publicOrigin,
    limiter,
    services,
    readiness: readiness(config, connections, lifecycle),
    readinessDetail: () => ({ webhooks: webhooks.status() }),
    lifecycle,
    dataGeneration: () => data.dataVersions.generation,
    observeResponse: metrics && ((r) => metrics.response(r.surface, r.method, r.route, r.status, r.seconds, r.failure)),
  });
  const headRefuser = refuserByPath(surfaces.flatMap((surface) => surface.headRefusers), restHeadRefuser(limiter));

  return {
    app,
    createServer: () =>
      createHttpServer(app, { keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS }, headRefuser),
    lifecycle, metrics, sequelize, redis, writers, services, webhooks, signIn, retention, aiPulls, historyCatchUp, recomputations, clock,
    async close() {
      await accessChanges.stop();
      await data.dataVersions.stop();
      await retention.stop();
      await aiPulls.stop();
      await historyCatchUp.stop();
      await recomputations.stop();
      await webhooks.stop();
      await data.changes.close();
      await disconnect(connections);
    },
  };
}

/**
 * Graceful stop. First a drain: the process keeps serving, but /readyz fails and every response carries
 * `Connection: close`, so load balancers and keep-alive clients move away; requests already on the wire are
 * answered (Node's server.close() would reset connections whose request is not parsed yet). Then the listener
 * closes, in-flight requests finish (up to the timeout), and the pools close.
 */
export async function shutdown(
  server: Server,
  runtime: Runtime,
  options: { drainMs: number; timeoutMs: number },
): Promise<void> {
  runtime.lifecycle.draining = true;
  await new Promise((resolve) => setTimeout(resolve, options.drainMs));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const timer = setTimeout(() => server.closeAllConnections(), options.timeoutMs);
  await closed;
  clearTimeout(timer);
  await runtime.close();
}
