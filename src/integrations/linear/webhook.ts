import { z } from 'zod';
import { invalid, unauthenticated } from '../../errors';
import { ignoredLinearChange, linearIssueEvent, linearIssueWebhook, linearWebhook as linearEnvelope } from './tasks';
import { readPayload } from '../common/payload';
import type { Webhook } from '../provider';
import { DEFAULT_BODY_LIMIT_BYTES, deliveryIdHeader, header, jsonBody, signedWithOneOf } from '../webhook';

/** How far Linear's `webhookTimestamp` may be from our clock: Linear's own advice against replays. */
export const LINEAR_TIMESTAMP_TOLERANCE_MS = 60_000;

/** The latest time a Date holds. */
const MAX_TIME_MS = 8.64e15;

/**
 * Linear's data change webhooks (docs/trackers.md#linear), `POST /ingest/linear/{app_id}`: `Linear-Signature` is the
 * hex HMAC-SHA256 of the raw body with the webhook's signing secret, and the body's `webhookTimestamp` (ms) must be
 * within a minute of now, so a captured delivery cannot be replayed later. `Linear-Delivery` names each delivery.
 */
export const linearWebhook: Webhook = {
  eventHeader: 'linear-signature',
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  authenticate: {
    body(headers, body, secrets, now) {
      const signature = header(headers, 'linear-signature');
      if (!signature) throw unauthenticated("Missing Linear-Signature: store the signing secret Linear shows on the webhook's page in this app (npm run apps -- set-secret --app <app id> --secret-file <file>)");
      if (!signedWithOneOf(signature, body, secrets)) throw unauthenticated("Linear-Signature does not match the body: the Linear webhook's signing secret differs from the app's (store Linear's with npm run apps -- set-secret)");
      // Only now is the body worth reading.
      const sent = readPayload(signedTime, jsonBody(headers, body), 'Linear webhook').webhookTimestamp;
      if (Math.abs(now.getTime() - sent) > LINEAR_TIMESTAMP_TOLERANCE_MS) {
        throw invalid(
          `stale delivery: webhookTimestamp ${new Date(sent).toISOString()} is more than ${LINEAR_TIMESTAMP_TOLERANCE_MS / 1000} s from now (${now.toISOString()}); check the server clock or replay`,
        );
      }
    },
  },

  parse({ headers, body }) {
    const id = deliveryIdHeader(headers, 'Linear-Delivery', 'Linear names each delivery there');
    const payload = jsonBody(headers, body);
    const envelope = readPayload(linearEnvelope, payload, 'Linear webhook');
    const event = `${envelope.type}:${envelope.action}`;
    const ignored = ignoredLinearChange(envelope);
    if (ignored) return { id, event, ignored };
    const delivery = readPayload(linearIssueWebhook, payload, 'Linear Issue webhook');
    return { id, event, tasks: [linearIssueEvent(delivery)] };
  },
};

/** The dispatch time Linear signs into every body (ms since the epoch). */
const signedTime = z.looseObject({ webhookTimestamp: z.number().int().min(0).max(MAX_TIME_MS) });
