/**
 * Slack's Web API as the history row serves it under `/api` (src/integrations/slack/history.ts and messagePages.ts read
 * it, `npm run import -- slack` links the members by e-mail first): `users.list`, `users.conversations`, `auth.test`,
 * `conversations.history` (a channel's messages within `oldest`/`latest`, newest first, by `cursor`) and
 * `conversations.replies` (a thread's parent, then its replies). Every object is a recorded one
 * (test/fixtures/history/slack/README.md: Slack's documented channels and auth.test, slackdump's recorded thread;
 * test/support/peers/slack/README.md: the message with mentions and the user of users.info, as Slack sent them) with
 * its ids, people and times replaced. A channel's messages mention two members each, as the recorded one mentions two
 * people and its author; every fourth is instead a thread's parent, whose replies are by others.
 */
import { recorded, recordedList, varied } from './fixtures';
import { before, FakeAnswer, FakeApi, memberAt, notFound, share, spreadTime, tokenOf, World } from './world';

const channelTemplate = recorded('fixtures/history/slack/usersConversations.json').channels[0];
const authTest = recorded('fixtures/history/slack/authTest.json');
const recordedChannel = recordedList('fixtures/history/slack/slackdump/chan1.json');
const parentTemplate = recordedChannel.find((m) => m.reply_count)!;
const replyTemplate = recordedList('fixtures/history/slack/slackdump/chan1_thread_1736478630.905399.json').find((m) => m.user !== m.parent_user_id)!;
const mentionTemplate = recorded('support/peers/slack/messageWithUserMentions.json').event;
const userTemplate = recorded('support/peers/slack/usersInfo.json').user;

export const slackSizes = (quick: boolean) => (quick ? { channels: 5, messages: 2_000, replies: 1_000 } : { channels: 50, messages: 60_000, replies: 30_000 });

const PAGE = 200;
const slackUser = (world: World, i: number) => `UB${String(memberAt(world, i).providerId).padStart(8, '0')}`;
const channelId = (c: number) => `CBENCH${String(c).padStart(3, '0')}`;
/** A Slack ts for a time: its seconds, and six digits of which the last three keep two messages of a millisecond apart. */
const tsOf = (ms: number, n: number) => `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}${String(n % 1000).padStart(3, '0')}`;

function member(world: World, i: number) {
  const m = world.members[i];
  const name = m.login;
  return { ...userTemplate, id: slackUser(world, i), name, real_name: name, profile: { ...userTemplate.profile, real_name: name, display_name: name, real_name_normalized: name, display_name_normalized: name, email: m.email } };
}

/** Channel `c`'s message of rank `k` (0: the newest). */
function message(world: World, c: number, k: number) {
  const { sizes } = world;
  const count = share(sizes.messages, sizes.channels, c);
  const g = before(sizes.messages, sizes.channels, c) + k;
  const ms = spreadTime(world, k, count, c);
  const ts = tsOf(ms, g);
  const author = slackUser(world, g);
  if (g % 4 === 0) {
    const replies = share(sizes.replies, Math.ceil(sizes.messages / 4), g / 4);
    const repliers = Array.from({ length: replies }, (_, j) => slackUser(world, g + 1 + j));
    return {
      listed: varied(parentTemplate, { client_msg_id: `bench-${g}`, user: author, ts, thread_ts: ts, reply_count: replies, reply_users: [...new Set(repliers)], latest_reply: tsOf(ms + replies * 60_000, g), last_read: tsOf(ms + replies * 60_000, g), team: parentTemplate.team }),
      g,
      ms,
      replies: repliers.map((user, j) => varied(replyTemplate, { client_msg_id: `bench-${g}-${j}`, user, ts: tsOf(ms + (j + 1) * 60_000, g), thread_ts: ts, parent_user_id: author })),
    };
  }
  const mentioned = [slackUser(world, g + 1), slackUser(world, g + 2), author];
  const [section] = mentionTemplate.blocks[0].elements;
  let nth = 0;
  const elements = section.elements.map((e: Record<string, unknown>) => (e.type === 'user' ? { ...e, user_id: mentioned[nth++] } : e));
  const { channel: _channel, event_ts: _eventTs, channel_type: _type, ...fields } = mentionTemplate;
  return {
    listed: varied(fields, {
      client_msg_id: `bench-${g}`,
      user: author,
      ts,
      text: `<@${mentioned[0]}> <@${mentioned[1]}> <@${mentioned[2]}> hello, this is a message with mentions`,
      blocks: [{ ...mentionTemplate.blocks[0], elements: [{ ...section, elements }] }],
    }),
    g,
    ms,
    replies: [],
  };
}

