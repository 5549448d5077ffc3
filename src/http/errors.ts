import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';
import { ApiError, invalid } from '../errors';
import { toApiError } from '../trpc/errorMapping';
import type { ErrorEnvelope } from '../wire/envelopes';

export function errorBody(err: ApiError): ErrorEnvelope {
  return { status: 'error', error: { code: err.code, message: err.message } };
}

export function sendError(res: Response, err: ApiError): void {
  res.status(err.status).json(errorBody(err));
}

/** Unknown routes and methods: still in the envelope, after the gate's 401/429 verdict. */
export function notFoundHandler(req: Request, res: Response): void {
  const gateError = req.apiContext?.gateError;
  if (gateError) return sendError(res, gateError);
  res.status(404).json({
    status: 'error',
    error: { code: 'NOT_FOUND', message: `Route not found: ${req.method} ${req.baseUrl}${req.path}` },
  } satisfies ErrorEnvelope);
}

/** The last express handler: anything thrown becomes the envelope; server faults are logged, never shown. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    // express's own parsers flag client mistakes (e.g. a malformed URL) with a 4xx status.
    const status = (err as { status?: unknown } | null)?.status;
    const fromParser = !(err instanceof ApiError) && typeof status === 'number' && status >= 400 && status < 500;
    const api = fromParser ? invalid('Malformed request') : toApiError(err);
    if (api.code === 'SERVER_ERROR') logger.error({ err, reqId: req.id, path: req.path }, 'request failed');
    if (res.headersSent) return;
    res.status(api.status).json({ status: 'error', error: { code: api.code, message: api.message } } satisfies ErrorEnvelope);
  };
}
