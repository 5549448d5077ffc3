import type { NextFunction, Request, Response } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { Logger } from '../logger';
import type { AppRouter } from '../procedures';
import { isServerFault, rootCause, toRestError } from '../wire/errorMapping';
import { errorBody } from './errors';
import { linkHeaderFor } from './links';
import { noteFailure } from '../observability/responseFailures';

/**
 * The REST façade: trpc-to-openapi routes `GET /v1/...` to the procedures. The adapter writes its own error
 * body, so the response is rewritten into the error envelope (docs/api.md#envelopes-and-errors) as it is sent, from the error it reported.
 */
export function restHandler(router: AppRouter, logger: Logger, basePath: string) {
  const errors = new WeakMap<Request, unknown>();
  const handler = createOpenApiNodeHttpHandler<AppRouter, Request, Response>({
    router,
    createContext: ({ req }) => req.apiContext!,
    // Lists link their neighbouring pages (RFC 8288), keeping the caller's other parameters.
    responseMeta: ({ data, errors: failed, info }) => {
      const link = failed.length || !info ? undefined : linkHeaderFor(data[0], basePath + info.url!.pathname, info.url!.searchParams);
      return link ? { headers: { Link: link } } : {};
    },
    onError: ({ error, req }) => {
      errors.set(req, error);
      if (req.res) noteFailure(req.res, error);
      if (isServerFault(error)) logger.error({ err: rootCause(error), reqId: req.id }, 'procedure failed');
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (errors.has(req)) {
        const rest = toRestError(errors.get(req));
        const body = JSON.stringify(errorBody(rest));
        res.statusCode = rest.status;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Content-Length', Buffer.byteLength(body));
        if (rest.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(rest.retryAfterSeconds));
        return end(body);
      }
      return end(...args);
    }) as Response['end'];
    handler(req, res, next).catch(next);
  };
}
