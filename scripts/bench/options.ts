import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_WINDOW_DAYS } from '../../src/services/metrics/reading/window';

export const USAGE = `Usage: DATABASE_URL=mysql://… npm run bench -- [options]

Measures every list path of the API that the demo user ada can reach (page 1 and a deep page, for each sort
field) against a floor server (bare node:http + mysql2, best known plans), the same answers served through the
API's fixed stack (express + tRPC + trpc-to-openapi + zod: the stack floor), and the API; the metrics (API
alone; each year also with its cache off, DORA's also under non-default settings of what counts); and OTLP
ingest (/otlp/v1/metrics and /otlp/v1/logs, Claude Code's telemetry as the OpenTelemetry SDK encodes it), Jira
and PagerDuty webhook deliveries (/ingest/jira/{app_id}, /ingest/pagerduty/{app_id}, to apps made for the run
and removed after it) against an ingest floor that inserts the same rows with mysql2; a member's burst of
figures: concurrent ai-impact requests of the organization, each over its own window, by a collaborator and by
an admin, each burst on an API of its own; and a history import per provider (npm run import --
github|gitlab|bitbucket|pagerduty|opsgenie|slack): a year of a busy organization from a local fake of its API,
against a floor that reads the same pages and writes the same rows with mysql2; and a change of the bot
accounts recomputed over the history by npm run metrics-settings -- set --bots … --wait, then put back.
Prints Markdown tables. Seeds the large demo data into DATABASE_URL first when it has no users.

  --connections N       concurrent connections per request (default 32)
  --seconds N           load per request and server (default 10)
  --quick               2 s per request, and the history rows' smaller year: a smoke run
  --filter TEXT         only requests whose path contains TEXT (repeatable: any of them), e.g. ai-usage,
                        otlp (both OTLP ingest rows), /otlp/v1/logs, jira (the tracker-ingest row),
                        pagerduty (the incident-ingest row and PagerDuty's history row), /ingest/ (both
                        app-ingest rows), burst (the burst rows), history (the six history import rows),
                        "import -- github" (one of them), recomputation (the recomputation row)
  --path PATH           exactly this request, e.g. "/v1/users?sort=name&page=1201" (repeatable)
  --floor-count MODE    exact (default): the floor runs SELECT COUNT(*) on every request;
                        cached: it counts each scope once (the cost of totals with a perfect cache)
  --migrate             let the API apply pending migrations to DATABASE_URL when it starts
  --any-size            accept a database seeded at another scale (npm run seed -- --scale demo): a smoke
                        run of the benchmark itself, whose figures say nothing about the large data
  --api-main FILE       run this built API instead of this checkout's dist/src/main.js, e.g. another
                        commit's build in a worktree, to compare two versions on the same data in one sitting;
                        FILE is <checkout>/dist/src/main.js, and that checkout's token CLI (which migrates the
                        database to its own schema) makes the benchmark's tokens
  --workers N           the cluster rows: /v1/users and /v1/commits on the API with WEB_CONCURRENCY=N and on the
                        floor with N processes, each beside its one-process run (default 2; 1 skips them)
  --burst N             requests in each burst row, each over its own window ending on the data's last day
                        (default 32, at most ${MAX_WINDOW_DAYS}: a window is at most ${MAX_WINDOW_DAYS} days)
  --gc-share            run the API with METRICS_PORT and report the share of its CPU spent collecting garbage
                        (its Prometheus figures; their observation of every response costs a few percent)
  --save-baseline FILE  write every row's figures to FILE (JSON), e.g. from main
  --baseline FILE       compare with a saved baseline: each list and metric row is measured twice, the stack
                        floor and the API alternated; a row more than 20 % slower in both (API ÷ stack floor
                        where the stack floor serves it, API ÷ ingest floor for an ingest row, else API req/s)
                        is listed and the run exits with code 3. Needs runs of 10 s or more (the default): at
                        2 s a row varies by about 25 % from run to run

Environment: DATABASE_URL (required, a MariaDB/MySQL database), REDIS_URL (default redis://127.0.0.1:6379).`;

