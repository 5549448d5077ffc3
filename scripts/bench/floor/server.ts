/**
 * The floor: what answering the API's list paths costs with nothing but node:http and a mysql2 pool. No
 * framework, auth, rate limit, validation library or ORM; the best known plan for each page; the same JSON
 * envelope. The benchmark compares the API with it, so "API req/s / floor req/s" is the price of everything the
 * API adds. Started by `npm run bench` as a child process (from the build output, so it runs as compiled JS
 * like the API does).
 *
 * Environment: PORT, and those of `openFloor` (answer.ts).
 */
import http from 'node:http';
import type { ListDef } from './lists';
import { openFloor } from './answer';
import { listen, runFloor } from './listen';

interface Route {
  pattern: RegExp;
  names: string[];
  list: ListDef;
}

/** OpenAPI templates to regexes; literal segments (`all`, `catalog`) first, as the API registers them. */
function compileRoutes(lists: Record<string, ListDef>): Route[] {
  const routes = Object.entries(lists).map(([template, list]) => {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pattern = new RegExp(`^/v1${template.replace(/\{\w+\}/g, '([^/]+)')}/?$`);
    return { pattern, names, list, params: names.length };
  });
  return routes.sort((a, b) => a.params - b.params);
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

const fail = (res: http.ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { status: 'error', error: { code, message } });

async function main(): Promise<void> {
  const floor = await openFloor();
  const routes = compileRoutes(floor.lists);
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
    floor
      .page(list, params, { page, perPage, sort, order })
      .then((body) => send(res, 200, body))
      .catch((err: unknown) => {
        process.stderr.write(`floor: ${req.url}: ${err instanceof Error ? err.message : String(err)}\n`);
        if (!res.headersSent) fail(res, 500, 'SERVER_ERROR', 'Internal error');
      });
  });
  listen(server, 'floor', floor);
}

runFloor('floor', main);
