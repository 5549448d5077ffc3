import type { Server } from 'node:http';
import type { Sequelize } from 'sequelize';
import type { Express } from 'express';
import { Config, publicBase } from './config';
import type { Logger } from './logger';
import { createSequelize, pingReplicas } from '../db/connection';
import { initModels } from '../db/models';
import { Authenticator } from './auth/authenticator';
import { AccessChangeFeed } from './auth/accessChangeFeed';
import { RateLimiter, rateLimitTiers } from './rateLimit/rateLimiter';
import { createRedisClient, RedisClient } from './redis';
import { ListingService } from './persistence/query/listing';
import { CountCache, ResultCache } from './persistence/query/countCache';
import { shareDataVersions } from './persistence/query/versionBroadcast';
import { MetricsService } from './services/metrics';
import { ComputationSlots } from './services/metrics/computationSlots';
import { ChangeRunner } from './persistence/changes/change';
import { MemberWriter } from './services/people/members';
import { TeamWriter } from './services/people/teams';
import { ScimAuthenticator } from './auth/scimAuthenticator';
import { Directory } from './services/people/directory';
import { SecretBox, secretsKeyFor } from './secrets/secretBox';
import { GitAppWriter } from './services/git/apps/gitApps';
import { AppWriter } from './services/apps/apps';
import { GitActivityWriter } from './services/git/writer';
import { TaskWriter } from './services/work/taskWriter';
import { OperationsWriter } from './services/operations/operationsWriter';
import { ConversationWriter } from './services/activity/conversations';
import { DashboardViewWriter } from './services/dashboards/dashboardViewWriter';
import { WebhookEndpointWriter } from './services/webhooks/endpoints';
import { DeliveryQueue } from './services/webhooks/deliveryQueue';
import { DeliveryWorker } from './delivery/worker';
import { checkEndpointUrl } from './delivery/endpointUrl';
import { outboundPolicy } from './outbound/outboundFetch';
import { appRouter } from './procedures';
import { createApp } from './http/app';
import { scimRouter } from './scim/router';
import { ingestRouter } from './ingest/router';
import { ingestBodyBudget } from './ingest/body';
import { appIngestRouter } from './ingest/apps/router';
import { createHttpServer, refuserByPath } from './http/server';
import { restHeadRefuser } from './http/headRefusals';
import { scimHeadRefuser } from './scim/headRefusals';
import { ingestHeadRefuser } from './ingest/headRefusals';
import { otlpRouter } from './otlp/router';
import { otlpHeadRefuser } from './otlp/headRefusals';
import { OtlpAuthenticator } from './auth/otlpAuthenticator';
import { TelemetryWriter } from './services/telemetry/writer';
import { Pruner } from './services/retention/pruner';
import { VendorPullSchedule } from './services/aiVendors/pullSchedule';
import { VendorPulls } from './services/aiVendors/vendorPulls';
import { defaultHttp } from './services/aiVendors/vendorHttp';
import { databasePools, ServiceMetrics } from './observability/serviceMetrics';
import { retentionPolicies } from './services/retention/policies';
import { API_VERSION } from './openapi';
import type { RequestContext } from './procedures/context';
import { Sessions, SESSION_DEFAULTS } from './auth/sessions';
import { SessionAuthenticator } from './auth/sessionAuthenticator';
import { DatabaseAuthStore, RedisAuthStore } from './auth/sessionStore';
import { OidcSignIn } from './auth/oidc';
import { authRoutes } from './settings/authRoutes';
import { dashboardsPageRoutes, settingsPageRoutes } from './settings/pageRoutes';

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
  /** The service's "now": the metrics' default windows and the day a first start's demo data ends on. */
  clock: () => Date;
  /** Closes the database pool and the Redis connection. */
  close(): Promise<void>;
}

export interface Writers {
  changes: ChangeRunner;
  members: MemberWriter;
  teams: TeamWriter;
  gitApps: GitAppWriter;
  apps: AppWriter;
  gitActivity: GitActivityWriter;
  tasks: TaskWriter;
  operations: OperationsWriter;
  conversations: ConversationWriter;
  webhookEndpoints: WebhookEndpointWriter;
  telemetry: TelemetryWriter;
  dashboardViews: DashboardViewWriter;
}

/**
 * A year's daily DORA series is under 100 KB of JSON; expired figures are dropped as new ones come, so this bounds
 * what one TTL's distinct requests may keep, well inside the heap of 128 MB (package.json nodeFlags).
 */
const METRICS_CACHE_ENTRIES = 100;

