import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the metrics read at scrape time, from the process's own parts. */
export interface MetricSources {
  /** Webhook deliveries due and not yet sent, as the delivery worker last read the shared queue; undefined before. */
  dueWebhookDeliveries(): number | undefined;
  /** The database connection pools, by pool (`primary`, `replicas`). */
  databasePools(): { pool: string; size: number; available: number; using: number; waiting: number; max: number }[];
  /** The Metrics API's figures being computed now and waiting for a turn (services/metrics/computationSlots.ts); none in the worker. */
  metricComputations?(): { running: number; waiting: number };
}

/**
 * The figures an on-call engineer watches (docs/operating.md), in Prometheus' text format on METRICS_PORT
 * (src/observability/metricsServer.ts). Labels are route templates, surfaces, tiers, providers and results: never
 * a token, an e-mail, an id or a raw path. One registry per runtime (tests start several in one process); with
 * WEB_CONCURRENCY the primary gathers every worker's (prom-client's AggregatorRegistry).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'surface' | 'method' | 'route' | 'status'>;
  private readonly requestFailures: Counter<'surface' | 'reason'>;
  private readonly limiterRejections: Counter<'surface' | 'tier'>;
  private readonly webhookAttempts: Counter<'result'>;
  private readonly gitIngestDeliveries: Counter<'provider' | 'result'>;
  private readonly otlpItems: Counter<'signal' | 'result'>;
  private readonly metricComputationsRefused: Counter;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request arriving to its response being sent, by surface, method, route template and status',
      labelNames: ['surface', 'method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.requestFailures = new Counter({
      name: 'http_request_failures_total',
      help: 'Requests that failed on our side, by surface and reason: server_error (500, a fault of ours), database_unavailable or redis_unavailable (503 with Retry-After: a store out of reach, retried by clients)',
      labelNames: ['surface', 'reason'],
      registers,
    });
    this.limiterRejections = new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests refused with 429, by surface and by the tier (hour or minute) that refused them',
      labelNames: ['surface', 'tier'],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Outgoing webhook attempts by result: delivered, retry (failed, tried again later), gave_up (retries spent), endpoint_disabled',
      labelNames: ['result'],
      registers,
    });
    new Gauge({
      name: 'webhook_deliveries_due',
      help: 'Outgoing webhook deliveries due now and not yet sent (the shared queue: the same figure on every instance)',
      registers,
      // Every worker reads the one shared queue: summing their readings would count it once per worker.
      aggregator: 'max',
      collect() {
        const due = sources.dueWebhookDeliveries();
        if (due !== undefined) this.set(due);
      },
    });
    this.gitIngestDeliveries = new Counter({
      name: 'git_ingest_deliveries_total',
      help: 'Webhook deliveries to /ingest by provider (github, gitlab; the apps: jira, …) and result: applied, duplicate, ignored, pong, or the error code refusing them',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.otlpItems = new Counter({
      name: 'otlp_items_total',
      help: 'OTLP data points (metrics), log records (logs) and spans (traces) received, by signal and result: accepted, or rejected in partialSuccess',
      labelNames: ['signal', 'result'],
      registers,
    });
    new Gauge({
      name: 'metric_computations',
      help: 'Figures of the Metrics API being computed (running) and waiting for a turn (waiting); past METRICS_MAX_COMPUTATIONS and METRICS_MAX_WAITING requests are refused with 503',
      labelNames: ['state'],
      registers,
      collect() {
        const load = sources.metricComputations?.();
        if (!load) return;
        this.set({ state: 'running' }, load.running);
        this.set({ state: 'waiting' }, load.waiting);
      },
    });
    this.metricComputationsRefused = new Counter({
      name: 'metric_computations_refused_total',
      help: 'Requests for figures refused with 503 and Retry-After because every turn and every place in line was taken',
      registers,
    });
    new Gauge({
      name: 'database_pool_connections',
      help: 'Database connections by pool (primary, replicas) and state: using, available, waiting (requests queued for one), max',
      labelNames: ['pool', 'state'],
      registers,
      collect() {
        for (const pool of sources.databasePools()) {
          for (const state of ['using', 'available', 'waiting', 'max'] as const) this.set({ pool: pool.pool, state }, pool[state]);
        }
      },
    });
  }

  response(surface: string, method: string, route: string, status: number, seconds: number, failure?: string): void {
    this.requestDuration.observe({ surface, method, route, status: String(status) }, seconds);
    if (failure) this.requestFailures.inc({ surface, reason: failure });
  }

  limiterRejected(surface: string, tier: string): void {
    this.limiterRejections.inc({ surface, tier });
  }

  webhookAttempted(result: string): void {
    this.webhookAttempts.inc({ result });
  }

  ingestDelivered(provider: string, result: string): void {
    this.gitIngestDeliveries.inc({ provider, result });
  }

  metricComputationRefused(): void {
    this.metricComputationsRefused.inc();
  }

  otlpReceived(signal: string, accepted: number, rejected: number): void {
    if (accepted) this.otlpItems.inc({ signal, result: 'accepted' }, accepted);
    if (rejected) this.otlpItems.inc({ signal, result: 'rejected' }, rejected);
  }
}

type PoolFigures = ReturnType<MetricSources['databasePools']>[number];

/**
 * The connection pools of a Sequelize instance (sequelize-pool: one pool, or with read replicas a write and a read
 * pool). Read by shape, as the library does not type them; SQLite keeps one connection and has no pool.
 */
export function databasePools(manager: unknown): PoolFigures[] {
  const pool = manager !== null && typeof manager === 'object' && 'pool' in manager ? manager.pool : undefined;
  const figures = (name: string, value: unknown): PoolFigures[] => {
    if (value === null || typeof value !== 'object') return [];
    const read = (key: string) => (key in value ? Number(Reflect.get(value, key)) : NaN);
    const found = { pool: name, size: read('size'), available: read('available'), using: read('using'), waiting: read('waiting'), max: read('maxSize') };
    return [found.size, found.available, found.using, found.waiting, found.max].every(Number.isFinite) ? [found] : [];
  };
  if (pool !== null && typeof pool === 'object' && 'write' in pool && 'read' in pool) return [...figures('primary', pool.write), ...figures('replicas', pool.read)];
  return figures('primary', pool);
}
