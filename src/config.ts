import os from 'node:os';
import path from 'node:path';
import { projectRoot } from './projectRoot';
import { z } from 'zod';
import { parseSecretsKey } from './secrets/secretBox';

// Outgoing webhooks' retry schedule (docs/webhooks.md), as WEBHOOK_RETRY_DELAYS gives it.
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const MAX_RETRIES = 20;
/** 5s, 5m, 30m, 2h, 5h, 10h, 10h: about 27.6 hours from the first attempt to the last. */
export const DEFAULT_RETRY_DELAYS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** `5s,5m,30m` → milliseconds; undefined for anything else. An empty list means no retries. */
export function parseDelays(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length > MAX_RETRIES) return undefined;
  const delays: number[] = [];
  for (const part of parts) {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(part);
    if (!match) return undefined;
    delays.push(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  }
  return delays;
}

const positiveInt = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a positive integer` })
    .int(`${name} must be a positive integer`)
    .positive(`${name} must be a positive integer`)
    .default(fallback);

const nonNegativeInt = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a whole number, 0 or more` })
    .int(`${name} must be a whole number, 0 or more`)
    .min(0, `${name} must be a whole number, 0 or more`)
    .default(fallback);

const ConfigSchema = z.object({
  PORT: z.coerce.number({ error: 'PORT must be a port number' }).int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^mysql:\/\//, 'DATABASE_URL must be a mysql:// URL (unset it to use the embedded SQLite database)')
    .optional(),
  DATABASE_READ_URLS: z
    .string()
    .transform((value) => value.split(',').map((u) => u.trim()).filter(Boolean))
    .pipe(
      z.array(z.string()).superRefine((urls, ctx) => {
        urls.forEach((url, i) => {
          // The value is not echoed: it may hold a password.
          if (!isMysqlUrl(url)) {
            ctx.addIssue({
              code: 'custom',
              message: `DATABASE_READ_URLS must be comma-separated mysql:// URLs (mysql://user:pass@replica:3306/db); entry ${i + 1} of ${urls.length} is not one`,
            });
          }
        });
      }),
    )
    .default([]),
  SQLITE_PATH: z.string().min(1).default(defaultSqlitePath()),
  // Prometheus metrics (src/observability/): a port of their own, off when unset.
  METRICS_PORT: z.coerce.number({ error: 'METRICS_PORT must be a port number' }).int('METRICS_PORT must be a port number').min(1, 'METRICS_PORT must be a port number (1 to 65535)').max(65535, 'METRICS_PORT must be a port number (1 to 65535)').optional(),
  // Traces of the service itself (src/observability/tracing.ts, started by src/main.ts): the OTLP/HTTP collector.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .refine((u) => isHttpUrl(u), 'OTEL_EXPORTER_OTLP_ENDPOINT must be the http(s) URL of an OTLP/HTTP collector, such as http://otel-collector:4318')
    .optional(),
  // A database starting beside the service (compose, a restarted host) is waited for this long, then the start fails.
  DATABASE_START_WAIT_S: nonNegativeInt('DATABASE_START_WAIT_S', 30),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'REDIS_URL must be a redis:// or rediss:// URL').optional(),
  RATE_LIMIT_PER_HOUR: positiveInt('RATE_LIMIT_PER_HOUR', 1000),
  RATE_LIMIT_PER_MINUTE: positiveInt('RATE_LIMIT_PER_MINUTE', 100),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().optional(),
  SHUTDOWN_TIMEOUT_MS: positiveInt('SHUTDOWN_TIMEOUT_MS', 10_000),
  SHUTDOWN_DRAIN_MS: z.coerce
    .number({ error: 'SHUTDOWN_DRAIN_MS must be a number of milliseconds' })
    .int()
    .min(0)
    .default(1_000),
  COUNT_CACHE_TTL_MS: z.coerce
    .number({ error: 'COUNT_CACHE_TTL_MS must be a number of milliseconds (0 disables the cache)' })
    .int()
    .min(0)
    .default(10_000),
  /**
   * How stale an instance's data versions can be after a change it was not told of: one made by a process without
   * Redis, or published while its subscription was down. One small read per period, whatever the traffic.
   */
  DATA_VERSIONS_POLL_MS: positiveInt('DATA_VERSIONS_POLL_MS', 1_000),
  KEEP_ALIVE_TIMEOUT_MS: positiveInt('KEEP_ALIVE_TIMEOUT_MS', 65_000),
  /** The longest a metric's query may run on MySQL/MariaDB before the request answers 503 (no connection held for minutes). */
  METRICS_QUERY_TIMEOUT_MS: positiveInt('METRICS_QUERY_TIMEOUT_MS', 15_000),
  /** Figures computed at once by one process, and how many more may wait for a turn; past both, 503 with Retry-After. */
  METRICS_MAX_COMPUTATIONS: positiveInt('METRICS_MAX_COMPUTATIONS', 4),
  METRICS_MAX_WAITING: nonNegativeInt('METRICS_MAX_WAITING', 16),
  /** Where clients reach this service; the base of SCIM `meta.location` (default http://localhost:$PORT). */
  PUBLIC_URL: z
    .string()
    .refine((u) => isHttpUrl(u), 'PUBLIC_URL must be an http(s) URL such as https://api.example.com (no query or fragment)')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** `info.contact.url` of the OpenAPI document: where API consumers report problems (default: this service's /docs). */
  API_CONTACT_URL: z
    .string()
    .refine((u) => isHttpUrl(u), 'API_CONTACT_URL must be an http(s) URL such as https://support.example.com/api (no query or fragment)')
    .optional(),
  // An identity provider's first sync sends a request per user and group, thousands in a few minutes.
  SCIM_RATE_LIMIT_PER_MINUTE: positiveInt('SCIM_RATE_LIMIT_PER_MINUTE', 1_200),
  SCIM_RATE_LIMIT_PER_HOUR: positiveInt('SCIM_RATE_LIMIT_PER_HOUR', 36_000),
  SCIM_BODY_LIMIT_KB: positiveInt('SCIM_BODY_LIMIT_KB', 1_024),
  // GitHub sends up to 25 MB; a push of thousands of commits comes in bursts from a busy organization.
  INGEST_RATE_LIMIT_PER_MINUTE: positiveInt('INGEST_RATE_LIMIT_PER_MINUTE', 600),
  INGEST_RATE_LIMIT_PER_HOUR: positiveInt('INGEST_RATE_LIMIT_PER_HOUR', 20_000),
  INGEST_BODY_LIMIT_KB: positiveInt('INGEST_BODY_LIMIT_KB', 25_600),
  OTLP_RATE_LIMIT_PER_MINUTE: positiveInt('OTLP_RATE_LIMIT_PER_MINUTE', 6_000),
  OTLP_BODY_LIMIT_KB: positiveInt('OTLP_BODY_LIMIT_KB', 20_480),
  // Retention (docs/operating.md, src/services/retention/policies.ts): days each growing table keeps its rows.
  OTLP_RAW_RETENTION_DAYS: positiveInt('OTLP_RAW_RETENTION_DAYS', 7),
  TELEMETRY_RETENTION_DAYS: positiveInt('TELEMETRY_RETENTION_DAYS', 400),
  OUTBOX_RETENTION_DAYS: positiveInt('OUTBOX_RETENTION_DAYS', 30),
  WEBHOOK_DELIVERY_RETENTION_DAYS: positiveInt('WEBHOOK_DELIVERY_RETENTION_DAYS', 30),
  WEBHOOK_ATTEMPT_RETENTION_DAYS: positiveInt('WEBHOOK_ATTEMPT_RETENTION_DAYS', 30),
  INGEST_DELIVERY_RETENTION_DAYS: positiveInt('INGEST_DELIVERY_RETENTION_DAYS', 30),
  AUDIT_LOG_RETENTION_DAYS: positiveInt('AUDIT_LOG_RETENTION_DAYS', 365),
  /** Days a repository its provider reported deleted stays hidden, and restorable, before it is erased (docs/ingest.md). */
  REPOSITORY_DELETE_GRACE_DAYS: positiveInt('REPOSITORY_DELETE_GRACE_DAYS', 30),
  // Never echoed in a message: it is a secret.
  SECRETS_KEY: z
    .string()
    .transform((value, ctx) => {
      const key = parseSecretsKey(value);
      if (!key) ctx.addIssue({ code: 'custom', message: 'SECRETS_KEY must be 32 bytes as 64 hex characters or base64 (make one with: openssl rand -hex 32)' });
      return key ?? Buffer.alloc(0);
    })
    .optional(),
  REQUEST_TIMEOUT_MS: positiveInt('REQUEST_TIMEOUT_MS', 120_000),
  // Outgoing webhooks (docs/webhooks.md): a receiver has this long to answer 2xx, then the delivery is retried.
  WEBHOOK_TIMEOUT_MS: positiveInt('WEBHOOK_TIMEOUT_MS', 15_000),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .transform((value, ctx) => {
      const delays = parseDelays(value);
      if (!delays) ctx.addIssue({ code: 'custom', message: `WEBHOOK_RETRY_DELAYS must be comma-separated durations such as 5s,5m,30m,2h (ms, s, m, h or d; at most ${MAX_RETRIES}): '${value}' is not` });
      return delays ?? [];
    })
    .default(DEFAULT_RETRY_DELAYS),
  // Tests (and a private deployment) only: every outgoing call may reach loopback and private addresses, plain http
  // to them included (docs/operating.md#outgoing-calls); read through privateAddressesAllowed (src/outbound).
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['0', '1', 'true', 'false'], { error: 'WEBHOOK_ALLOW_PRIVATE must be 1 or 0' })
    .transform((v) => v === '1' || v === 'true')
    .default(false),
  // The most of one answer an outgoing call reads, in MB: a JSON answer, and a report file read line by line.
  OUTBOUND_ANSWER_MAX_MB: positiveInt('OUTBOUND_ANSWER_MAX_MB', 16),
  OUTBOUND_REPORT_MAX_MB: positiveInt('OUTBOUND_REPORT_MAX_MB', 64),
  // The embedded default's first start fills the new database with the demo (docs/operating.md#demo-data); false
  // starts it empty, for a company's own organization. A database that is not the embedded default is never seeded.
  DEMO_DATA: z
    .enum(['0', '1', 'true', 'false'], { error: 'DEMO_DATA must be true or false' })
    .transform((v) => v === '1' || v === 'true')
    .default(true),
  // Worker processes on one port (node:cluster): a number, or `auto` for one per CPU.
  WEB_CONCURRENCY: z
    .string()
    .refine((v) => v === 'auto' || /^[1-9]\d{0,2}$/.test(v), 'WEB_CONCURRENCY must be a number of worker processes (1 to 999) or auto (one per CPU)')
    .transform((v) => (v === 'auto' ? os.availableParallelism() : Number(v)))
    .default(1),
  CORS_ORIGINS: z
    .string()
    .transform((value) => value.split(',').map((o) => o.trim()).filter(Boolean))
    .pipe(
      z.array(
        z.string().refine((o) => o === '*' || isOrigin(o), {
          error: (iss) => `CORS_ORIGINS must be '*' or comma-separated origins such as https://app.example.com (scheme, host, optional port; no path): '${String(iss.input)}' is not one`,
        }),
      ),
    )
    .default([]),
  // Sign-in to the settings (docs/settings.md): all three, or none (then only `npm run tokens -- login-link` signs in).
  OIDC_ISSUER: z
    .string()
    .refine((u) => isHttpUrl(u) && (u.startsWith('https://') || isLoopbackUrl(u)), 'OIDC_ISSUER must be the https:// issuer URL of your identity provider (e.g. https://example.okta.com or https://login.microsoftonline.com/<tenant id>/v2.0)')
    .optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  // Never echoed in a message: it is a secret.
  OIDC_CLIENT_SECRET: z.string().optional(),
  OIDC_SCOPES: z
    .string()
    .refine((s) => s.split(' ').includes('openid') && s.split(' ').includes('email'), 'OIDC_SCOPES must include openid and email (default: openid email profile)')
    .default('openid email profile'),
}).superRefine((config, ctx) => {
  if (config.WEB_CONCURRENCY > 1 && !config.DATABASE_URL) {
    ctx.addIssue({ code: 'custom', path: ['WEB_CONCURRENCY'], message: 'WEB_CONCURRENCY above 1 needs DATABASE_URL: the embedded SQLite database takes one writing process' });
  }
  if (config.WEB_CONCURRENCY > 1 && !config.REDIS_URL) {
    ctx.addIssue({ code: 'custom', path: ['WEB_CONCURRENCY'], message: 'WEB_CONCURRENCY above 1 needs REDIS_URL: without it each worker would count rate limits of its own' });
  }
  const oidc = [config.OIDC_ISSUER, config.OIDC_CLIENT_ID, config.OIDC_CLIENT_SECRET];
  if (oidc.some((v) => v !== undefined) && oidc.some((v) => v === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['OIDC_ISSUER'],
      message: 'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three to sign in with your identity provider, or none',
    });
  }
  if (config.OIDC_ISSUER?.startsWith('http:') && !config.WEBHOOK_ALLOW_PRIVATE) {
    ctx.addIssue({
      code: 'custom',
      path: ['OIDC_ISSUER'],
      message: 'OIDC_ISSUER is plain http: an identity provider is called over https:// (http:// only on this machine, with WEBHOOK_ALLOW_PRIVATE=1, as the tests run one)',
    });
  }
  if (config.METRICS_PORT !== undefined && config.METRICS_PORT === config.PORT) {
    ctx.addIssue({
      code: 'custom',
      path: ['METRICS_PORT'],
      message: `METRICS_PORT must differ from PORT (${config.PORT}): metrics are served on a port of their own, never the public one`,
    });
  }
  if (config.DATABASE_READ_URLS.length > 0 && !config.DATABASE_URL) {
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_READ_URLS'],
      message: 'DATABASE_READ_URLS needs DATABASE_URL: read replicas are replicas of a MySQL primary, not of the embedded SQLite database',
    });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