/** Wires config → stores → services → express app. The process (src/service.ts) and the tests both start here. */
export function createRuntime(config: Config, logger: Logger, options: { rateLimitKeyPrefix?: string; clock?: () => Date } = {}): Runtime {
  const clock = options.clock ?? (() => new Date());
  // With DATABASE_READ_URLS, SELECTs outside transactions read from the replicas (see db/connection.ts).
  const sequelize = createSequelize({
    url: config.DATABASE_URL,
    readUrls: config.DATABASE_READ_URLS,
    sqlitePath: config.SQLITE_PATH,
  });
  initModels(sequelize);
  const redis = config.REDIS_URL
    ? createRedisClient(config.REDIS_URL, (err) => logger.warn({ err: err.message }, 'redis unavailable; rate limits fall back to memory'))
    : undefined;
  // Prometheus' figures when METRICS_PORT is set (src/service.ts serves them); the parts below report to it.
  const metrics: ServiceMetrics | undefined = config.METRICS_PORT
    ? new ServiceMetrics({
        dueWebhookDeliveries: () => webhooks.status().due,
        databasePools: () => databasePools(sequelize.connectionManager),
        metricComputations: (): ComputationSlots['load'] => computationSlots.load,
      })
    : undefined;
  const rejectedOn = (surface: string) => (metrics ? (tier: string) => metrics.limiterRejected(surface, tier) : undefined);
  const limiter = new RateLimiter(
    rateLimitTiers(config.RATE_LIMIT_PER_HOUR, config.RATE_LIMIT_PER_MINUTE),
    redis,
    options.rateLimitKeyPrefix ?? 'rl',
    rejectedOn('api'),
  );
  const authenticator = new Authenticator({
    cacheTtlMs: 5_000,
    lastUsedIntervalMs: 60_000,
    onBackgroundError: (err) => logger.warn({ err }, 'could not record token use'),
    onFirstUse: () => accessChanges.start(),
  });
  // Other instances' changes arrive by Redis pub/sub when it is set, else by polling (src/persistence/query/dataVersions.ts).
  const dataVersions = shareDataVersions(sequelize, {
    database: { url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH },
    redis,
    pollMs: config.DATA_VERSIONS_POLL_MS,
    onError: (err) => logger.warn({ err }, 'could not learn data versions; lists read them from the database meanwhile'),
  });
  const listing = new ListingService(dataVersions, new CountCache(config.COUNT_CACHE_TTL_MS));
  const changes = ChangeRunner.for(sequelize);
  const signIn = createSignIn(config, redis, options.rateLimitKeyPrefix ?? 'rl');
  const onAccessChanged = async (userIds: readonly string[]) => {
    authenticator.forgetUsers(userIds);
    // The store is every instance's: ended here, a session is ended everywhere. Should this fail, each request of
    // the session still checks the user's state.
    await signIn.authenticator.endIfBarred(userIds).catch((err) => logger.warn({ err }, 'could not end the sessions of deactivated or suspended users'));
  };
  // This instance applies an access change at once; the others within a second, when their feed reads it.
  changes.onCommitted(({ accessChangedUsers }) => onAccessChanged(accessChangedUsers));
  const accessChanges = new AccessChangeFeed({ forgetUsers: onAccessChanged, forgetAll: () => authenticator.forgetAll() }, {
    intervalMs: 1_000,
    onError: (err) => logger.warn({ err }, 'could not read access changes; cached tokens expire within 5 s'),
  });
  // The key is read when a secret is first sealed or opened: a process that never does needs none.
  const secrets = new SecretBox(() => secretsKeyFor(config));
  const writers: Writers = {
    changes,
    members: new MemberWriter(changes),
    teams: new TeamWriter(changes),
    gitApps: new GitAppWriter(changes, secrets),
    apps: new AppWriter(changes, secrets),
    gitActivity: new GitActivityWriter(changes),
    tasks: new TaskWriter(changes),
    operations: new OperationsWriter(changes),
    conversations: new ConversationWriter(changes),
    webhookEndpoints: new WebhookEndpointWriter(changes, secrets, checkEndpointUrl(config.WEBHOOK_ALLOW_PRIVATE)),
    telemetry: new TelemetryWriter(changes),
    dashboardViews: new DashboardViewWriter(changes, clock),
  };
  const webhooks = createDeliveryWorker(config, logger, changes, secrets, metrics);
  const retention = createPruner(config, logger, sequelize);
  const aiPulls = createVendorPullSchedule(config, logger, changes, secrets);

  const lifecycle = { draining: false };
  const readiness = async () => {
    const checks: Record<string, 'ok' | 'down'> = {};
    if (lifecycle.draining) checks.process = 'down';
    // authenticate() is a SELECT: without useMaster it would ask a replica when there are any. Every replica
    // must answer too (each serves a share of the reads; Sequelize does not fail over to another one).
    const [database, replicas] = await Promise.all([
      sequelize.authenticate({ useMaster: true }).then(() => 'ok' as const, () => 'down' as const),
      config.DATABASE_READ_URLS.length ? pingReplicas(config.DATABASE_READ_URLS) : undefined,
    ]);
    checks.database = database;
    if (replicas) checks.database_replicas = replicas.every(Boolean) ? 'ok' : 'down';
    if (redis) checks.redis = await redis.ping().then(() => 'ok' as const, () => 'down' as const);
    return checks;
  };

  const scim = {
    authenticator: new ScimAuthenticator({
      cacheTtlMs: 5_000,
      lastUsedIntervalMs: 60_000,
      onBackgroundError: (err) => logger.warn({ err }, 'could not record SCIM token use'),
    }),
    limiter: new RateLimiter(
      rateLimitTiers(config.SCIM_RATE_LIMIT_PER_HOUR, config.SCIM_RATE_LIMIT_PER_MINUTE),
      redis,
      `${options.rateLimitKeyPrefix ?? 'rl'}:scim`,
      rejectedOn('scim'),
    ),
    members: writers.members,
    teams: writers.teams,
    directory: new Directory(),
    base: `${publicBase(config)}/scim/v2`,
    bodyLimitBytes: config.SCIM_BODY_LIMIT_KB * 1024,
    logger,
  };

  const ingest = {
    gitApps: writers.gitApps,
    activity: writers.gitActivity,
    tasks: writers.tasks,
    operations: writers.operations,
    conversations: writers.conversations,
    limiter: new RateLimiter(
      rateLimitTiers(config.INGEST_RATE_LIMIT_PER_HOUR, config.INGEST_RATE_LIMIT_PER_MINUTE),
      redis,
      `${options.rateLimitKeyPrefix ?? 'rl'}:ingest`,
      rejectedOn('ingest'),
    ),
    bodyLimitBytes: config.INGEST_BODY_LIMIT_KB * 1024,
    // One budget for the git apps' and the apps' deliveries: the bodies this process holds at once.
    budget: ingestBodyBudget(config.INGEST_BODY_LIMIT_KB * 1024),
    logger,
    onDelivery: metrics && ((provider: string, result: string) => metrics.ingestDelivered(provider, result)),
  };

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
      `${options.rateLimitKeyPrefix ?? 'rl'}:otlp`,
      rejectedOn('otlp'),
    ),
    bodyLimitBytes: config.OTLP_BODY_LIMIT_KB * 1024,
    logger,
    onReceived: metrics && ((signal: string, accepted: number, rejected: number) => metrics.otlpReceived(signal, accepted, rejected)),
  };

  const computationSlots = new ComputationSlots(config.METRICS_MAX_COMPUTATIONS, config.METRICS_MAX_WAITING, metrics && (() => metrics.metricComputationRefused()));
  const services = {
    listing,
    metrics: new MetricsService(
      dataVersions,
      new ResultCache(config.COUNT_CACHE_TTL_MS, METRICS_CACHE_ENTRIES),
      computationSlots,
      { queryTimeoutMs: config.METRICS_QUERY_TIMEOUT_MS, now: clock },
    ),
    settings: { webhookEndpoints: writers.webhookEndpoints, gitApps: writers.gitApps, apps: writers.apps, dashboardViews: writers.dashboardViews, publicBase: publicBase(config) },
  };
  const publicOrigin = new URL(publicBase(config)).origin;
  const app = createApp({
    surfaces: [
      { path: '/scim/v2', router: scimRouter(scim) },
      // The apps' providers first; the git providers' deliveries pass through to the git ingest.
      { path: '/ingest', router: appIngestRouter({ ...ingest, apps: writers.apps }), smallAnswers: true },
      { path: '/ingest', router: ingestRouter(ingest), smallAnswers: true },
      { path: '/otlp', router: otlpRouter(otlp), smallAnswers: true },
      {
        path: '/auth',
        router: authRoutes({ sessions: signIn.sessions, oidc: signIn.oidc, limiter, publicOrigin, secureCookies: publicOrigin.startsWith('https:'), logger }),
      },
      { path: '/settings', router: settingsPageRoutes() },
      { path: '/dashboards', router: dashboardsPageRoutes() },
    ],
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
    readiness,
    readinessDetail: () => ({ webhooks: webhooks.status() }),
    lifecycle,
    dataGeneration: () => dataVersions.generation,
    observeResponse: metrics && ((r) => metrics.response(r.surface, r.method, r.route, r.status, r.seconds, r.failure)),
  });

  return {
    app,
    createServer: () =>
      createHttpServer(
        app,
        { keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS },
        refuserByPath([['/scim/v2', scimHeadRefuser(scim.limiter)], ['/ingest', ingestHeadRefuser(ingest.limiter)], ['/otlp', otlpHeadRefuser(otlp.limiter)]], restHeadRefuser(limiter)),
      ),
    lifecycle,
    metrics,
    sequelize,
    redis,
    writers,
    services,
    webhooks,
    signIn,
    retention,
    aiPulls,
    clock,
    async close() {
      await accessChanges.stop();
      await dataVersions.stop();
      await retention.stop();
      await aiPulls.stop();
      await webhooks.stop();
      // QUIT waits for a connection that may never come back (Redis down): only a ready client says goodbye.
      if (redis?.isReady) await redis.quit().catch(() => redis.destroy());
      else if (redis?.isOpen) redis.destroy();
      await sequelize.close();
    },
  };
}

