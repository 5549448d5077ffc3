/**
 * The floor: what answering the API's list paths costs with nothing but node:http and a mysql2 pool. No
 * framework, auth, rate limit, validation library or ORM; the best known plan for each page; the same JSON
 * envelope. The benchmark compares the API with it, so "API req/s / floor req/s" is the price of everything the
 * API adds. Started by `npm run bench` as a child process (from the build output, so it runs as compiled JS
 * like the API does).
 *
 * Environment: DATABASE_URL, PORT, FLOOR_USER_ID (the caller, default usr_ada), FLOOR_COUNT=exact|cached.
 */
import http from 'node:http';
import { createPool, Pool, RowDataPacket } from 'mysql2/promise';
import { Caller, Ctx, LISTS, ListDef, Target } from './lists';
import type { Sql } from './sql';

// The API's Sequelize pool holds at most 20 connections; the floor gets no more, so it wins on plans, not width.
const POOL_SIZE = 20;

interface Route {
  pattern: RegExp;
  names: string[];
  list: ListDef;
}

/** OpenAPI templates to regexes; literal segments (`all`, `catalog`) first, as the API registers them. */
function compileRoutes(): Route[] {
  const routes = Object.entries(LISTS).map(([template, list]) => {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pattern = new RegExp(`^/v1${template.replace(/\{\w+\}/g, '([^/]+)')}/?$`);
    return { pattern, names, list, params: names.length };
  });
  return routes.sort((a, b) => a.params - b.params);
}

async function rows(pool: Pool, q: Sql): Promise<RowDataPacket[]> {
  const [result] = await pool.query<RowDataPacket[]>(q.sql, q.args);
  return result;
}

async function loadCaller(pool: Pool, userId: string): Promise<Caller> {
  const orgs = await rows(pool, { sql: 'SELECT organization_id, role FROM organization_memberships WHERE user_id = ?', args: [userId] });
  const teams = await rows(pool, { sql: 'SELECT team_id, role FROM team_memberships WHERE user_id = ?', args: [userId] });
  return {
    userId,
    orgIds: orgs.map((r) => r.organization_id as string),
    adminOrgIds: orgs.filter((r) => r.role === 'admin').map((r) => r.organization_id as string),
    teamIds: teams.map((r) => r.team_id as string),
    managedTeamIds: teams.filter((r) => r.role === 'manager').map((r) => r.team_id as string),
  };
}

/** The addressed user's memberships; the caller's own are known already and cost no query. */
async function loadTarget(pool: Pool, caller: Caller, userId: string | undefined): Promise<Target> {
  if (!userId || userId === caller.userId) return { userId: caller.userId, orgIds: caller.orgIds, teamIds: caller.teamIds };
  const [orgs, teams] = await Promise.all([
    rows(pool, { sql: 'SELECT organization_id FROM organization_memberships WHERE user_id = ?', args: [userId] }),
    rows(pool, { sql: 'SELECT team_id FROM team_memberships WHERE user_id = ?', args: [userId] }),
  ]);
  return { userId, orgIds: orgs.map((r) => r.organization_id as string), teamIds: teams.map((r) => r.team_id as string) };
}

/**
 * Rows come with `dateStrings` (stored UTC, `2024-01-02 09:00:00.000`) and TINYINT booleans; turning them into
 * the API's wire forms by name is cheaper than a Date round trip per value.
 */
function toItem(row: RowDataPacket): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.endsWith('_at') && typeof value === 'string') item[key] = `${value.replace(' ', 'T')}Z`;
    else if (key.startsWith('is_')) item[key] = value === 1;
    else item[key] = value;
  }
  return item;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

const fail = (res: http.ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { status: 'error', error: { code, message } });

async function main(): Promise<void> {
  const uri = process.env.DATABASE_URL;
  if (!uri) throw new Error('DATABASE_URL is required');
  const cached = process.env.FLOOR_COUNT === 'cached';
  const pool = createPool({ uri, connectionLimit: POOL_SIZE, dateStrings: true, supportBigNumbers: true });
  const caller = await loadCaller(pool, process.env.FLOOR_USER_ID ?? 'usr_ada');
  // The best plan for member lists depends on the schema the database has (both are in use: see lists.ts).
  const memberIndexes = (
    await rows(pool, { sql: "SHOW INDEX FROM organization_memberships WHERE Key_name = 'organization_memberships_organization_id_user_created_at_user_id'", args: [] })
  ).length > 0;
  const routes = compileRoutes();
  // `cached`: each scope is counted once for the whole run (the data is read-only meanwhile), i.e. the cost of
  // totals with a perfect cache. Otherwise every request counts, the cost of exact totals without one.
  const totals = new Map<string, Promise<number>>();
  const countOf = (q: Sql): Promise<number> => {
    const run = () => rows(pool, q).then((r) => Number(r[0].n));
    if (!cached) return run();
    const key = `${q.sql}|${JSON.stringify(q.args)}`;
    let total = totals.get(key);
    if (!total) totals.set(key, (total = run()));
    return total;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://floor');
    if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
    let route: Route | undefined;
    let match: RegExpExecArray | null = null;
    for (const r of routes) if ((match = r.pattern.exec(url.pathname))) { route = r; break; }
    if (!route || !match) return fail(res, 404, 'NOT_FOUND', 'The floor does not serve this path');
    const { list, names } = route;
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match![i + 1])]));
    const q = url.searchParams;
    const page = Number(q.get('page') ?? 1);
    const perPage = Number(q.get('per_page') ?? 50);
    const sort = q.get('sort') ?? list.sorts[0];
    const order = q.get('order') ?? list.defaultOrder ?? 'desc';
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > 100) {
      return fail(res, 400, 'VALIDATION_ERROR', 'page or per_page out of range');
    }
    // The sort name goes into the SQL text: only the whitelisted ones.
    if (!list.sorts.includes(sort) || (order !== 'asc' && order !== 'desc')) {
      return fail(res, 400, 'VALIDATION_ERROR', `sort must be one of: ${list.sorts.join(', ')}; order asc or desc`);
    }
    const pageQuery = { sort, dir: order === 'asc' ? 'ASC' : 'DESC', limit: perPage, offset: (page - 1) * perPage } as const;
    loadTarget(pool, caller, params.user_id)
      .then((target) => {
        const ctx: Ctx = { caller, params, target, memberIndexes };
        // Page and count in parallel on two pooled connections: the latency is the slower of the two.
        return Promise.all([rows(pool, list.page(ctx, pageQuery)), countOf(list.count(ctx))]);
      })
      .then(([found, total]) =>
        send(res, 200, {
          status: 'success',
          data: found.map(toItem),
          meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage), sort, order },
        }),
      )
      .catch((err: unknown) => {
        process.stderr.write(`floor: ${req.url}: ${err instanceof Error ? err.message : String(err)}\n`);
        if (!res.headersSent) fail(res, 500, 'SERVER_ERROR', 'Internal error');
      });
  });
  // Long keep-alive: autocannon's connections stay open for the whole run, as they do against the API.
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : '?';
    process.stdout.write(`floor listening on ${port} (counts: ${cached ? 'cached' : 'exact'}, member lists: ${memberIndexes ? 'membership indexes' : 'users walk'})\n`);
  });
  const stop = () => {
    server.close(() => void pool.end().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`floor: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
