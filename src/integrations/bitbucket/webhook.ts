import { invalid } from '../../errors';
import type { Delivery, Webhook } from '../provider';
import { checkHubSignature, header, jsonBody, namedDeliveryId } from '../webhook';
import { BITBUCKET_EVENTS, BitbucketEvent, bitbucketActivity } from './activity';

/**
 * Bitbucket Cloud's repository and workspace webhooks (docs/ingest.md#bitbucket-cloud), `POST /ingest/bitbucket/{git_app_id}`:
 * `X-Hub-Signature` signs the body as GitHub's does, `X-Event-Key` names the event and `X-Request-UUID` the
 * delivery, kept on a retry and on a resend from the webhook's request history.
 */
export const bitbucketWebhook: Webhook = {
  eventHeader: 'x-event-key',
  // "Webhook payload is limited to 256 KB" (support.atlassian.com, Bitbucket Cloud: Troubleshoot webhooks).
  bodyLimitBytes: 256 * 1024,
  authenticate: {
    body: (headers, body, secrets) => checkHubSignature('X-Hub-Signature', headers, body, secrets, "set the webhook's secret to the one `npm run gitapps` printed"),
  },
  parse({ headers, body }): Delivery {
    const event = header(headers, 'x-event-key');
    if (!event) throw invalid('Missing X-Event-Key header: Bitbucket names the event there');
    const id = namedDeliveryId(header(headers, 'x-request-uuid'), 'X-Request-UUID', 'Bitbucket names each delivery there');
    if (!isBitbucketEvent(event)) return { id, event, ignored: `event '${event}' is not stored by this service` };
    const result = bitbucketActivity(event, jsonBody(headers, body));
    return 'ignored' in result ? { id, event, ...result } : { id, event, activity: result };
  },
};

const isBitbucketEvent = (event: string): event is BitbucketEvent => (BITBUCKET_EVENTS as readonly string[]).includes(event);
