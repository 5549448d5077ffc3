import type { NextFunction, Request, Response } from 'express';

export interface ObservedResponse {
  /** By the path's mount: rest, trpc, scim, ingest, otlp, settings, dashboards, or service (health, docs, anything else). */
  surface: string;
  method: string;
  /** The route's template (`/v1/users/{id}`, `/scim/v2/Users/:id`), never the raw path: no id or e-mail in it. */
  route: string;
  status: number;
  seconds: number;
  /**
   * Why it failed on our side: `database_unavailable` or `redis_unavailable` (503: a store out of reach, see
   * src/observability/responseFailures.ts), `server_error` (500: a fault of ours). Undefined for everything else.
   */
  failure?: string;
}

/** Where each surface is mounted (src/http/app.ts, src/runtime/surfaces.ts), longest first. */
const SURFACES: [prefix: string, surface: string][] = [
  ['/scim/v2', 'scim'],
  ['/v1', 'rest'],
  ['/trpc', 'trpc'],
  ['/ingest', 'ingest'],
  ['/otlp', 'otlp'],
  ['/auth', 'settings'],
  ['/settings', 'settings'],
  ['/dashboards', 'dashboards'],
];

const surfaceOf = (path: string) => SURFACES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1] ?? 'service';

/**
 * Tells `observe` of every response once it is sent. The route is, in order: what the handler named in
 * `res.locals.route` (REST and tRPC, whose routing is not express's), the express route that matched, the
 * surface's mount (`/docs/*`, or a request its gate refused before routing), and otherwise `unmatched`.
 */
export function observeResponses(observe: (response: ObservedResponse) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // Express sets req.route when a route matches, while req.baseUrl is that router's mount path; by the time an
    // error reaches a surface's error handler, the mount path has been undone. So the template is read at the match.
    let matched: unknown;
    let template: string | undefined;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => matched,
      set(route: { path?: unknown } | undefined) {
        matched = route;
        if (typeof route?.path === 'string') template = `${req.baseUrl}${route.path}`;
      },
    });
    res.once('finish', () => {
      const named = typeof res.locals.route === 'string' ? res.locals.route : template;
      const path = req.originalUrl.split('?')[0];
      const mount = [...SURFACES.map(([prefix]) => prefix), '/docs'].find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
      const route = named ?? (mount && res.statusCode !== 404 ? `${mount}/*` : 'unmatched');
      const failure = typeof res.locals.failure === 'string' ? res.locals.failure : res.statusCode === 500 ? 'server_error' : undefined;
      observe({ surface: surfaceOf(path), method: req.method, route, status: res.statusCode, seconds: Number(process.hrtime.bigint() - started) / 1e9, failure });
    });
    next();
  };
}
