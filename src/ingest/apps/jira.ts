import { createHmac, timingSafeEqual } from 'node:crypto';
import { unauthenticated } from '../../errors';
import { jiraWebhookTasks } from '../../trackers/jira';
import { header } from '../auth';
import { badRequest } from '../errors';
import { AppWebhooks, jsonBody } from './appDelivery';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Jira Cloud's admin webhooks (System → WebHooks, with a secret): `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the
 * body>` keyed with the secret, and `X-Atlassian-Webhook-Identifier`, the same on every retry of a delivery.
 */
export const jiraWebhooks: AppWebhooks = {
  authenticate(headers, body, secrets) {
    const signature = header(headers, 'x-hub-signature');
    if (!signature) throw unauthenticated("Missing X-Hub-Signature: give the Jira webhook the secret `npm run apps` printed (System → WebHooks → Secret)");
    const given = SIGNATURE.exec(signature);
    // Every secret is compared, on digests of equal length, so the time taken says nothing of which matched.
    const matches = secrets.map((secret) => given !== null && timingSafeEqual(Buffer.from(given[1].toLowerCase(), 'hex'), createHmac('sha256', secret).update(body).digest()));
    if (!matches.includes(true)) throw unauthenticated("X-Hub-Signature does not match the body: the Jira webhook's secret differs from the app's");
  },
  parse(headers, body, app) {
    const id = header(headers, 'x-atlassian-webhook-identifier');
    if (!id) throw badRequest('Missing X-Atlassian-Webhook-Identifier header: Jira Cloud sends it with every webhook delivery');
    if (!DELIVERY_ID.test(id)) throw badRequest("X-Atlassian-Webhook-Identifier must be 1 to 100 letters, digits, '.', '_', ':' or '-'");
    const outcome = jiraWebhookTasks(jsonBody(headers, body), app.points_field);
    return { id, event: outcome.event, outcome: 'ignored' in outcome ? { ignored: outcome.ignored } : { tasks: outcome.tasks } };
  },
  otherProviders: { 'linear-signature': 'linear', 'x-github-event': 'github', 'x-gitlab-event': 'gitlab', 'x-slack-signature': 'slack', 'x-pagerduty-signature': 'pagerduty' },
};
