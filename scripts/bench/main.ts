/**
 * npm run bench -- [--quick] [--filter TEXT] [--path PATH] [--connections N] [--seconds N] [--floor-count exact|cached]
 *                   [--migrate] [--any-size] [--api-main FILE] [--workers N] [--burst N] [--save-baseline FILE] [--baseline FILE]
 *
 * The whole benchmark in one command (docs/performance.md#benchmark): data, both servers, the load, one report, and
 * nothing left running afterwards, whatever happens. Speed is measured here, never asserted in tests.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Connection } from 'mysql2/promise';
import { parseOptions, USAGE, UsageError, BenchOptions } from './options';
import * as database from './database';
import { difference, INGEST_TIMEOUT_S, measure, measureBodies, Measurement, probe, Probe, settle } from './load';
import { cpuMs, databasePid, freePort, howExited, killAllNow, processTree, rssMb, run, sampleRss, Server, serviceNodeFlags, startServer, stopServer, waitHealthy } from './processes';
import { deepPage, ListRequest, listRequests, matchesFilters, metricRequests } from './requests';
import { BurstRow, burstTable, clusterTable, ClusterRow, Cores, footer, historyTable, IngestRow, ingestTable, listSummary, recomputationTable, Row, table } from './report';
import { readBaseline, regressions, REGRESSION, saveBaseline } from './baseline';
import { INGEST_SIGNALS, ingestPath, IngestPlan, ITEM_NAMES, prepareIngest, removeFiles, removeIngested, storedItems } from './otlp/ingest';
import type { IngestSignal } from './otlp/bodies';
import { responseType } from '../../src/otlp/messages';
import { parseSecretsKey } from '../../src/secrets/secretBox';
import { AppIngestSource, createBenchApp, prepareAppIngest, removeAppIngestFiles, removeBenchApp } from './apps/ingest';
import { jiraIngest } from './jira/source';
import { pagerdutyIngest } from './pagerduty/source';
import { COPILOT_ROW_PATH, measureCopilotPull } from './copilot/pull';
import { BURST_ROW_PATH, measureFiguresBursts } from './burst/figures';
import { gcShare, processTimes } from './gcShare';
import { HISTORY_PROVIDERS, historyRowPath } from './history/providers';
import { HistoryRow, measureHistoryRow } from './history/row';
import { applySettings, jsonLine, RowSettings } from './metricSettings';
import { measureRecomputation, RECOMPUTATION_ROW_PATH, RecomputationRow } from './recomputation';

const ROOT = path.resolve(__dirname, '../..');
const PER_PAGE = 50; // the API's default, which every request uses
const WARM_UP_SECONDS = 3;
/** OTLP exporters' default request timeout (OTEL_EXPORTER_OTLP_TIMEOUT). */
const OTLP_EXPORT_TIMEOUT_MS = 10_000;
const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
const BENCH_SECRETS_KEY = randomBytes(32).toString('hex');

/** Undone in reverse order on success, error and Ctrl-C alike. */
const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const undo of cleanups.reverse()) await undo().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
  })();
  return cleaning;
}

/**
 * The token CLI of the checkout whose API is measured: it migrates the database to its own schema first, so this
 * checkout's would bring its newer migrations under another build's API (`--api-main`), and measure that build on
 * a schema it never had.
 */
function tokens(url: string, opts: BenchOptions, args: string[]): Promise<string> {
  return checkoutCli('tokens', url, opts, args);
}

/** An npm script of the checkout whose API is measured (its CLIs migrate as the token CLI does). */
function checkoutCli(script: string, url: string, opts: BenchOptions, args: string[]): Promise<string> {
  const checkout = opts.apiMain ? path.resolve(path.dirname(opts.apiMain), '../..') : ROOT;
  return run('npm', ['run', '--silent', script, '--', ...args], { env: { DATABASE_URL: url }, capture: true, cwd: checkout });
}

async function createToken(url: string, opts: BenchOptions, args = ['create', '--user', database.CALLER_EMAIL, '--expires-in', '12h']): Promise<{ id: string; token: string }> {
  return jsonLine<{ id: string; token: string }>(await tokens(url, opts, [...args, '--name', 'npm run bench', '--json']), 'the token CLI');
}

interface Servers {
  api: ApiServer;
  floor: Server;
  stack: Server;
  service: Server;
}

type ApiServer = Server & { metricsUrl?: string };

/**
 * The API, as `npm start` runs it: with the heap flags of package.json's `config.nodeFlags`. With --gc-share also
 * with METRICS_PORT, as in service with Prometheus, so that its own figures say how much of its CPU went to
 * collecting garbage (gcShare.ts); off by default, since observing every response costs the lists a few percent.
 */
