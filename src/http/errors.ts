import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';
import { RestError, restError, toRestError } from '../wire/errorMapping';
import { errorEnvelope } from '../wire/envelopes';
import { noteFailure } from '../observability/responseFailures';

export const errorBody = (err: RestError) => errorEnvelope(err.code, err.message);

export function sendError(res: Response, err: RestError): void {
  if (err.status === 503 && err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  res.status(err.status).json(errorBody(err));
}

/** Unknown routes and methods: still in the envelope, after the gate's 401/429 verdict. */
export function notFoundHandler(req: Request, res: Response): void {
  const gateError = req.apiContext?.gateError;
  if (gateError) return sendError(res, toRestError(gateError));
  sendError(res, restError('NOT_FOUND', `Route not found: ${req.method} ${req.baseUrl}${req.path}`));
}

/** The last express handler: anything thrown becomes the envelope; server faults are logged, never shown. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const rest = toRestError(err);
    if (rest.code === 'SERVER_ERROR') logger.error({ err, reqId: req.id, path: req.path }, 'request failed');
    noteFailure(res, err);
    if (res.headersSent) return;
    sendError(res, rest);
  };
}