/** Below this a row's rate varies by more than a regression from one run to the next. */
const BASELINE_SECONDS = 10;

export interface BenchOptions {
  connections: number;
  seconds: number;
  /** A smoke run: short loads, and the history rows' smaller year. */
  quick: boolean;
  filters: string[];
  paths: string[];
  floorCount: 'exact' | 'cached';
  migrate: boolean;
  /** Use whatever data the database holds (a smoke run), not only the large demo data. */
  anySize: boolean;
  /** The API entry point to run; undefined: this checkout's build. */
  apiMain?: string;
  saveBaseline?: string;
  baseline?: string;
  /** Processes of the cluster rows; 1: no cluster rows. */
  workers: number;
  /** Run the API with METRICS_PORT and report the share of its CPU spent collecting garbage (gcShare.ts). */
  gcShare: boolean;
  /** Concurrent requests of each burst row, each over its own window. */
  burst: number;
}

export class UsageError extends Error {}

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new UsageError(`${flag} must be a positive integer (got "${value}")`);
  return n;
}

/** Returns undefined for --help. */
export function parseOptions(argv: string[]): BenchOptions | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        connections: { type: 'string', default: '32' },
        seconds: { type: 'string' },
        quick: { type: 'boolean', default: false },
        filter: { type: 'string', multiple: true, default: [] },
        path: { type: 'string', multiple: true, default: [] },
        'floor-count': { type: 'string', default: 'exact' },
        migrate: { type: 'boolean', default: false },
        'any-size': { type: 'boolean', default: false },
        'api-main': { type: 'string' },
        'save-baseline': { type: 'string' },
        baseline: { type: 'string' },
        workers: { type: 'string', default: '2' },
        'gc-share': { type: 'boolean', default: false },
        burst: { type: 'string', default: '32' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return undefined;
  if (values.quick && values.seconds !== undefined) throw new UsageError('give either --quick or --seconds, not both');
  const floorCount = values['floor-count'];
  if (floorCount !== 'exact' && floorCount !== 'cached') throw new UsageError(`--floor-count must be exact or cached (got "${floorCount}")`);
  const paths = values.path;
  for (const p of paths) if (!p.startsWith('/v1/')) throw new UsageError(`--path must start with /v1/ (got "${p}")`);
  // Resolved now: the benchmark changes its directory to the checkout before it starts the servers.
  const apiMain = values['api-main'] === undefined ? undefined : path.resolve(values['api-main']);
  if (apiMain && !existsSync(apiMain)) throw new UsageError(`--api-main: no such file ${apiMain} (build that checkout first)`);
  const baseline = values.baseline === undefined ? undefined : path.resolve(values.baseline);
  if (baseline && !existsSync(baseline)) throw new UsageError(`--baseline: no such file ${baseline} (save one with --save-baseline)`);
  const saveBaseline = values['save-baseline'] === undefined ? undefined : path.resolve(values['save-baseline']);
  const seconds = values.quick ? 2 : positiveInt('--seconds', values.seconds ?? '10');
  const burst = positiveInt('--burst', values.burst);
  if (burst > MAX_WINDOW_DAYS) throw new UsageError(`--burst is at most ${MAX_WINDOW_DAYS} (got ${burst}): each request asks for its own window of at most ${MAX_WINDOW_DAYS} days`);
  if (baseline && seconds < BASELINE_SECONDS) throw new UsageError(`--baseline compares runs of ${BASELINE_SECONDS} s or more (got ${seconds} s): shorter ones vary more than the 20 % it flags`);
  return {
    connections: positiveInt('--connections', values.connections),
    seconds,
    quick: values.quick,
    filters: values.filter,
    paths,
    floorCount,
    migrate: values.migrate,
    anySize: values['any-size'],
    apiMain,
    saveBaseline,
    baseline,
    workers: positiveInt('--workers', values.workers),
    gcShare: values['gc-share'],
    burst,
  };
}