async function startApi(name: string, url: string, opts: BenchOptions, env: Record<string, string> = {}): Promise<ApiServer> {
  const metricsPort = opts.gcShare ? await freePort() : undefined;
  const api = startServer(name, process.execPath, [...serviceNodeFlags(), opts.apiMain ?? path.join(ROOT, 'dist/src/main.js')], await freePort(), {
    ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}),
    DATABASE_URL: url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    // Required with DATABASE_URL; the benchmark opens no sealed secret, so a key of its own run will do.
    SECRETS_KEY: process.env.SECRETS_KEY ?? BENCH_SECRETS_KEY,
    // The benchmark's user would otherwise be limited to 100 requests a minute, its OTLP token to 6000.
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_HOUR: '100000000',
    OTLP_RATE_LIMIT_PER_MINUTE: '100000000',
    // And its apps (Jira, PagerDuty) to 600 deliveries a minute.
    INGEST_RATE_LIMIT_PER_MINUTE: '100000000',
    INGEST_RATE_LIMIT_PER_HOUR: '100000000',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...env,
  });
  cleanups.push(() => stopServer(api));
  return { ...api, metricsUrl: metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : undefined };
}

async function startServers(url: string, userId: string, opts: BenchOptions): Promise<Servers> {
  const [floorPort, stackPort, servicePort] = [await freePort(), await freePort(), await freePort()];
  const api = await startApi('API', url, opts);
  const floorEnv = { DATABASE_URL: url, FLOOR_USER_ID: userId, FLOOR_COUNT: opts.floorCount };
  const floor = startServer('floor', process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/server.js')], floorPort, floorEnv);
  cleanups.push(() => stopServer(floor));
  const stack = startServer('stack floor', process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/stack.js')], stackPort, floorEnv);
  cleanups.push(() => stopServer(stack));
  const serviceEnv = { ...floorEnv, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
  const service = startServer('service floor', process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/service.js')], servicePort, serviceEnv);
  cleanups.push(() => stopServer(service));
  await Promise.all([waitHealthy(api), waitHealthy(floor), waitHealthy(stack), waitHealthy(service)]);
  return { api, floor, stack, service };
}

interface Planned {
  request: ListRequest;
  floorProbe: Probe;
}

/** Probes page 1 of each request on both servers, adds its deep page, and notes where their answers differ. */
async function plan(requests: ListRequest[], explicit: boolean, servers: Servers, headers: Record<string, string>) {
  const planned: Planned[] = [];
  const differences: string[] = [];
  const check = async (request: ListRequest): Promise<Probe[]> => {
    const [floorProbe, apiProbe] = await Promise.all([probe(servers.floor.url + request.path, headers), probe(servers.api.url + request.path, headers)]);
    const diff = difference(floorProbe, apiProbe);
    if (diff && floorProbe.status !== 404) differences.push(`\`${request.path}\`: ${diff}`);
    planned.push({ request, floorProbe });
    return [floorProbe, apiProbe];
  };
  for (const request of requests) {
    const [floorProbe, apiProbe] = await check(request);
    if (explicit) continue;
    const total = Number((apiProbe.status === 200 ? apiProbe : floorProbe).body?.meta?.total ?? 0);
    const deep = deepPage(request, total, PER_PAGE);
    if (deep) await check(deep);
  }
  return { planned, differences };
}

async function main(argv: string[]): Promise<number> {
  const opts = parseOptions(argv);
  if (!opts) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  process.chdir(ROOT);
  const url = database.requireDatabaseUrl(process.env.DATABASE_URL);
  const db: Connection = await database.connect(url);
  cleanups.push(() => db.end());
  await database.ensureLargeData(db, url, log, opts.anySize);

  // Another build brings its own migrations; the check below is for this checkout's.
  const pending = opts.apiMain ? [] : await database.pendingMigrations(url);
  if (pending.length && !opts.migrate) {
    throw new database.RefusalError(
      `the API would apply migrations ${pending.join(', ')} to ${database.describe(url)} when it starts. ` +
        'Run "npm run migrate" against it first, or pass --migrate to let the benchmark do so.',
    );
  }
  log('building (npm run build)');
  await run('npm', ['run', 'build', '--silent']);
  const token = await createToken(url, opts);
  // Its tokens are the only rows the benchmark leaves; they are revoked at the end (this one also expires in 12 h).
  cleanups.push(() => tokens(url, opts, ['revoke', token.id]));
  const fixtures = await database.findFixtures(db);
  const servers = await startServers(url, fixtures.user_id, opts);
  const rssStart = rssMb(servers.api.pid);
  log(`API (pid ${servers.api.pid}) at ${servers.api.url}, floor (pid ${servers.floor.pid}) at ${servers.floor.url}, stack floor (pid ${servers.stack.pid}) at ${servers.stack.url}, service floor (pid ${servers.service.pid}) at ${servers.service.url}`);

  const headers = { authorization: `Bearer ${token.token}` };
  const explicit = opts.paths.length > 0;
  const measured = explicit ? opts.paths.map((p) => ({ path: p, base: p })) : [...(await listRequests(servers.api.url, fixtures, log)), ...metricRequests(fixtures)];
  const requests = measured.filter((r) => matchesFilters(r, opts.filters));
  // The ingest rows are POSTs, not paths of the document: named by their path for --filter, never by --path.
  const signals = explicit ? [] : INGEST_SIGNALS.filter((s) => matchesFilters({ path: ingestPath(s), base: ingestPath(s) }, opts.filters));
  const appSources = explicit ? [] : APP_INGEST_SOURCES.filter((source) => matchesFilters({ path: source.rowPath, base: source.rowPath }, opts.filters));
  const copilotPull = !explicit && matchesFilters({ path: COPILOT_ROW_PATH, base: COPILOT_ROW_PATH }, opts.filters);
  const figuresBurst = !explicit && matchesFilters({ path: BURST_ROW_PATH, base: BURST_ROW_PATH }, opts.filters);
  const histories = explicit ? [] : HISTORY_PROVIDERS.filter((p) => matchesFilters({ path: historyRowPath(p.id), base: historyRowPath(p.id) }, opts.filters));
  const recomputation = !explicit && matchesFilters({ path: RECOMPUTATION_ROW_PATH, base: RECOMPUTATION_ROW_PATH }, opts.filters);
  if (figuresBurst) await database.requireCollaborator(db, database.MEMBER_EMAIL, fixtures.organization_id);
  if (requests.length === 0 && signals.length === 0 && appSources.length === 0 && !copilotPull && !figuresBurst && histories.length === 0 && !recomputation) throw new UsageError(`no request matches ${opts.filters.map((f) => `"${f}"`).join(' or ')}`);
  const { planned, differences } = requests.length ? await plan(requests, explicit, servers, headers) : { planned: [], differences: [] };
  const ingestCount = signals.length + appSources.length;
  const minutes = (planned.length * (opts.baseline ? 6 : 4) * (opts.seconds + 1) + ingestCount * (2 * opts.seconds + 60)) / 60;
  log(
    `${planned.length} requests${ingestCount ? ` and ${ingestCount} ingest rows` : ''}, ${opts.connections} connections, ` +
      `${opts.seconds} s each on the four servers${ingestCount ? ' (ingest: the ingest floor and the API)' : ''}: about ${minutes.toFixed(1)} min`,
  );

  // A fresh process runs its first requests unoptimised (V8 compiles hot code after a few thousand calls): without
  // a warm-up the first row measured the JIT, not the server.
  if (planned.length) {
    log(`warming up each server on ${planned[0].request.path} for ${WARM_UP_SECONDS} s`);
    for (const server of [servers.floor, servers.stack, servers.service, servers.api]) {
      await measure(server.url + planned[0].request.path, headers, opts.connections, WARM_UP_SECONDS);
    }
  }
  // Rows measured with the figures cache off run on a second API started so (the first keeps its cache).
  const cacheOff = planned.find((p) => p.request.cacheOff);
  let apiCacheOff: ApiServer | undefined;
  if (cacheOff) {
    if (process.env.COUNT_CACHE_TTL_MS === '0') apiCacheOff = servers.api;
    else {
      apiCacheOff = await startApi('API (cache off)', url, opts, { COUNT_CACHE_TTL_MS: '0' });
      await waitHealthy(apiCacheOff);
      log(`API with COUNT_CACHE_TTL_MS=0 (pid ${apiCacheOff.pid}) at ${apiCacheOff.url}; warming it up on ${cacheOff.request.path} for ${WARM_UP_SECONDS} s`);
      await measure(apiCacheOff.url + cacheOff.request.path, headers, opts.connections, WARM_UP_SECONDS);
    }
  }

  const apiRss = sampleRss(servers.api.pid);
  const floorRss = sampleRss(servers.floor.pid);
  const database_name = new URL(url).pathname.slice(1);
  const alive = (list: Server[], during: string) => {
    for (const server of list) {
      // A server that died mid-run turns every later row into timeouts: stop and say why instead.
      const how = howExited(server);
      if (how) throw new Error(`${server.name} exited (${how}) during ${during}; its last output:\n${server.tail()}`);
    }
  };
  const rows: Row[] = [];
  const gcStart = planned.length ? await processTimes(servers.api.metricsUrl) : undefined;
  let gcHighest: { share: number; path: string } | undefined;
  // The settings of what counts the rows run under: set before the first row of a run of rows under them, put back
  // after its last, and in any case before the next rows, the report or a failure's message.
  let underSettings: { settings: RowSettings; restore: () => Promise<void> } | undefined;
  const putBack = async () => {
    await underSettings?.restore();
    underSettings = undefined;
  };
  try {
    for (const [i, { request, floorProbe }] of planned.entries()) {
      if (request.settings !== underSettings?.settings) {
        await putBack();
        if (request.settings) {
          const restore = await applySettings((args) => checkoutCli('metrics-settings', url, opts, args), fixtures.organization_id, request.settings, log);
          cleanups.push(restore);
          underSettings = { settings: request.settings, restore };
        }
      }
      await settle(db, database_name);
      const serves = floorProbe.status === 200;
      const floorRun = async (server: Server) => {
        if (!serves) return undefined;
        const measured = await measure(server.url + request.path, headers, opts.connections, opts.seconds);
        await settle(db, database_name);
        return measured;
      };
      const floor = await floorRun(servers.floor);
      const stack = await floorRun(servers.stack);
      const service = await floorRun(servers.service);
      const apiServer = request.cacheOff && apiCacheOff ? apiCacheOff : servers.api;
      const timesBefore = await processTimes(apiServer.metricsUrl);
      const api = await measure(apiServer.url + request.path, headers, opts.connections, opts.seconds);
      alive([apiServer], request.path);
      const timesAfter = await processTimes(apiServer.metricsUrl);
      const share = timesBefore && timesAfter && gcShare(timesBefore, timesAfter);
      if (share !== undefined && share > (gcHighest?.share ?? -1)) gcHighest = { share, path: request.path };
      // Against a baseline, the pair once more: a row is flagged only when it is slower in both alternations.
      const again = opts.baseline ? { stack: await floorRun(servers.stack), api: await measure(apiServer.url + request.path, headers, opts.connections, opts.seconds) } : undefined;
      alive([servers.floor, servers.stack, servers.service, apiServer], request.path);
      rows.push({ path: rowName(request), floor, stack, service, floorNote: serves ? undefined : `floor ${floorProbe.status}`, api, again });
      const rps = (m?: { rps: number }) => (m ? m.rps.toFixed(1) : '-');
      log(`[${i + 1}/${planned.length}] ${request.path}: floor ${rps(floor)}, stack ${rps(stack)}, service ${rps(service)}, API ${rps(api)} req/s`);
    }
  } catch (err) {
    // The rows measured before a server died are figures still: printed before the failure is reported.
    if (rows.length) process.stdout.write(`${table(rows)}${listSummary(rows)}\n\nThe run stopped after these ${rows.length} of ${planned.length} rows.\n`);
    // Put back before the failure is reported; a failure to put back is logged, the row's is the one reported.
    await putBack().catch((e: unknown) => log(`putting back what counts: ${e instanceof Error ? e.message : String(e)}`));
    throw err;
  }
  await putBack();
  const notes: string[] = [];
  const gcEnd = gcStart && (await processTimes(servers.api.metricsUrl));
  const gcWhole = gcStart && gcEnd && gcShare(gcStart, gcEnd);
  if (gcWhole !== undefined) {
    const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
    notes.push(`API CPU spent collecting garbage (its nodejs_gc_duration_seconds ÷ process_cpu_seconds): ${percent(gcWhole)} over its runs of the rows above (the cache-off API's apart); highest in one row's run: ${gcHighest ? `${percent(gcHighest.share)} (\`${gcHighest.path}\`)` : '–'}.`);
  }
  if (apiCacheOff) {
    notes.push(
      'Rows marked (cache off): measured on an API started with `COUNT_CACHE_TTL_MS=0`: ' +
        'no figures are kept, but requests that arrive while the same figures are being computed still wait for that computation, ' +
        'as they do in service; its p50 is about the time one computation takes.',
    );
    if (apiCacheOff !== servers.api) await stopServer(apiCacheOff);
  }
  const clusterRequests = explicit || opts.workers < 2 ? [] : CLUSTER_LISTS.map((list) => planned.find((p) => p.request.path.startsWith(`${list}?`) && !p.request.path.includes('&page=') && p.floorProbe.status === 200)).filter((p) => p !== undefined);
  const clusterRows = clusterRequests.length ? await measureCluster({ url, db, database_name, opts, fixtures, servers, headers, alive, requests: clusterRequests.map((p) => p.request) }) : [];
  const ingestContext = { url, db, database_name, opts, organizationId: fixtures.organization_id, signals, api: servers.api, alive, notes, differences };
  const ingestRows = signals.length ? await measureIngest(ingestContext) : [];
  for (const source of appSources) ingestRows.push(await measureAppIngest(ingestContext, source));
  if (copilotPull) ingestRows.push(await measureVendorPull(ingestContext));
  const burstRows = figuresBurst ? await measureBursts(ingestContext, fixtures, token.token) : [];
  const historyRows: HistoryRow[] = [];
  for (const provider of histories) historyRows.push(await measureHistory(ingestContext, provider));
  apiRss.stop();
  floorRss.stop();
  // "Final": once the last run's leftovers are done and the process has had a moment to collect garbage.
  await settle(db, database_name);
  await new Promise((r) => setTimeout(r, 1_000));
  const rssFinal = rssMb(servers.api.pid);
  let recomputationRow: RecomputationRow | undefined;
  if (recomputation) {
    // The API's background recomputation would take turns with the CLI's at the chunks: the row runs the CLI's alone.
    await stopServer(servers.api);
    const settingsMain = opts.apiMain ? path.resolve(path.dirname(opts.apiMain), '../scripts/metricsSettings.js') : path.join(ROOT, 'dist/scripts/metricsSettings.js');
    recomputationRow = await measureRecomputation({ url, db, organizationId: fixtures.organization_id, settingsMain, log, atCleanup: (undo) => cleanups.push(undo), notes, differences });
  }

  const mariadb = String(await database.scalar(db, 'SELECT VERSION()'));
  const tables = [
    rows.length ? `${table(rows)}${listSummary(rows)}` : '',
    clusterRows.length ? clusterTable(clusterRows) : '',
    ingestRows.length ? ingestTable(ingestRows) : '',
    burstRows.length ? burstTable(burstRows) : '',
    historyRows.length ? historyTable(historyRows) : '',
    recomputationRow ? recomputationTable(recomputationRow) : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  if (opts.saveBaseline) saveBaseline(opts.saveBaseline, rows, ingestRows);
  const regressed = opts.baseline ? regressions(readBaseline(opts.baseline), rows, ingestRows) : [];
  process.stdout.write(
    `${tables}\n${footer({
      connections: opts.connections,
      seconds: opts.seconds,
      floorCount: opts.floorCount,
      mariadb,
      database: database.describe(url),
      rss: { start: rssStart, peak: apiRss.peak(), final: rssFinal },
      floorPeakRss: floorRss.peak(),
      differences,
      notes,
    })}\n`,
  );
  if (regressed.length) {
    process.stdout.write(`\nREGRESSED against ${opts.baseline} (more than ${REGRESSION * 100} % slower in both alternations):\n${regressed.join('\n')}\n`);
    return 3;
  }
  return 0;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** A row's name in the report: its path, and what it was measured under when not the API's defaults. */
function rowName(request: ListRequest): string {
  const under = [request.cacheOff ? 'cache off' : '', request.settings ? `what counts: ${request.settings.label}` : ''].filter(Boolean);
  return under.length ? `${request.path} (${under.join('; ')})` : request.path;
}

/** The lists of the cluster rows (issue 23: N workers serve at least 1.6 times what one does). */
const CLUSTER_LISTS = ['/v1/users', '/v1/commits'];

interface ClusterContext {
  url: string;
  db: Connection;
  database_name: string;
  opts: BenchOptions;
  fixtures: database.Fixtures;
  servers: Servers;
  headers: Record<string, string>;
  alive: (servers: Server[], during: string) => void;
  requests: ListRequest[];
}

/**
 * The cluster rows: the API with WEB_CONCURRENCY=N and the floor with N processes, each started for these rows and
 * warmed up, then per request the floor on one process and on N, and the API on one and on N, back to back. The
 * load generator runs on the same machine and takes a core's share of it too.
 */
async function measureCluster(c: ClusterContext): Promise<ClusterRow[]> {
  const { opts, headers } = c;
  const workers = String(c.opts.workers);
  const apiMany = await startApi(`API (WEB_CONCURRENCY=${workers})`, c.url, opts, { WEB_CONCURRENCY: workers });
  const floorMany = startServer(`floor (${workers} processes)`, process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/server.js')], await freePort(), {
    DATABASE_URL: c.url,
    FLOOR_USER_ID: c.fixtures.user_id,
    FLOOR_COUNT: opts.floorCount,
    FLOOR_WORKERS: workers,
  });
  cleanups.push(() => stopServer(floorMany));
  await Promise.all([waitHealthy(apiMany), waitHealthy(floorMany)]);
  log(`cluster rows: API with WEB_CONCURRENCY=${workers} (pid ${apiMany.pid}), floor with ${workers} processes (pid ${floorMany.pid}); warming them up`);
  for (const server of [floorMany, apiMany]) await measure(server.url + c.requests[0].path, headers, opts.connections, WARM_UP_SECONDS);

  const rows: ClusterRow[] = [];
  for (const request of c.requests) {
    const run = async (server: Server) => {
      await settle(c.db, c.database_name);
      return measure(server.url + request.path, headers, opts.connections, opts.seconds);
    };
    // What each run kept busy: the API's processes, the database, and this process (autocannon's load).
    const busy = async (server: Server): Promise<{ measured: Measurement; cores: Cores }> => {
      const pids = processTree(server.pid);
      const cpu = () => ({ api: sum(pids.map((pid) => cpuMs(pid) ?? 0)), database: cpuMs(databasePid()) ?? 0, load: process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000 });
      await settle(c.db, c.database_name);
      const before = cpu();
      const measured = await measure(server.url + request.path, headers, opts.connections, opts.seconds);
      const after = cpu();
      const per = (k: keyof Cores) => (after[k] - before[k]) / 1000 / measured.seconds;
      return { measured, cores: { api: per('api'), database: per('database'), load: per('load') } };
    };
    const floor = { one: await run(c.servers.floor), many: await run(floorMany) };
    const [one, many] = [await busy(c.servers.api), await busy(apiMany)];
    const api = { one: one.measured, many: many.measured };
    c.alive([c.servers.floor, floorMany, c.servers.api, apiMany], `the cluster row of ${request.path}`);
    rows.push({ path: request.path, workers: opts.workers, floor, api, cores: { one: one.cores, many: many.cores } });
    log(`cluster ${request.path}: floor ${floor.one.rps.toFixed(0)} → ${floor.many.rps.toFixed(0)}, API ${api.one.rps.toFixed(0)} → ${api.many.rps.toFixed(0)} req/s`);
  }
  await Promise.all([stopServer(apiMany, 15_000), stopServer(floorMany)]);
  return rows;
}

interface IngestContext {
  url: string;
  db: Connection;
  database_name: string;
  opts: BenchOptions;
  organizationId: string;
  signals: IngestSignal[];
  api: Server;
  alive: (servers: Server[], during: string) => void;
  notes: string[];
  differences: string[];
}

/**
 * The ingest rows (scripts/bench/otlp/ingest.ts): an OTLP token of the caller's organization, the bodies and
 * the floor's rows prepared, the ingest floor started; then per signal a check of what the API stores for one
 * body against what the floor inserts for it, and the floor's load and the API's (each measured once it is warm
 * and saturated: load.ts measureBodies), with what they wrote deleted after each.
 */
async function measureIngest(c: IngestContext): Promise<IngestRow[]> {
  const { db, opts } = c;
  const otlpToken = await createToken(c.url, opts, ['create-otlp', '--org', c.organizationId]);
  const database = databasePid();
  cleanups.push(() => tokens(c.url, opts, ['revoke', otlpToken.id]));
  const plan: IngestPlan = await prepareIngest(db, { organizationId: c.organizationId, tokenId: otlpToken.id }, c.signals, { ...opts, warmUpSeconds: WARM_UP_SECONDS }, log);
  cleanups.push(async () => removeFiles(plan));
  cleanups.push(() => removeIngested(db, plan));
  const floor = startServer('ingest floor', process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/ingest.js')], await freePort(), { DATABASE_URL: c.url, ...plan.floorEnv });
  cleanups.push(() => stopServer(floor));
  await waitHealthy(floor, 300_000);
  removeFiles(plan); // loaded: the floor holds its statements now
  log(`ingest floor (pid ${floor.pid}) at ${floor.url}`);
  const headers = { authorization: `Bearer ${otlpToken.token}`, 'content-type': 'application/x-protobuf' };
  const clean = async () => {
    await removeIngested(db, plan);
    await settle(db, c.database_name);
  };
  await clean();

  const rows: IngestRow[] = [];
  for (const s of plan.signals) {
    const what = ITEM_NAMES[s.signal];
    // What the API makes of one body, against what the floor inserts for it.
    const res = await fetch(c.api.url + s.path, { method: 'POST', headers, body: s.bodies[0] });
    const answer = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) c.differences.push(`\`POST ${s.path}\`: API answered ${res.status} ${answer.toString('utf8').slice(0, 200)}`);
    else {
      const partial = (responseType(s.signal).toObject(responseType(s.signal).decode(answer)) as { partialSuccess?: unknown }).partialSuccess;
      if (partial) c.differences.push(`\`POST ${s.path}\`: API answered partialSuccess ${JSON.stringify(partial)}`);
      const stored = await storedItems(db, plan, s.signal);
      if (stored.items !== s.first.items || stored.unattributed !== s.first.items - s.first.attributed) {
        c.differences.push(`\`POST ${s.path}\`: for one body the API stored ${stored.items} ${what} (${stored.unattributed} unattributed), the floor ${s.first.items} (${s.first.items - s.first.attributed})`);
      }
    }
    await clean();

    const cpu: string[] = [];
    const load = async (server: Server) => {
      const pids = [server.pid, database];
      const before = pids.map(cpuMs);
      const measured = await measureBodies(server.url + s.path, headers, s.bodies, opts.connections, opts.seconds, WARM_UP_SECONDS);
      c.alive([server], `POST ${s.path}`);
      const [own, db] = pids.map((pid, i) => ((cpuMs(pid) ?? NaN) - (before[i] ?? NaN)) / Math.max(1, measured.ok));
      cpu.push(`${server.name} ${own.toFixed(0)} ms + database ${db.toFixed(0)} ms`);
      return measured;
    };
    const floorRun = await load(floor);
    await clean();
    const apiRun = await load(c.api);
    // Where each request's time goes: on 2 cores, whichever process nears 1000 ms per second of load is the limit.
    log(`${s.path}: CPU per accepted request (warm-up included): ${cpu.join('; ')}`);
    const stored = await storedItems(db, plan, s.signal);
    await clean();
    rows.push({ path: s.path, items: s.itemsPerBody, itemName: what, encoding: 'protobuf', bodyKb: s.bodies.reduce((n, b) => n + b.length, 0) / s.bodies.length / 1024, floor: floorRun, api: apiRun });
    for (const [server, m] of [[floor, floorRun], [c.api, apiRun]] as const) {
      if (m.exhausted) {
        c.notes.push(`\`POST ${s.path}\`: the ${server.name} was sent all ${s.bodies.length} prepared bodies ${m.seconds.toFixed(1)} s into its measured window; its rate is over those seconds.`);
      }
      const statuses = Object.entries(m.statuses).map(([status, n]) => `${n} × ${status}`);
      // The last error the server logged says why (the API logs a failed OTLP request with its error's message).
      const logged = server.tail().split('\n').reverse().map((l) => /"message":"([^"]{1,200})/.exec(l)?.[1] ?? (/^ingest floor: (.{1,200})/.exec(l)?.[1])).find(Boolean);
      if (statuses.length) c.notes.push(`\`POST ${s.path}\`: the ${server.name}'s non-2xx answers in the window: ${statuses.join(', ')}${logged ? ` (its last logged error: "${logged}")` : ''}.`);
    }
    if (apiRun.p99 > OTLP_EXPORT_TIMEOUT_MS) {
      c.notes.push(
        `\`POST ${s.path}\`: API p99 above ${OTLP_EXPORT_TIMEOUT_MS / 1000} s, the time an OTLP exporter waits by default (OTEL_EXPORTER_OTLP_TIMEOUT) before it gives up ` +
          `and sends again: ${opts.connections} senders at once would see timeouts (the benchmark waits up to ${INGEST_TIMEOUT_S} s).`,
      );
    }
    // Every body answered 2xx must have been stored in full: none skipped as seen before.
    if (stored.items < apiRun.ok * s.itemsPerBody) {
      c.differences.push(`\`POST ${s.path}\`: the API stored ${stored.items} ${what} for ${apiRun.ok} accepted bodies of ${s.itemsPerBody}`);
    }
    log(
      `${s.path}: ingest floor ${(floorRun.rps * s.itemsPerBody).toFixed(0)}, API ${(apiRun.rps * s.itemsPerBody).toFixed(0)} ${what}/s ` +
        `(${floorRun.rps.toFixed(1)} and ${apiRun.rps.toFixed(1)} req/s; measured after ${floorRun.warmUp.toFixed(1)} and ${apiRun.warmUp.toFixed(1)} s of load)`,
    );
  }
  await stopServer(floor);
  return rows;
}

/** The app-ingest rows, in the report's order: trackers, then incident tools. */
const APP_INGEST_SOURCES: AppIngestSource[] = [jiraIngest, pagerdutyIngest];

/**
 * An app-ingest row (scripts/bench/apps/ingest.ts): an app of the caller's organization made with the service's
 * AppWriter, its deliveries and the floor's rows prepared, an ingest floor and its stack floor started for them;
 * then a check of what the API stores for one delivery against what the floor writes for it, and the floors' load
 * and the API's (measured as the OTLP rows are), with what they wrote deleted after each and the app at the end.
 */
async function measureAppIngest(c: IngestContext, source: AppIngestSource): Promise<IngestRow> {
  const { db, opts } = c;
  const key = parseSecretsKey(process.env.SECRETS_KEY ?? BENCH_SECRETS_KEY);
  if (!key) throw new database.RefusalError('SECRETS_KEY is not 32 bytes as 64 hex characters or base64; the API would not start with it either');
  const { app, secret } = await createBenchApp(c.url, key, c.organizationId, source.provider);
  cleanups.push(() => removeBenchApp(db, source, app.id));
  const plan = prepareAppIngest(source, app, secret, { ...opts, warmUpSeconds: WARM_UP_SECONDS }, log);
  cleanups.push(async () => removeAppIngestFiles(plan));
  const floor = startServer(`ingest floor (${source.provider})`, process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/ingest.js')], await freePort(), { DATABASE_URL: c.url, ...plan.floorEnv });
  cleanups.push(() => stopServer(floor));
  const stack = startServer(`ingest stack floor (${source.provider})`, process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/ingestStack.js')], await freePort(), {
    DATABASE_URL: c.url,
    ...plan.floorEnv,
    FLOOR_INGEST_APP_SECRET: secret,
  });
  cleanups.push(() => stopServer(stack));
  await Promise.all([waitHealthy(floor, 300_000), waitHealthy(stack, 300_000)]);
  removeAppIngestFiles(plan);
  log(`ingest floor for ${source.provider} (pid ${floor.pid}) at ${floor.url}, its stack floor (pid ${stack.pid}) at ${stack.url}; app ${app.id}`);
  const clean = async () => {
    await source.removeRows(db, app.id);
    await settle(db, c.database_name);
  };
  const route = `POST ${source.rowPath}`;

  // What the API makes of one delivery, against what the floor writes for it.
  const [first] = plan.deliveries;
  const res = await fetch(c.api.url + plan.path, { method: 'POST', headers: first.headers, body: first.body });
  const answer = await res.text();
  const stored = await source.stored(db, app.id);
  if (res.status !== 200) c.differences.push(`\`${route}\`: API answered ${res.status} ${answer.slice(0, 200)}`);
  else if (JSON.stringify(stored) !== JSON.stringify(plan.first)) {
    c.differences.push(`\`${route}\`: for one delivery the API stored ${JSON.stringify(stored)}, the floor ${JSON.stringify(plan.first)}`);
  }
  await clean();

  const bodies = plan.deliveries.map((d) => d.body);
  const bodyHeaders = plan.deliveries.map((d) => d.headers);
  const database_pid = databasePid();
  const cpu: string[] = [];
  const load = async (server: Server) => {
    const pids = [server.pid, database_pid];
    const before = pids.map(cpuMs);
    const measured = await measureBodies(server.url + plan.path, {}, bodies, opts.connections, opts.seconds, WARM_UP_SECONDS, bodyHeaders);
    c.alive([server], route);
    const [own, dbMs] = pids.map((pid, i) => ((cpuMs(pid) ?? NaN) - (before[i] ?? NaN)) / Math.max(1, measured.ok));
    cpu.push(`${server.name} ${own.toFixed(1)} ms + database ${dbMs.toFixed(1)} ms`);
    return measured;
  };
  const floorRun = await load(floor);
  await clean();
  const stackRun = await load(stack);
  await clean();
  const apiRun = await load(c.api);
  log(`${route}: CPU per accepted delivery (warm-up included): ${cpu.join('; ')}`);
  const after = await source.stored(db, app.id);
  await clean();
  for (const [server, m] of [[floor, floorRun], [stack, stackRun], [c.api, apiRun]] as const) {
    if (m.exhausted) c.notes.push(`\`${route}\`: the ${server.name} was sent all ${bodies.length} prepared deliveries ${m.seconds.toFixed(1)} s into its measured window; its rate is over those seconds.`);
    const statuses = Object.entries(m.statuses).map(([status, n]) => `${n} × ${status}`);
    const logged = server.tail().split('\n').reverse().map((l) => /"message":"([^"]{1,200})/.exec(l)?.[1] ?? (/^ingest (?:stack )?floor: (.{1,200})/.exec(l)?.[1])).find(Boolean);
    if (statuses.length) c.notes.push(`\`${route}\`: the ${server.name}'s non-2xx answers in the window: ${statuses.join(', ')}${logged ? ` (its last logged error: "${logged}")` : ''}.`);
  }
  // Every delivery answered 2xx must have been applied: none found already received.
  if (after.deliveries < apiRun.ok) c.differences.push(`\`${route}\`: the API stored ${after.deliveries} deliveries for ${apiRun.ok} accepted`);
  c.notes.push(`\`${route}\`: ${source.note}`);
  log(`${route}: ingest floor ${floorRun.rps.toFixed(1)}, stack floor ${stackRun.rps.toFixed(1)}, API ${apiRun.rps.toFixed(1)} deliveries/s (measured after ${floorRun.warmUp.toFixed(1)}, ${stackRun.warmUp.toFixed(1)} and ${apiRun.warmUp.toFixed(1)} s of load)`);
  await Promise.all([stopServer(floor), stopServer(stack)]);
  const kb = bodies.reduce((n, b) => n + b.length, 0) / bodies.length / 1024;
  return { path: source.rowPath, items: 1, itemName: source.itemName, encoding: 'JSON', bodyKb: kb, floor: floorRun, stack: stackRun, api: apiRun };
}

