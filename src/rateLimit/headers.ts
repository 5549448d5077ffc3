import type { Response } from 'express';
import type { RateLimitDecision } from './rateLimiter';

/** The rate-limit headers (docs/api.md#rate-limits: on every response), and Retry-After on a refusal. */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetEpochSeconds),
    ...(d.retryAfterSeconds !== undefined ? { 'Retry-After': String(d.retryAfterSeconds) } : {}),
  };
}

export function setRateLimitHeaders(res: Response, d: RateLimitDecision): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(d))) res.setHeader(name, value);
}

/** The one wording of a refusal for too many requests (or deliveries), whatever the surface's format around it. */
export function rateLimitMessage(d: RateLimitDecision, what: 'requests' | 'deliveries' = 'requests'): string {
  return `Rate limit of ${d.limit} ${what} exceeded; retry after ${d.retryAfterSeconds} seconds`;
}
