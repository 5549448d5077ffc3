import { randomUUID } from 'node:crypto';
import express from 'express';
import helmet from 'helmet';
import compression from 'compression';
import cors from 'cors';
import { pinoHttp } from 'pino-http';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Logger } from '../logger';
import type { AppRouter } from '../procedures';
import { buildOpenApiDocument } from '../openapi';
import { isServerFault, rootCause, toRestError } from '../wire/errorMapping';
import { noteFailure } from '../observability/responseFailures';
import { GateDeps, publicDocumentGate, refundPoint, requestGate } from './gate';
import { conditionalGet } from './conditional';
import { errorHandler, notFoundHandler } from './errors';
import { restHandler } from './rest';
import { docsRouter } from './docs';
import { observeResponses, ObservedResponse } from './observeResponses';
import { restOperations } from './restOperations';
import { recordAnswers, shareIdenticalRequests } from './sharedAnswers';
import type { ProcedureMeta } from '../procedures/init';

export interface AppDeps extends GateDeps {
  router: AppRouter;
  logger: Logger;
  version: string;
  /** `info.contact.url` of the served OpenAPI document. */
  contactUrl: string;
  trustProxy?: string;
  /** Origins allowed to call from a browser (`*` for any); empty turns CORS off. */
  corsOrigins: string[];
  /** Readiness: resolves when the database (and Redis, if configured) answer. */
  readiness: () => Promise<Record<string, 'ok' | 'down'>>;
  /** Figures shown beside the checks, never failing readiness (outgoing webhooks: counts, failures, queue lag). */
  readinessDetail?: () => Record<string, unknown>;
  lifecycle: { draining: boolean };
  /** Told of every response once sent (the service's metrics, when METRICS_PORT is set). */
  observeResponse?: (response: ObservedResponse) => void;
  /**
   * The other surfaces, each a transport of its own (its tokens, limits and error format) mounted at its path:
   * SCIM at /scim/v2 (docs/scim.md), git activity at /ingest (docs/ingest.md). The runtime builds them. A surface
   * whose answers are small (`smallAnswers`: a few hundred bytes, at most a few KB) is never compressed.
   */
  surfaces: { path: string; router: express.Router; smallAnswers?: true }[];
  /** Rises whenever this process learns of a change to the data: identical requests share no answer across it. */
  dataGeneration: () => number;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Browsers may call /v1 and /trpc from the named origins. Preflights are answered here, before the gate: no
 * token, no rate-limit point. Tokens travel in the Authorization header, never in cookies, so no credentials.
 */
function corsFor(origins: string[]) {
  return cors({
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Link', 'ETag', 'X-Request-Id'],
    maxAge: 600,
  });
}

/**
 * Every response is timed from its arrival. REST and tRPC route by path themselves, so their route template is
 * named here, before they run: the OpenAPI template of a /v1 path, the procedure of a /trpc call.
 */
function observeRoutes(app: express.Express, router: AppRouter, observe: (response: ObservedResponse) => void) {
  const restOperation = restOperations(router, '/v1');
  const procedures = new Set(Object.keys(router._def.procedures));
  app.use(observeResponses(observe));
  app.use('/v1', (req, res, next) => {
    const operation = restOperation(`/v1${req.path}`);
    if (operation) res.locals.route = operation.template;
    next();
  });
  app.use('/trpc', (req, res, next) => {
    const names = req.path.slice(1).split(',');
    if (names.every((name) => procedures.has(name))) res.locals.route = names.length === 1 ? `/trpc/${names[0]}` : '/trpc/(batch)';
    next();
  });
}

/** HEAD is answered as GET (the same status and headers; Node sends no body for HEAD). */
function headAsGet(req: express.Request, res: express.Response, next: express.NextFunction) {
  if (req.method === 'HEAD') {
    req.method = 'GET';
    res.locals.head = true;
  }
  next();
}

/** Which requests may share an answer: those for procedures declared `sharedAnswer` (all of a /trpc batch's calls). */
function sharing(router: AppRouter, dataGeneration: () => number) {
  // Only the declared operations are matched: a list request is told apart from them by a handful of patterns.
  const sharedOperation = restOperations(router, '', (meta) => meta.sharedAnswer === true);
  // tRPC's procedures by path (`metrics.dora`); their typings name the nested record, not this flat one.
  const declared = new Set(
    Object.entries(router._def.procedures)
      .filter(([, procedure]) => (Reflect.get(Reflect.get(procedure as object, '_def') ?? {}, 'meta') as ProcedureMeta | undefined)?.sharedAnswer)
      .map(([name]) => name),
  );
  return {
    rest: shareIdenticalRequests({ shareable: (req) => sharedOperation(req.path) !== undefined, dataGeneration }),
    trpc: shareIdenticalRequests({ shareable: (req) => req.path.slice(1).split(',').every((name) => declared.has(name)), dataGeneration }),
  };
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.trustProxy) app.set('trust proxy', deps.trustProxy);
  if (deps.observeResponse) observeRoutes(app, deps.router, deps.observeResponse);