/**
 * The AI vendors' pull row (scripts/bench/copilot/pull.ts): the import CLI of the build whose API is measured, with
 * the benchmark's SECRETS_KEY, against the floor that writes the same rows.
 */
async function measureVendorPull(c: IngestContext): Promise<IngestRow> {
  const key = parseSecretsKey(process.env.SECRETS_KEY ?? BENCH_SECRETS_KEY);
  if (!key) throw new database.RefusalError('SECRETS_KEY is not 32 bytes as 64 hex characters or base64; the API would not start with it either');
  const importMain = c.opts.apiMain ? path.resolve(path.dirname(c.opts.apiMain), '../scripts/import.js') : path.join(ROOT, 'dist/scripts/import.js');
  return measureCopilotPull({ url: c.url, db: c.db, organizationId: c.organizationId, secretsKey: key, importMain, log, differences: c.differences, notes: c.notes });
}

/**
 * A history row (scripts/bench/history/row.ts): the import CLI of the build whose API is measured, with the
 * benchmark's SECRETS_KEY, against the floor that reads the same pages and writes the same rows.
 */
async function measureHistory(c: IngestContext, provider: (typeof HISTORY_PROVIDERS)[number]): Promise<HistoryRow> {
  const key = parseSecretsKey(process.env.SECRETS_KEY ?? BENCH_SECRETS_KEY);
  if (!key) throw new database.RefusalError('SECRETS_KEY is not 32 bytes as 64 hex characters or base64; the API would not start with it either');
  const importMain = c.opts.apiMain ? path.resolve(path.dirname(c.opts.apiMain), '../scripts/import.js') : path.join(ROOT, 'dist/scripts/import.js');
  return measureHistoryRow({ url: c.url, db: c.db, organizationId: c.organizationId, quick: c.opts.quick, secretsKey: key, importMain, root: ROOT, log, notes: c.notes, differences: c.differences }, provider);
}

