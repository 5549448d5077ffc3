import type { RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitHeaders } from '../rateLimit/headers';
import { HEAD_REFUSAL_MESSAGES, HeadRefusalKind, HeadRefuser } from '../wire/headRefusals';
import { ingestAnswer, IngestErrorCode, toIngestAnswer } from './errors';
import { errorEnvelope } from '../wire/envelopes';
import { rateLimited } from './router';

const CODES: Record<HeadRefusalKind, IngestErrorCode> = {
  malformed: 'VALIDATION_ERROR',
  timeout: 'REQUEST_TIMEOUT',
  url_too_long: 'URI_TOO_LONG',
  headers_too_large: 'HEADERS_TOO_LARGE',
};

/** Refused heads on /ingest: the ingest error envelope, with the rate-limit headers of its client-IP tier. */
export function ingestHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return async ({ kind, clientIp }) => {
    const decision = await limiter.consume(`ip:${clientIp}`).catch(() => undefined);
    const error = decision && !decision.allowed ? toIngestAnswer(rateLimited(decision), 0)! : ingestAnswer(CODES[kind], HEAD_REFUSAL_MESSAGES[kind]);
    return {
      status: error.status,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...(decision ? rateLimitHeaders(decision) : {}) },
      body: JSON.stringify(errorEnvelope(error.code, error.message)),
    };
  };
}
