import type { RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitMessage } from '../rateLimit/headers';
import { HEAD_REFUSAL_MESSAGES, HEAD_REFUSAL_STATUS, HeadRefuser, limitedHeadRefuser } from '../wire/headRefusals';
import { ScimError, scimErrorBody } from './errors';
import { SCIM_CONTENT_TYPE } from './respond';

/** Refused heads on /scim/v2: a SCIM error body. */
export function scimHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return limitedHeadRefuser(limiter, (refused) => {
    const error =
      'overLimit' in refused
        ? new ScimError(429, undefined, rateLimitMessage(refused.overLimit))
        : new ScimError(HEAD_REFUSAL_STATUS[refused.kind], refused.kind === 'malformed' ? 'invalidSyntax' : undefined, HEAD_REFUSAL_MESSAGES[refused.kind]);
    return { status: error.status, contentType: SCIM_CONTENT_TYPE, body: JSON.stringify(scimErrorBody(error)) };
  });
}
