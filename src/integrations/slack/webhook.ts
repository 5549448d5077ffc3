import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { invalid, unauthenticated } from '../../errors';
import { readPayload } from '../common/payload';
import type { Delivery, Headers, Webhook } from '../provider';
import { DEFAULT_BODY_LIMIT_BYTES, header, jsonBody } from '../webhook';
import { conversationOf, slackId, spokenMessage, unspoken } from './conversation';

/** How far `X-Slack-Request-Timestamp` may be from our clock, either way: Slack's own advice against replays. */
export const SLACK_TIMESTAMP_TOLERANCE_S = 300;

/**
 * Slack's Events API (docs/conversations.md#slack), `POST /ingest/slack/{app_id}`: `X-Slack-Signature` is `v0=` and the
 * hex HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{body}` keyed with the Slack app's signing secret, the
 * timestamp within five minutes of now. `url_verification` is answered with its challenge; a `message` in a channel
 * that mentions someone or replies in a thread becomes conversations, its text never kept. The event's id names the
 * delivery, so Slack's retries (`X-Slack-Retry-Num`) change nothing.
 */
export const slackWebhook: Webhook = {
  eventHeader: 'x-slack-signature',
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  authenticate: { body: authenticate },

  parse({ headers, body }): Delivery {
    const payload = jsonBody(headers, body);
    const { type } = readPayload(envelope, payload, 'Slack Events API');
    if (type === 'url_verification') return { id: null, event: type, reply: { challenge: readPayload(verification, payload, 'Slack url_verification').challenge } };
    if (type !== 'event_callback') return { id: null, event: type, ignored: `a ${type} request changes no figure` };
    const callback = readPayload(eventCallback, payload, 'Slack event_callback');
    const event = callback.event;
    const base = { id: callback.event_id, event: event.subtype ? `${event.type}.${event.subtype}` : event.type };
    const ignored = ignoredMessage(event);
    if (ignored) return { ...base, ignored };
    const message = readPayload(channelMessage, event, 'Slack message event');
    const bots = new Set((callback.authorizations ?? []).flatMap((a) => (a.is_bot && a.user_id ? [a.user_id] : [])));
    const chat = conversationOf(message, message.channel, bots);
    if (!chat) return { ...base, ignored: 'a message that mentions no one and replies in no thread makes no conversation' };
    return { ...base, messages: [chat] };
  },
};

/** Signed by Slack with one of the secrets, and sent within the tolerance of now. */
function authenticate(headers: Headers, body: Buffer, secrets: string[], now: Date): void {
  const signature = header(headers, 'x-slack-signature');
  const timestamp = header(headers, 'x-slack-request-timestamp');
  if (!signature || !timestamp) throw unauthenticated("Missing X-Slack-Signature or X-Slack-Request-Timestamp: store the Slack app's signing secret in this app (npm run apps -- set-secret)");
  if (!signedBySlack(signature, timestamp, body, secrets)) throw unauthenticated("X-Slack-Signature does not match the body: the Slack app's signing secret differs from this app's");
  const sent = Number(timestamp);
  if (Math.abs(now.getTime() / 1000 - sent) > SLACK_TIMESTAMP_TOLERANCE_S) {
    throw invalid(`stale delivery: X-Slack-Request-Timestamp ${timestamp} is more than ${SLACK_TIMESTAMP_TOLERANCE_S} s from now (${Math.floor(now.getTime() / 1000)}); check the server clock`);
  }
}

/** Every secret compared, on digests of equal length: the time says nothing of which matched. */
function signedBySlack(signature: string, timestamp: string, body: Buffer, secrets: string[]): boolean {
  const given = /^v0=([0-9a-f]{64})$/i.exec(signature)?.[1];
  if (!given || !/^\d{1,12}$/.test(timestamp)) return false;
  const digest = Buffer.from(given, 'hex');
  const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`), body]);
  const matches = secrets.map((secret) => timingSafeEqual(digest, createHmac('sha256', secret).update(base).digest()));
  return matches.includes(true);
}

/** Why a message event makes no conversation, or null when it may. */
function ignoredMessage(event: z.infer<typeof eventCallback>['event']): string | null {
  if (event.type !== 'message') return `event '${event.type}' changes no figure: messages in channels do`;
  const silent = unspoken(event.subtype);
  if (silent) return silent;
  if (event.channel_type !== 'channel' && event.channel_type !== 'group') return 'direct messages are private: only channels make conversations';
  return null;
}

const envelope = z.looseObject({ type: z.string().min(1).max(64) });
const verification = z.looseObject({ challenge: z.string().min(1).max(200) });

const eventCallback = z.looseObject({
  event_id: z.string().regex(/^[A-Za-z0-9]{1,100}$/, { error: "Slack's event id, such as Ev079B6N3H53" }),
  event: z.looseObject({ type: z.string().min(1).max(64), subtype: z.string().max(64).nullish(), channel_type: z.string().max(32).nullish() }),
  authorizations: z.array(z.looseObject({ user_id: z.string().nullish(), is_bot: z.boolean().nullish() })).max(100).nullish(),
});

const channelMessage = spokenMessage.extend({ channel: slackId });
