import { Webhook } from 'standardwebhooks';

/**
 * A Standard Webhooks message (https://www.standardwebhooks.com): the body `{"type","timestamp","data"}` and the
 * headers a receiver verifies with the `standardwebhooks` library. Signing is that library's own `sign`, so the
 * two sides cannot drift apart.
 */
export interface OutgoingEvent {
  /** `evt_…`: the `webhook-id`, the same on every attempt and replay, for receivers to deduplicate on. */
  id: string;
  type: string;
  created_at: Date;
  /** The event's `data` as stored in the outbox: JSON text in the `/v1` item shapes. */
  data: string;
}

/** The body, byte for byte as signed: the outbox already holds `data` as JSON, so it is not parsed again. */
export function messageBody(event: OutgoingEvent): string {
  return `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.created_at.toISOString())},"data":${event.data}}`;
}

/**
 * The three headers. `webhook-timestamp` is the attempt's time (a receiver refuses one older than five minutes);
 * during a secret's rotation the message carries a signature per valid secret, separated by spaces, and a
 * receiver with either secret accepts it.
 */
export function signedHeaders(eventId: string, body: string, secrets: readonly string[], at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