/** Slack's cursor pagination: an opaque `next_cursor` (here the offset, base64 as Slack's are) until the last page. */
const cursorOf = (offset: number) => Buffer.from(`next_offset:${offset}`).toString('base64');
const offsetOf = (cursor: string | null) => (cursor ? Number(Buffer.from(cursor, 'base64').toString().split(':')[1] ?? 0) : 0);

function page(key: string, items: unknown[], offset: number, more: boolean, extra: Record<string, unknown> = {}): FakeAnswer {
  return { status: 200, body: { ok: true, [key]: items, ...extra, ...(key === 'messages' ? { has_more: more } : {}), response_metadata: { next_cursor: more ? cursorOf(offset) : '' } } };
}

/** The first rank (0: newest) of a channel's messages sent before `ms` (times fall as ranks rise). */
function firstBelow(world: World, c: number, count: number, ms: number): number {
  let [lo, hi] = [0, count];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spreadTime(world, mid, count, c) < ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function history(world: World, url: URL): FakeAnswer {
  const c = Number(/^CBENCH(\d{3})$/.exec(url.searchParams.get('channel') ?? '')?.[1] ?? -1);
  if (c < 0 || c >= world.sizes.channels) return { status: 200, body: { ok: false, error: 'channel_not_found' } };
  const count = share(world.sizes.messages, world.sizes.channels, c);
  const oldest = Number(url.searchParams.get('oldest') ?? 0) * 1000;
  const latest = Number(url.searchParams.get('latest') ?? Date.now() / 1000) * 1000;
  const first = firstBelow(world, c, count, latest + 1);
  const end = firstBelow(world, c, count, oldest);
  const limit = Math.min(PAGE, Number(url.searchParams.get('limit') ?? 100));
  const from = first + offsetOf(url.searchParams.get('cursor'));
  const to = Math.min(end, from + limit);
  const messages = Array.from({ length: Math.max(0, to - from) }, (_, i) => message(world, c, from + i).listed);
  return page('messages', messages, to - first, to < end, { pin_count: 0 });
}

function replies(world: World, url: URL): FakeAnswer {
  const c = Number(/^CBENCH(\d{3})$/.exec(url.searchParams.get('channel') ?? '')?.[1] ?? -1);
  const ts = url.searchParams.get('ts') ?? '';
  if (c < 0 || c >= world.sizes.channels) return { status: 200, body: { ok: false, error: 'channel_not_found' } };
  const count = share(world.sizes.messages, world.sizes.channels, c);
  // The parent's rank from its time: the message of that rank is the one whose ts this is.
  const k = firstBelow(world, c, count, Math.floor(Number(ts) * 1000) + 1);
  const parent = k < count ? message(world, c, k) : null;
  if (!parent || parent.listed.ts !== ts) return { status: 200, body: { ok: false, error: 'thread_not_found' } };
  // The parent first on every page, as Slack lists it.
  const offset = offsetOf(url.searchParams.get('cursor'));
  const limit = Math.min(PAGE, Number(url.searchParams.get('limit') ?? 100));
  const slice = parent.replies.slice(offset, offset + limit);
  return page('messages', [parent.listed, ...slice], offset + limit, offset + limit < parent.replies.length);
}

export function slackApi(world: World): FakeApi {
  return ({ url, headers }) => {
    if (tokenOf(headers.authorization) !== world.token) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
    const method = url.pathname.replace(/^\/api\//, '');
    const offset = offsetOf(url.searchParams.get('cursor'));
    switch (method) {
      case 'users.list': {
        const limit = Math.min(PAGE, Number(url.searchParams.get('limit') ?? 100));
        const to = Math.min(world.members.length, offset + limit);
        return page('members', Array.from({ length: to - offset }, (_, i) => member(world, offset + i)), to, to < world.members.length);
      }
      case 'users.conversations': {
        const limit = Math.min(PAGE, Number(url.searchParams.get('limit') ?? 100));
        const to = Math.min(world.sizes.channels, offset + limit);
        const channels = Array.from({ length: to - offset }, (_, i) => {
          const c = offset + i;
          return varied(channelTemplate, { id: channelId(c), name: `team-${String(c).padStart(3, '0')}`, name_normalized: `team-${String(c).padStart(3, '0')}`, is_general: false, creator: slackUser(world, c) });
        });
        return page('channels', channels, to, to < world.sizes.channels);
      }
      case 'auth.test':
        return { status: 200, body: authTest };
      case 'conversations.history':
        return history(world, url);
      case 'conversations.replies':
        return replies(world, url);
      default:
        return notFound({ ok: false, error: 'unknown_method' });
    }
  };
}
