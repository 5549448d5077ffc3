/**
 * A channel's messages within a window, a Slack page at a time (docs/history.md#slack). `conversations.history`
 * lists the channel's messages, newest first, between `oldest` and `latest`, but not the replies in threads: after
 * each of its pages come the replies (`conversations.replies`, in the same window) of the threads that page listed,
 * a page of replies at a time. The cursor says where that stopped: the history page in work (Slack's `next_cursor`
 * that led to it), and, once its messages were stored, the thread next read and Slack's cursor inside that thread.
 * So a run stopped within a thread resumes within it, after asking for the history page once more to know the threads
 * that follow.
 */
import { z } from 'zod';
import { ProviderFailure } from '../../outbound/providerHttp';
import type { ChatMessage } from '../../services/activity/conversations';
import type { HistoryPage, HistoryScope, HistoryWindow } from '../../services/history/historySource';
import { conversationOf, slackId, spokenMessage, ts, unspoken } from './conversation';
import type { Call, SlackWebApi } from './webApi';

const PAGE_SIZE = 200;
const HISTORY_SCOPES = 'channels:history, groups:history';

const listedMessage = z.looseObject({ subtype: z.string().max(64).nullish(), ts, thread_ts: ts.nullish(), reply_count: z.number().int().nonnegative().nullish() });
const messagesPage = z.looseObject({
  messages: z.array(listedMessage).max(1000),
  response_metadata: z.looseObject({ next_cursor: z.string().nullish() }).nullish(),
});
type ListedMessage = z.infer<typeof listedMessage>;

/** Where a channel's listing resumes; stored as JSON in the history cursor. */
const place = z.strictObject({
  /** Slack's cursor to the history page in work; '' for the first. */
  page: z.string().max(500),
  /** Once that page's own messages are stored: the thread (its parent's ts) whose replies come next… */
  thread: ts.optional(),
  /** …from this cursor inside it ('' from its start). */
  replies: z.string().max(500).optional(),
});
type Place = z.infer<typeof place>;

export async function* messagePages(api: SlackWebApi, scope: HistoryScope, window: HistoryWindow, cursor: string | null): AsyncGenerator<HistoryPage> {
  const bots = await botOf(api, scope);
  let at = placeOf(cursor, scope);
  const timeline = { oldest: slackTime(window.since), latest: slackTime(window.until), inclusive: true, limit: PAGE_SIZE };
  for (;;) {
    const history = await read(api, { method: 'conversations.history', params: { channel: scope.key, ...timeline, cursor: at.page || undefined }, doing: `reading ${scope.name}`, scopes: HISTORY_SCOPES });
    const following: Place | null = history.next ? { page: history.next } : null;
    // The threads this page lists, in its order (newest first); a resumed run starts at the one it stopped in.
    const threads = history.messages.filter((m) => m.reply_count && m.thread_ts === m.ts).map((m) => m.ts);
    const resumeAt = at.thread;
    const todo = resumeAt === undefined ? threads : threads.filter((t) => compareTs(t, resumeAt) <= 0);
    const afterThread = (i: number): Place | null => (i + 1 < todo.length ? { page: at.page, thread: todo[i + 1], replies: '' } : following);
    if (resumeAt === undefined) {
      yield { read: history.messages.length, messages: conversations(history.messages, scope, bots), next: encode(todo.length ? { page: at.page, thread: todo[0], replies: '' } : following) };
    }
    for (const [i, thread] of todo.entries()) {
      let inThread = i === 0 && at.thread === thread ? (at.replies ?? '') : '';
      do {
        const replies = await read(api, {
          method: 'conversations.replies',
          params: { channel: scope.key, ts: thread, ...timeline, cursor: inThread || undefined },
          doing: `reading a thread of ${scope.name}`,
          scopes: HISTORY_SCOPES,
        });
        // Slack lists the thread's parent first on every page (read with the history page), and a reply also sent to
        // the channel is listed by the history too: each is read once, there.
        const own = replies.messages.filter((m) => m.ts !== thread && m.subtype !== 'thread_broadcast');
        inThread = replies.next ?? '';
        yield { read: own.length, messages: conversations(own, scope, bots), next: encode(inThread ? { page: at.page, thread, replies: inThread } : afterThread(i)) };
      } while (inThread);
    }
    if (!following) return;
    at = following;
  }
}

/** A page of messages, checked; `next` is Slack's cursor to the following one, null at the listing's end. */
async function read(api: SlackWebApi, call: Call): Promise<{ messages: ListedMessage[]; next: string | null }> {
  const page = messagesPage.safeParse(await api.call(call));
  if (!page.success) throw new ProviderFailure(`Slack ${call.method}, ${call.doing}: the answer is not what Slack documents (${page.error.issues[0].path.join('.')}: ${page.error.issues[0].message})`);
  return { messages: page.data.messages, next: page.data.response_metadata?.next_cursor || null };
}

/** The conversations the messages make, as the Events API's message events would. */
function conversations(messages: ListedMessage[], scope: HistoryScope, bots: ReadonlySet<string>): ChatMessage[] {
  return messages.flatMap((m) => {
    if (unspoken(m.subtype)) return [];
    // A message without an author (no `user`) is no one speaking.
    const spoken = spokenMessage.safeParse(m);
    const chat = spoken.success ? conversationOf(spoken.data, scope.key, bots) : null;
    return chat ? [chat] : [];
  });
}

/**
 * The app's own bot user, left out of those spoken to as the Events API's `authorizations` leave it out
 * (`auth.test` answers the token's user: for a bot token, the bot's).
 */
async function botOf(api: SlackWebApi, scope: HistoryScope): Promise<ReadonlySet<string>> {
  const answer = z.looseObject({ user_id: slackId.nullish() }).safeParse(await api.call({ method: 'auth.test', params: {}, doing: `before reading ${scope.name}`, scopes: HISTORY_SCOPES }));
  return new Set(answer.success && answer.data.user_id ? [answer.data.user_id] : []);
}

function placeOf(cursor: string | null, scope: HistoryScope): Place {
  if (cursor === null) return { page: '' };
  let stored: unknown;
  try {
    stored = JSON.parse(cursor);
  } catch {
    stored = null;
  }
  const read = place.safeParse(stored);
  if (!read.success) throw new ProviderFailure(`Slack, ${scope.name}: the stored cursor is not one this importer wrote (${cursor.slice(0, 80)})`);
  return read.data;
}

const encode = (at: Place | null): string | null => (at === null ? null : JSON.stringify(at));

/** A time as Slack's `oldest`/`latest` take it: seconds, with the microseconds of a message's ts. */
const slackTime = (at: Date): string => (at.getTime() / 1000).toFixed(6);

/** Two message ts in time order, compared as written: a double cannot hold all of a ts's sixteen digits. */
function compareTs(a: string, b: string): number {
  const key = (t: string) => {
    const [seconds, fraction] = t.split('.');
    return `${seconds.padStart(10, '0')}.${fraction.padEnd(9, '0')}`;
  };
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
