import type { RateLimiter } from '../rateLimit/rateLimiter';
import { HEAD_REFUSAL_MESSAGES, HeadRefusalKind, HeadRefuser, limitedHeadRefuser } from '../wire/headRefusals';
import { errorEnvelope } from '../wire/envelopes';
import { ingestAnswer, IngestErrorCode, rateLimited, toIngestAnswer } from './errors';

const CODES: Record<HeadRefusalKind, IngestErrorCode> = {
  malformed: 'VALIDATION_ERROR',
  timeout: 'REQUEST_TIMEOUT',
  url_too_long: 'URI_TOO_LONG',
  headers_too_large: 'HEADERS_TOO_LARGE',
};

/** Refused heads on /ingest: the ingest error envelope. */
export function ingestHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return limitedHeadRefuser(limiter, (refused) => {
    const error = 'overLimit' in refused ? toIngestAnswer(rateLimited(refused.overLimit))! : ingestAnswer(CODES[refused.kind], HEAD_REFUSAL_MESSAGES[refused.kind]);
    return { status: error.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(errorEnvelope(error.code, error.message)) };
  });
}
