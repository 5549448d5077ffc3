import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { invalid, unauthenticated } from '../../errors';
import { ignoredLinearChange, linearIssueEvent, linearIssueWebhook, linearWebhook } from '../../trackers/linear';
import { containsNul } from '../../wire/text';
import { header } from '../auth';
import { badRequest } from '../errors';
import { readPayload } from '../payload';
import type { AppWebhooks, Headers } from './appDelivery';

/** How far Linear's `webhookTimestamp` may be from our clock: Linear's own advice against replays. */
export const LINEAR_TIMESTAMP_TOLERANCE_MS = 60_000;

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
/** The latest time a Date holds. */
const MAX_TIME_MS = 8.64e15;

/**
 * Linear's data change webhooks (docs/ingest.md#linear), `POST /ingest/linear/{app_id}`: `Linear-Signature` is the
 * hex HMAC-SHA256 of the raw body with the webhook's signing secret, and the body's `webhookTimestamp` (ms) must be
 * within a minute of now, so a captured delivery cannot be replayed later. `Linear-Delivery` names each delivery.
 */
export const linearWebhooks: AppWebhooks = {
  authenticate(headers, body, secrets, now) {
    const signature = header(headers, 'linear-signature');
    if (!signature) throw unauthenticated("Missing Linear-Signature: set the Linear webhook's signing secret to the app's secret (npm run apps -- rotate-secret)");
    const given = HEX_SHA256.test(signature) ? Buffer.from(signature, 'hex') : null;
    // Every secret is compared, so the time taken does not say which one matched.
    const matches = secrets.map((secret) => given !== null && timingSafeEqual(given, createHmac('sha256', secret).update(body).digest()));
    if (!matches.includes(true)) throw unauthenticated("Linear-Signature does not match the body: the Linear webhook's signing secret differs from the app's");
    // Only now is the body worth reading.
    const sent = webhookTimestamp(body);
    if (Math.abs(now.getTime() - sent) > LINEAR_TIMESTAMP_TOLERANCE_MS) {
      throw invalid(
        `stale delivery: webhookTimestamp ${new Date(sent).toISOString()} is more than ${LINEAR_TIMESTAMP_TOLERANCE_MS / 1000} s from now (${now.toISOString()}); check the server clock or replay`,
      );
    }
  },

  parse(headers, body) {
    const id = deliveryId(headers);
    const payload = json(body);
    const envelope = readPayload(linearWebhook, payload, 'Linear webhook');
    const event = `${envelope.type}:${envelope.action}`;
    const ignored = ignoredLinearChange(envelope);
    if (ignored) return { id, event, outcome: { ignored } };
    const delivery = readPayload(linearIssueWebhook, payload, 'Linear Issue webhook');
    return { id, event, outcome: { tasks: [linearIssueEvent(delivery)] } };
  },

  otherProviders: { 'x-atlassian-webhook-identifier': 'jira', 'x-github-event': 'github', 'x-gitlab-event': 'gitlab' },
};

function deliveryId(headers: Headers): string {
  const id = header(headers, 'linear-delivery');
  if (!id) throw badRequest('Missing Linear-Delivery header: Linear names each delivery there');
  if (!DELIVERY_ID.test(id)) throw badRequest("Linear-Delivery must be 1 to 100 letters, digits, '.', '_', ':' or '-'");
  return id;
}

function json(body: Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('The body is not valid JSON');
  }
  if (containsNul(parsed)) throw badRequest('The body holds a NUL character (\\u0000); no field of a delivery may contain one');
  return parsed;
}

/** The dispatch time Linear signs into every body (ms since the epoch). */
const signedTime = z.looseObject({ webhookTimestamp: z.number().int().min(0).max(MAX_TIME_MS) });

function webhookTimestamp(body: Buffer): number {
  return readPayload(signedTime, json(body), 'Linear webhook').webhookTimestamp;
}
