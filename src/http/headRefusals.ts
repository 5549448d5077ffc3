import type { RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitHeaders } from '../rateLimit/headers';
import { HEAD_REFUSAL_MESSAGES, HeadRefusalKind, HeadRefuser } from '../wire/headRefusals';
import { errorBody } from './errors';
import { ErrorCode, restError, toRestError } from '../trpc/errorMapping';
import { rateLimited } from './gate';

const CODES: Record<HeadRefusalKind, ErrorCode> = {
  malformed: 'VALIDATION_ERROR',
  timeout: 'REQUEST_TIMEOUT',
  url_too_long: 'URI_TOO_LONG',
  headers_too_large: 'HEADERS_TOO_LARGE',
};

/**
 * Refused heads on /v1, /trpc and every path of no other surface: the error envelope with a code of its own, and
 * the rate-limit headers of the client-IP tier (the point is spent as for any failed request).
 */
export function restHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return async ({ kind, clientIp }) => {
    const decision = await limiter.consume(`ip:${clientIp}`).catch(() => undefined);
    const error = decision && !decision.allowed ? toRestError(rateLimited(decision)) : restError(CODES[kind], HEAD_REFUSAL_MESSAGES[kind]);
    return {
      status: error.status,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...(decision ? rateLimitHeaders(decision) : {}) },
      body: JSON.stringify(errorBody(error)),
    };
  };
}
