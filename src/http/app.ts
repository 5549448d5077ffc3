import { randomUUID } from 'node:crypto';
import express from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Logger } from '../logger';
import type { AppRouter } from '../procedures';
import { buildOpenApiDocument } from '../openapi';
import { isServerFault } from '../trpc/errorMapping';
import { GateDeps, requestGate } from './gate';
import { errorHandler, notFoundHandler } from './errors';
import { restHandler } from './rest';
import { docsRouter } from './docs';

export interface AppDeps extends GateDeps {
  router: AppRouter;
  logger: Logger;
  version: string;
  trustProxy?: string;
  /** Readiness: resolves when the database (and Redis, if configured) answer. */
  readiness: () => Promise<Record<string, 'ok' | 'down'>>;
  lifecycle: { draining: boolean };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.trustProxy) app.set('trust proxy', deps.trustProxy);

  app.use(
    pinoHttp({
      logger: deps.logger,
      // Reuse a well-formed incoming X-Request-Id so a request can be followed across services.
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(helmet());
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
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks });
  });

  const document = buildOpenApiDocument(deps.router, deps.version);
  app.get('/v1/openapi.json', requestGate(deps, { rest: false, anonymous: true }), (_req, res) => {
    res.json(document);
  });

  app.use('/v1', requestGate(deps, { rest: true }), restHandler(deps.router, deps.logger), notFoundHandler);
  app.use(
    '/trpc',
    requestGate(deps, { rest: false }),
    createExpressMiddleware({
      router: deps.router,
      createContext: ({ req }) => req.apiContext!,
      onError: ({ error, req }) => {
        if (isServerFault(error)) deps.logger.error({ err: error.cause ?? error, reqId: req.id }, 'procedure failed');
      },
    }),
  );

  // Outside /v1, so not behind the gate: a static page for people; its requests to /v1 are gated as usual.
  app.use('/docs', docsRouter());

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
