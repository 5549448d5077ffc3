import { invalid } from '../../errors';
import { containsNul } from '../../wire/text';
import type { Delivery, Headers, Webhook } from '../provider';
import { checkHubSignature, header, jsonBody, namedDeliveryId } from '../webhook';
import { GITHUB_EVENTS, githubActivity } from './activity';

const MB = 1024 * 1024;

/**
 * GitHub's repository and organization webhooks (docs/ingest.md), `POST /ingest/github/{git_app_id}`:
 * `X-Hub-Signature-256` signs the body with the git app's secret, `X-GitHub-Event` names the event and
 * `X-GitHub-Delivery` the delivery, the same on a redelivery.
 */
export const githubWebhook: Webhook = {
  eventHeader: 'x-github-event',
  // "Payloads are capped at 25 MB" (docs.github.com, Webhook events and payloads).
  bodyLimitBytes: 25 * MB,
  authenticate: {
    body: (headers, body, secrets) => checkHubSignature('X-Hub-Signature-256', headers, body, secrets, "set the webhook's secret to the one `npm run gitapps` printed"),
  },
  parse({ headers, body }): Delivery {
    const event = header(headers, 'x-github-event');
    if (!event) throw invalid('Missing X-GitHub-Event header: GitHub names the event there');
    const id = namedDeliveryId(header(headers, 'x-github-delivery'), 'X-GitHub-Delivery', 'GitHub names each delivery there');
    // Many events are ignored (check runs, workflow jobs, ... when a webhook sends everything): their bodies are not parsed.
    if (!(GITHUB_EVENTS as readonly string[]).includes(event)) return { id, event, ignored: `event '${event}' is not stored by this service` };
    const result = githubActivity(event, payloadOf(headers, body));
    if (result === undefined) return { id, event, ping: true };
    return 'ignored' in result || 'tasks' in result ? { id, event, ...result } : { id, event, activity: result };
  },
};

/** The JSON body; GitHub may also send it form-encoded (`payload=…`) when the webhook's content type says so. */
function payloadOf(headers: Headers, body: Buffer): unknown {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(header(headers, 'content-type') ?? '')) return jsonBody(headers, body);
  const json = new URLSearchParams(body.toString('utf8')).get('payload') ?? '';
  if (!json) throw invalid("A form-encoded delivery carries its JSON in the 'payload' field");
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw invalid('The body is not valid JSON');
  }
  // Git refuses NUL in what it stores; a payload that holds one was not written by a git provider.
  if (containsNul(parsed)) throw invalid('The body holds a NUL character (\\u0000); no field of a delivery may contain one');
  return parsed;
}
