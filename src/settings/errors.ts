import type { NextFunction, Request, Response } from 'express';
import { domainErrorOf, ErrorKind } from '../errors';
import { noteFailure } from '../observability/responseFailures';
import type { Logger } from '../logger';
import { html, sendPage } from './messagePage';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * The sign-in pages' one error mapping: a page for a person, with the domain error's message; anything else is a
 * fault of ours, logged with the request id and shown without detail.
 */
export function signInErrorPage(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) return;
    noteFailure(res, err);
    const domain = domainErrorOf(err);
    if (domain) {
      if (domain.detail.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(domain.detail.retryAfterSeconds));
      return sendPage(res, STATUS[domain.kind], 'Sign-in did not work', html`<p>${domain.message}</p>`);
    }
    // express's body parser: a form too large or badly encoded.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendPage(res, status, 'Sign-in did not work', html`<p>The form could not be read; go back and try again.</p>`);
    logger.error({ err, reqId: req.id }, 'sign-in failed');
    sendPage(res, 500, 'Something went wrong', html`<p>Sign-in failed on our side (request ${String(req.id ?? '')}). Try again in a moment.</p>`);
  };
}