/** Why the process cannot start, said so an operator knows what to set: printed without a stack, exit code 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

const invalidConfiguration = (lines: string[]) => new StartupError(`Invalid configuration:\n${lines.map((l) => `  ${l}`).join('\n')}`);

/** Reads and validates the environment once; a bad value stops the process with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) throw invalidConfiguration(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return parsed.data;
}

/**
 * What a process that serves (the API, `npm run worker`) needs beyond a valid environment. The command-line tools
 * that only read or make tokens do not, so they are not refused for it.
 */
export function requireServingConfig(config: Config): void {
  if (config.DATABASE_URL && !config.SECRETS_KEY) {
    throw invalidConfiguration([
      'SECRETS_KEY: required with DATABASE_URL: every instance seals and opens webhook and git app secrets with the same key. ' +
        'Make one with: openssl rand -hex 32',
    ]);
  }
}

function isMysqlUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'mysql:' && url.hostname !== '';
  } catch {
    return false;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
  } catch {
    return false;
  }
}

/** Plain http is for an identity provider on this machine (a test's). */
function isLoopbackUrl(value: string): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(value).hostname);
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The embedded database lives in data/ at the project root, whether we run from src/ (tsx) or dist/src/. */
function defaultSqlitePath(): string {
  return path.join(projectRoot(), 'data', 'platform.sqlite');
}

/** Where clients reach the service: PUBLIC_URL, else this machine's port. */
export function publicBase(config: Pick<Config, 'PUBLIC_URL' | 'PORT'>): string {
  return config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
}
