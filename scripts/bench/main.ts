/**
 * npm run bench -- [--quick] [--filter TEXT] [--path PATH] [--connections N] [--seconds N] [--floor-count exact|cached]
 *
 * The whole benchmark in one command (README "Benchmark"): data, both servers, the load, one report, and
 * nothing left running afterwards, whatever happens. Speed is measured here, never asserted in tests.
 */
import path from 'node:path';
import type { Connection } from 'mysql2/promise';
import { parseOptions, USAGE, UsageError, BenchOptions } from './options';
import * as database from './database';
import { difference, measure, probe, Probe, settle } from './load';
import { freePort, killAllNow, rssMb, run, sampleRss, Server, startServer, stopServer, waitHealthy } from './processes';
import { deepPage, ListRequest, listRequests, matchesFilters, metricRequests } from './requests';
import { footer, Row, table } from './report';

const ROOT = path.resolve(__dirname, '../..');
const PER_PAGE = 50; // the API's default, which every request uses
const WARM_UP_SECONDS = 3;
const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

/** Undone in reverse order on success, error and Ctrl-C alike. */
const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const undo of cleanups.reverse()) await undo().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
  })();
  return cleaning;
}

async function createToken(url: string): Promise<{ id: string; token: string }> {
  const out = await run(
    'npm',
    ['run', '--silent', 'tokens', '--', 'create', '--user', database.CALLER_EMAIL, '--name', 'npm run bench', '--expires-in', '12h', '--json'],
    { env: { DATABASE_URL: url }, capture: true },
  );
  const line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (!line) throw new Error(`the token CLI printed no JSON:\n${out}`);
  return JSON.parse(line) as { id: string; token: string };
}

interface Servers {
  api: Server;
  floor: Server;
  stack: Server;
}

async function startServers(url: string, userId: string, opts: BenchOptions): Promise<Servers> {
  const [apiPort, floorPort, stackPort] = [await freePort(), await freePort(), await freePort()];
  // The API runs as `npm start` runs it: with the heap flags of package.json's `config.nodeFlags`.
  const nodeFlags = (process.env.npm_package_config_nodeFlags ?? '').split(' ').filter(Boolean);
  const api = startServer('API', process.execPath, [...nodeFlags, opts.apiMain ?? path.join(ROOT, 'dist/src/main.js')], apiPort, {
    DATABASE_URL: url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    // The benchmark's user would otherwise be limited to 100 requests a minute.
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_HOUR: '100000000',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  });
  cleanups.push(() => stopServer(api));
  const floorEnv = { DATABASE_URL: url, FLOOR_USER_ID: userId, FLOOR_COUNT: opts.floorCount };
  const floor = startServer('floor', process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/server.js')], floorPort, floorEnv);
  cleanups.push(() => stopServer(floor));
  const stack = startServer('stack floor', process.execPath, [path.join(ROOT, 'dist/scripts/bench/floor/stack.js')], stackPort, floorEnv);
  cleanups.push(() => stopServer(stack));
  await Promise.all([waitHealthy(api), waitHealthy(floor), waitHealthy(stack)]);
  return { api, floor, stack };
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
  await database.ensureLargeData(db, url, log);

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
  const token = await createToken(url);
  // The token is the only row the benchmark adds; it is revoked at the end (it also expires in 12 h).
  cleanups.push(() => run('npm', ['run', '--silent', 'tokens', '--', 'revoke', token.id], { env: { DATABASE_URL: url }, capture: true }));
  const fixtures = await database.findFixtures(db);
  const servers = await startServers(url, fixtures.user_id, opts);
  const rssStart = rssMb(servers.api.pid);
  log(`API (pid ${servers.api.pid}) at ${servers.api.url}, floor (pid ${servers.floor.pid}) at ${servers.floor.url}, stack floor (pid ${servers.stack.pid}) at ${servers.stack.url}`);

  const headers = { authorization: `Bearer ${token.token}` };
  const explicit = opts.paths.length > 0;
  const measured = explicit ? opts.paths.map((p) => ({ path: p, base: p })) : [...(await listRequests(servers.api.url, fixtures, log)), ...metricRequests(fixtures)];
  const requests = measured.filter((r) => matchesFilters(r, opts.filters));
  if (requests.length === 0) throw new UsageError(`no list path matches ${opts.filters.map((f) => `"${f}"`).join(' or ')}`);
  const { planned, differences } = await plan(requests, explicit, servers, headers);
  const minutes = (planned.length * 3 * (opts.seconds + 1)) / 60;
  log(`${planned.length} requests, ${opts.connections} connections, ${opts.seconds} s each on the three servers: about ${minutes.toFixed(1)} min`);

  // A fresh process runs its first requests unoptimised (V8 compiles hot code after a few thousand calls): without
  // a warm-up the first row measured the JIT, not the server.
  log(`warming up each server on ${planned[0].request.path} for ${WARM_UP_SECONDS} s`);
  for (const server of [servers.floor, servers.stack, servers.api]) {
    await measure(server.url + planned[0].request.path, headers, opts.connections, WARM_UP_SECONDS);
  }

  const apiRss = sampleRss(servers.api.pid);
  const floorRss = sampleRss(servers.floor.pid);
  const database_name = new URL(url).pathname.slice(1);
  const rows: Row[] = [];
  for (const [i, { request, floorProbe }] of planned.entries()) {
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
    const api = await measure(servers.api.url + request.path, headers, opts.connections, opts.seconds);
    for (const server of [servers.floor, servers.stack, servers.api]) {
      // A server that died mid-run turns every later row into timeouts: stop and say why instead.
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        const how = server.child.signalCode ?? `code ${server.child.exitCode}${server.child.exitCode === 0 ? ', i.e. it was sent SIGTERM or SIGINT from outside' : ''}`;
        throw new Error(`${server.name} exited (${how}) during ${request.path}; its last output:\n${server.tail()}`);
      }
    }
    rows.push({ path: request.path, floor, stack, floorNote: serves ? undefined : `floor ${floorProbe.status}`, api });
    const rps = (m?: { rps: number }) => (m ? m.rps.toFixed(1) : '-');
    log(`[${i + 1}/${planned.length}] ${request.path}: floor ${rps(floor)}, stack ${rps(stack)}, API ${rps(api)} req/s`);
  }
  apiRss.stop();
  floorRss.stop();
  // "Final": once the last run's leftovers are done and the process has had a moment to collect garbage.
  await settle(db, database_name);
  await new Promise((r) => setTimeout(r, 1_000));
  const rssFinal = rssMb(servers.api.pid);

  const mariadb = String(await database.scalar(db, 'SELECT VERSION()'));
  process.stdout.write(
    `${table(rows)}\n${footer({
      connections: opts.connections,
      seconds: opts.seconds,
      floorCount: opts.floorCount,
      mariadb,
      database: database.describe(url),
      rss: { start: rssStart, peak: apiRss.peak(), final: rssFinal },
      floorPeakRss: floorRss.peak(),
      differences,
    })}\n`,
  );
  return 0;
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