/**
 * The burst rows (scripts/bench/burst/figures.ts): a token for the demo's collaborator made as the benchmark's own
 * is (revoked at the end), the admin's being the benchmark's; each burst on an API started for it as startApi does.
 */
async function measureBursts(c: IngestContext, fixtures: database.Fixtures, adminToken: string): Promise<BurstRow[]> {
  const member = await createToken(c.url, c.opts, ['create', '--user', database.MEMBER_EMAIL, '--expires-in', '12h']);
  cleanups.push(() => tokens(c.url, c.opts, ['revoke', member.id]));
  return measureFiguresBursts({
    organizationId: fixtures.organization_id,
    lastDay: fixtures.last_day,
    requests: c.opts.burst,
    callers: [
      { name: `collaborator (${database.MEMBER_EMAIL})`, token: member.token, admin: false },
      { name: `admin (${database.CALLER_EMAIL})`, token: adminToken, admin: true },
    ],
    startApi: async (name) => {
      const api = await startApi(name, c.url, c.opts);
      await waitHealthy(api);
      return api;
    },
    settle: () => settle(c.db, c.database_name),
    log,
    notes: c.notes,
    differences: c.differences,
  });
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130); // a second Ctrl-C: stop waiting for the cleanup
    interrupted = true;
    log(`${signal}: cleaning up (servers, token)`);
    void cleanUp().finally(() => process.exit(130));
  });
}
process.on('exit', killAllNow);

main(process.argv.slice(2))
  .catch((e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`bench: ${e.message}\n\n${USAGE}\n`);
      return 2;
    }
    log(e instanceof database.RefusalError ? `refusing: ${e.message}` : `failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  })
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  });