export interface SignIn {
  sessions: Sessions;
  authenticator: SessionAuthenticator;
  /** Undefined without OIDC_ISSUER: one-time links only. */
  oidc?: OidcSignIn;
}

/** Sessions in Redis when it is configured (every instance sees one at once), else in the database. */
function createSignIn(config: Config, redis: RedisClient | undefined, keyPrefix: string): SignIn {
  const store = redis ? new RedisAuthStore(redis, keyPrefix) : new DatabaseAuthStore();
  const sessions = new Sessions(store, SESSION_DEFAULTS);
  const oidc =
    config.OIDC_ISSUER && config.OIDC_CLIENT_ID && config.OIDC_CLIENT_SECRET
      ? new OidcSignIn({
          issuer: config.OIDC_ISSUER,
          clientId: config.OIDC_CLIENT_ID,
          clientSecret: config.OIDC_CLIENT_SECRET,
          redirectUri: `${publicBase(config)}/auth/callback`,
          scopes: config.OIDC_SCOPES,
        }, outboundPolicy(config))
      : undefined;
  return { sessions, authenticator: new SessionAuthenticator(sessions), oidc };
}

/** The outgoing webhook worker of a process (an API instance or `npm run worker`), woken by this process's own changes. */
export function createDeliveryWorker(config: Config, logger: Logger, changes: ChangeRunner, secrets: SecretBox, metrics?: ServiceMetrics): DeliveryWorker {
  const queue = new DeliveryQueue(changes, secrets, config.WEBHOOK_RETRY_DELAYS);
  const worker = new DeliveryWorker(queue, logger, {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    outbound: outboundPolicy(config),
    onAttempt: metrics && ((result) => metrics.webhookAttempted(result)),
  });
  changes.onCommitted(({ deliveries }) => {
    if (deliveries) worker.wake();
  });
  return worker;
}

