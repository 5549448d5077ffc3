/**
 * Who a Slack channel message speaks to (docs/conversations.md#slack), read the same way from the Events API's
 * `message` event (webhook.ts) and from the Web API's conversation history (history.ts): the same message, seen both
 * ways, is the same ChatMessage, so its interactions are stored once.
 */
import { z } from 'zod';
import type { ChatMessage } from '../../services/activity/conversations';

export const slackId = z.string().regex(/^[A-Z0-9]{1,30}$/, { error: 'a Slack id: capital letters and digits' });
/** Seconds since the epoch, with Slack's digits after the point: ten digits of seconds reach the year 2286. */
export const ts = z.string().regex(/^\d{9,10}\.\d{1,9}$/, { error: "a Slack message ts, such as '1719209649.631399'" });

/** The fields of a message someone wrote that say whom it speaks to; its text is read for mentions, never kept. */
export const spokenMessage = z.looseObject({
  user: slackId,
  ts,
  text: z.string().max(100_000).default(''),
  thread_ts: ts.nullish(),
  parent_user_id: slackId.nullish(),
  root: z.looseObject({ user: slackId.nullish() }).nullish(),
});
export type SpokenMessage = z.infer<typeof spokenMessage>;

/** Why a message of this subtype is not someone speaking to someone, or null when it may be. */
export function unspoken(subtype: string | null | undefined): string | null {
  // A reply also sent to the channel is still a reply; edits, joins, bots' messages and the rest are not someone speaking.
  if (subtype && subtype !== 'thread_broadcast') return `a ${subtype} message is not someone speaking to someone`;
  return null;
}

/**
 * The conversation a message in `channel` makes: its author to those it mentions and to the author of the thread it
 * replies in, leaving out the author and the app's own bot (`bots`); null when that leaves no one.
 */
export function conversationOf(message: SpokenMessage, channel: string, bots: ReadonlySet<string>): ChatMessage | null {
  const replyTo = message.thread_ts && message.thread_ts !== message.ts ? [message.parent_user_id ?? message.root?.user ?? ''] : [];
  const people = [...new Set([...mentioned(message.text), ...replyTo])].filter((u) => u && u !== message.user && !bots.has(u));
  if (people.length === 0) return null;
  return { channel, messageId: message.ts, sender: message.user, counterparts: people, at: new Date(Number(message.ts) * 1000) };
}

/** The accounts a message mentions: `<@U…>` in its text (its rich text blocks name the same). */
const mentioned = (text: string): string[] => [...text.matchAll(/<@([UW][A-Z0-9]{1,30})(?:\|[^>]*)?>/g)].map((m) => m[1]);
