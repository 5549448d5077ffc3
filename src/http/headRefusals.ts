import type { RateLimiter } from '../rateLimit/rateLimiter';
import { HEAD_REFUSAL_MESSAGES, HeadRefusalKind, HeadRefuser, limitedHeadRefuser } from '../wire/headRefusals';
import { errorBody } from './errors';
import { rateLimited } from './gate';
import { ErrorCode, restError, toRestError } from '../wire/errorMapping';

const CODES: Record<HeadRefusalKind, ErrorCode> = {
  malformed: 'VALIDATION_ERROR',
  timeout: 'REQUEST_TIMEOUT',
  url_too_long: 'URI_TOO_LONG',
  headers_too_large: 'HEADERS_TOO_LARGE',
};

/** Refused heads on /v1, /trpc and every path of no other surface: the error envelope with a code of its own. */
export function restHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return limitedHeadRefuser(limiter, (refused) => {
    const error = 'overLimit' in refused ? toRestError(rateLimited(refused.overLimit)) : restError(CODES[refused.kind], HEAD_REFUSAL_MESSAGES[refused.kind]);
    return { status: error.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(errorBody(error)) };
  });
}
