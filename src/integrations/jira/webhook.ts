import { unauthenticated } from '../../errors';
import { jiraWebhookTasks } from './tasks';
import type { Webhook } from '../provider';
import { DEFAULT_BODY_LIMIT_BYTES, deliveryIdHeader, header, jsonBody, signedWithOneOf } from '../webhook';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Jira Cloud's admin webhooks (System → WebHooks, with a secret): `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the
 * body>` keyed with the secret, and `X-Atlassian-Webhook-Identifier`, the same on every retry of a delivery.
 */
export const jiraWebhook: Webhook = {
  eventHeader: 'x-atlassian-webhook-identifier',
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  authenticate: {
    body(headers, body, secrets) {
    const signature = header(headers, 'x-hub-signature');
    if (!signature) throw unauthenticated("Missing X-Hub-Signature: give the Jira webhook the secret `npm run apps` printed (System → WebHooks → Secret)");
    if (!signedWithOneOf(SIGNATURE.exec(signature)?.[1] ?? null, body, secrets)) throw unauthenticated("X-Hub-Signature does not match the body: the Jira webhook's secret differs from the app's");
    },
  },
  parse({ headers, body, settings }) {
    const id = deliveryIdHeader(headers, 'X-Atlassian-Webhook-Identifier', 'Jira Cloud sends it with every webhook delivery');
    const outcome = jiraWebhookTasks(jsonBody(headers, body), settings.pointsField);
    return 'ignored' in outcome ? { id, event: outcome.event, ignored: outcome.ignored } : { id, event: outcome.event, tasks: outcome.tasks };
  },
};
