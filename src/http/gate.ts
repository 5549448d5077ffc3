import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors';
import type { Authenticator } from '../auth/authenticator';
import type { RateLimitDecision, RateLimiter } from '../rateLimit/rateLimiter';
import type { Principal } from '../access/principal';
import type { RequestContext } from '../trpc/context';
import { toApiError } from '../trpc/errorMapping';

declare module 'express-serve-static-core' {
  interface Request {
    apiContext?: RequestContext;
  }
}

export interface GateDeps {
  authenticator: Authenticator;
  limiter: RateLimiter;
  services: RequestContext['services'];
}

export function setRateLimitHeaders(res: Response, d: RateLimitDecision): void {
  res.setHeader('X-RateLimit-Limit', String(d.limit));
  res.setHeader('X-RateLimit-Remaining', String(d.remaining));
  res.setHeader('X-RateLimit-Reset', String(d.resetEpochSeconds));
  if (d.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(d.retryAfterSeconds));
}

function rateLimited(d: RateLimitDecision): ApiError {
  return new ApiError(
    'RATE_LIMITED',
    `Rate limit of ${d.limit} requests exceeded; retry after ${d.retryAfterSeconds} seconds`,
    d.retryAfterSeconds,
  );
}

/** Empty and repeated parameters would otherwise be dropped or reach the schemas as arrays with a vague message. */
function queryProblems(req: Request): string[] {
  const params = [...new URL(req.originalUrl, 'http://localhost').searchParams];
  const names = (list: string[]) => [...new Set(list)].map((k) => `'${k}'`).join(', ');
  const empty = params.filter(([, v]) => v.trim() === '').map(([k]) => k);
  const seen = new Set<string>();
  const repeated = params.map(([k]) => k).filter((k) => seen.has(k) || !seen.add(k));
  const problems: string[] = [];
  if (empty.length) problems.push(`Query parameter(s) ${names(empty)} must not be empty; give a value or leave them out`);
  if (repeated.length) problems.push(`Query parameter(s) ${names(repeated)} must be given only once`);
  return problems;
}

/**
 * Authenticates and rate-limits every request under /v1 and /trpc (one point per HTTP request), sets the
 * X-RateLimit-* headers, and leaves its verdict on `req.apiContext` for the procedures (or the 404 handler)
 * to enforce. Callers are limited per user; failed authentications per client IP.
 */
export function requestGate(deps: GateDeps, options: { rest: boolean; anonymous?: boolean }) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const context: RequestContext = {
      services: deps.services,
      queryProblems: options.rest ? queryProblems(req) : [],
    };
    try {
      let principal: Principal | undefined;
      let failure: ApiError | undefined;
      if (!options.anonymous) {
        try {
          principal = await deps.authenticator.authenticate(req.headers.authorization);
        } catch (err) {
          failure = toApiError(err);
        }
      }
      const decision = await deps.limiter.consume(principal ? `user:${principal.userId}` : `ip:${req.ip}`);
      setRateLimitHeaders(res, decision);
      context.principal = principal;
      context.gateError = decision.allowed ? failure : rateLimited(decision);
      req.apiContext = context;
      next();
    } catch (err) {
      next(err);
    }
  };
}
