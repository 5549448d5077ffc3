import type { RateLimitDecision, RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitHeaders } from '../rateLimit/headers';

/**
 * Requests Node refuses before any router sees them: what each surface needs to answer one in its own terms
 * (src/http/server.ts writes the answer; REST, SCIM and ingest each render it).
 */

/** Node's parser limit on a request head (URL and headers together). */
export const MAX_HEAD_BYTES = 16 * 1024;

/** What Node refused before express saw the request. */
export type HeadRefusalKind = 'malformed' | 'timeout' | 'url_too_long' | 'headers_too_large';

export interface HeadRefusal {
  kind: HeadRefusalKind;
  /** The request's path as far as it arrived ('' when none did). */
  path: string;
  /** The peer's address: a refused head has no headers to read a forwarded address from. */
  clientIp: string;
}

/** A whole answer, written to the socket as it is. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Each surface answers refused heads in its own terms (error format, rate-limit tier). */
export type HeadRefuser = (refusal: HeadRefusal) => Promise<RawAnswer>;

export const HEAD_REFUSAL_MESSAGES: Record<HeadRefusalKind, string> = {
  malformed: 'Malformed HTTP request; send a valid HTTP/1.1 request',
  timeout: 'The request did not arrive in time; send the whole request without pausing',
  url_too_long: `Request URL is too long: the URL and headers together may be at most ${MAX_HEAD_BYTES / 1024} KB; send fewer or shorter query parameters`,
  headers_too_large: `Request headers are too large: the URL and headers together may be at most ${MAX_HEAD_BYTES / 1024} KB; check the Authorization header and drop unneeded headers`,
};

export const HEAD_REFUSAL_STATUS: Record<HeadRefusalKind, number> = { malformed: 400, timeout: 408, url_too_long: 414, headers_too_large: 431 };


/** A surface's own answer to a refused head, or to a client over its limit. */
export interface RefusalAnswer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * A surface's refuser: the client-IP tier of its limiter is charged (the point is spent as for any failed request)
 * and its headers sent; the answer, in the surface's format, is the refusal or, over the limit, a 429.
 */
export function limitedHeadRefuser(
  limiter: RateLimiter,
  answer: (refused: { kind: HeadRefusalKind } | { overLimit: RateLimitDecision }) => RefusalAnswer,
): HeadRefuser {
  return async ({ kind, clientIp }) => {
    const decision = await limiter.consume(`ip:${clientIp}`).catch(() => undefined);
    const { status, contentType, body } = answer(decision && !decision.allowed ? { overLimit: decision } : { kind });
    return { status, headers: { 'Content-Type': contentType, ...(decision ? rateLimitHeaders(decision) : {}) }, body };
  };
}