/**
 * The retention pruner of a process (an API instance or `npm run worker`): every growing table, once an hour, the
 * first a minute after start, then the repositories whose grace after a deletion has passed. Several processes may
 * prune at once: they take disjoint rows, and a repository is erased once.
 */
export function createPruner(config: Config, logger: Logger, sequelize: Sequelize): Pruner {
  const gitActivity = new GitActivityWriter(ChangeRunner.for(sequelize));
  return new Pruner(sequelize, retentionPolicies(config), {
    onError: (err) => logger.warn({ err }, 'could not delete rows past their retention; the next hour tries again'),
    erasures: { repositories: (now) => gitActivity.eraseDeletedRepositories(now, config.REPOSITORY_DELETE_GRACE_DAYS) },
  });
}

/**
 * The daily pull of the AI vendors' apps of a process (an API instance or `npm run worker`): a tick an hour, the first
 * two minutes after start. Several processes may tick at once: each app's lease lets one of them pull it.
 */
export function createVendorPullSchedule(config: Config, logger: Logger, changes: ChangeRunner, secrets: SecretBox): VendorPullSchedule {
  return new VendorPullSchedule(new VendorPulls(changes, secrets, defaultHttp(outboundPolicy(config))), {
    onPulled: (outcome) => {
      const said = { app: outcome.app_id, stored: outcome.stored.length, without_report: outcome.without_report.length, refused: outcome.refused.length };
      if (outcome.credential_refused) logger.warn({ ...said, reason: outcome.credential_refused }, 'an AI vendor refused the app\'s credential; it waits for a new one');
      else if (outcome.destination_refused) logger.warn({ ...said, reason: outcome.destination_refused }, 'an AI vendor\'s app has a base URL that may not be called; nothing was pulled');
      else if (outcome.refused.length) logger.warn({ ...said, first: outcome.refused[0] }, 'an AI vendor\'s pull refused days; the other days are stored');
      else logger.info(said, 'AI vendor usage pulled');
    },
    onError: (err, appId) =>
      appId
        ? logger.warn({ err, app: appId }, 'could not pull an AI vendor\'s app; the next tick tries again')
        : logger.warn({ err }, 'could not read the AI vendors\' apps due for a pull; the next tick tries again'),
  });
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