  // Reuse a well-formed incoming X-Request-Id so a request can be followed across services.
  const requestId = (req: express.Request, res: express.Response) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    return id;
  };
  if (deps.logger.isLevelEnabled('info')) {
    app.use(
      pinoHttp({
        logger: deps.logger,
        genReqId: requestId,
        customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
        serializers: {
          req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
      }),
    );
  } else {
    // No request log lines at this level: pino-http's per-request child logger and listeners would cost about
    // a tenth of a small list's CPU for nothing. Failures are still logged where they are handled.
    app.use((req, res, next) => {
      req.id = requestId(req, res);
      next();
    });
  }
  // Before compression: a shared answer is recorded as it goes to the socket (sharedAnswers.ts).
  app.use(['/v1', '/trpc'], recordAnswers);
  app.use(helmet());
  // Bodies of 1 KB and more are compressed (br or gzip) when the client accepts it. The answers of webhook and
  // telemetry surfaces are a few hundred bytes (an OTLP partial success at most about 2 KB): they skip the
  // middleware, whose cost on every delivery is more than compressing the rare larger answer would save.
  const compress = compression({ threshold: 1024 });
  const small = deps.surfaces.filter((s) => s.smallAnswers).map((s) => `${s.path}/`);
  app.use((req, res, next) => (small.some((prefix) => req.path.startsWith(prefix)) ? next() : compress(req, res, next)));
  app.use((_req, res, next) => {
    if (deps.lifecycle.draining) res.setHeader('Connection', 'close');
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await deps.readiness();
    const ready = Object.values(checks).every((c) => c === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks, ...deps.readinessDetail?.() });
  });

  if (deps.corsOrigins.length) app.use(['/v1', '/trpc'], corsFor(deps.corsOrigins));
  app.use(['/v1', '/trpc'], headAsGet);
  const notModified = (res: express.Response) => refundPoint(deps.limiter, res);

  const document = JSON.stringify(buildOpenApiDocument(deps.router, deps.version, deps.contactUrl));
  app.get('/v1/openapi.json', publicDocumentGate(deps.limiter), conditionalGet(notModified), (_req, res) => {
    res.type('application/json; charset=utf-8').end(document);
  });

  const shared = sharing(deps.router, deps.dataGeneration);
  app.use('/v1', conditionalGet(notModified), requestGate(deps, 'rest'), shared.rest, restHandler(deps.router, deps.logger, '/v1'), notFoundHandler);
  app.use(
    '/trpc',
    requestGate(deps, 'trpc'),
    shared.trpc,
    createExpressMiddleware({
      router: deps.router,
      createContext: ({ req }) => req.apiContext!,
      onError: ({ error, req }) => {
        if (isServerFault(error)) deps.logger.error({ err: rootCause(error), reqId: req.id }, 'procedure failed');
        if (req.res) noteFailure(req.res, error);
      },
      // As on REST: a 503 (a race lost, the database out of reach) or a 429 says when to try again; in a batch, the
      // longest wait of its calls.
      responseMeta: ({ errors }) => {
        const wait = Math.max(0, ...errors.map((e) => toRestError(e).retryAfterSeconds ?? 0));
        return wait ? { headers: { 'Retry-After': String(wait) } } : {};
      },
    }),
  );

  for (const surface of deps.surfaces) app.use(surface.path, surface.router);

  // Outside /v1, so not behind the gate: a static page for people; its requests to /v1 are gated as usual.
  app.use('/docs', docsRouter());

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
