import type { RateLimiter } from '../rateLimit/rateLimiter';
import { HEAD_REFUSAL_MESSAGES, HEAD_REFUSAL_STATUS, HeadRefuser, limitedHeadRefuser } from '../wire/headRefusals';
import { statusBody, toOtlpFailure } from './errors';
import { rateLimited } from './router';

/** Refused heads on /otlp: a google.rpc.Status in JSON (no Content-Type arrived to choose protobuf by). */
export function otlpHeadRefuser(limiter: RateLimiter): HeadRefuser {
  return limitedHeadRefuser(limiter, (refused) => {
    const failure =
      'overLimit' in refused
        ? toOtlpFailure(rateLimited(refused.overLimit), 0)!
        : { status: HEAD_REFUSAL_STATUS[refused.kind], code: 3, message: HEAD_REFUSAL_MESSAGES[refused.kind] };
    const { contentType, body } = statusBody(failure, false);
    return { status: failure.status, contentType, body: body.toString('utf8') };
  });
}
