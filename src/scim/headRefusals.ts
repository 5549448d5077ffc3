import type { RateLimiter } from '../rateLimit/rateLimiter';
import { rateLimitHeaders, rateLimitMessage } from '../rateLimit/headers';
import { HEAD_REFUSAL_MESSAGES, HEAD_REFUSAL_STATUS, HeadRefuser } from '../wire/headRefusals';
import { ScimError, scimErrorBody } from './errors';
import { SCIM_CONTENT_TYPE } from './respond';

/** Refused heads on /scim/v2: a SCIM error body, with the rate-limit headers of the SCIM client-IP tier. */
export function scimHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return async ({ kind, clientIp }) => {
    const decision = await limiter.consume(`ip:${clientIp}`).catch(() => undefined);
    const error =
      decision && !decision.allowed
        ? new ScimError(429, undefined, rateLimitMessage(decision))
        : new ScimError(HEAD_REFUSAL_STATUS[kind], kind === 'malformed' ? 'invalidSyntax' : undefined, HEAD_REFUSAL_MESSAGES[kind]);
    return {
      status: error.status,
      headers: { 'Content-Type': SCIM_CONTENT_TYPE, ...(decision ? rateLimitHeaders(decision) : {}) },
      body: JSON.stringify(scimErrorBody(error)),
    };
  };
}
