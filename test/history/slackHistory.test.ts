import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { slackHistory } from '../../src/integrations/slack/history';
import { slackWebhook } from '../../src/integrations/slack/webhook';
import { CredentialRefused, ProviderFailure } from '../../src/outbound/providerHttp';
import type { HistoryPage, HistoryReading, HistoryScope } from '../../src/services/history/historySource';
import { rawBody } from '../support/peers/slack/deliveries';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * Slack's history importer (src/integrations/slack/history.ts) against a local stand-in for Slack's Web API serving
 * recorded answers (test/fixtures/history/slack/README.md names each one's source): Slack's documented examples,
 * opsdroid's second page of history, a real channel and thread kept by slackdump, and the Events API capture of
 * test/support/peers/slack/ for the message seen both ways. Every call is made by @slack/web-api through our outgoing
 * call rules; the waits go through the reading's sleep, so they take no time here.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/slack', name), 'utf8'));
const TOKEN = 'xoxb-history-test-token';

const documented = {
  channels: fixture('usersConversations.json'),
  created: fixture('conversationsCreate.json'),
  history: fixture('conversationsHistory.json'),
  replies: fixture('conversationsReplies.json'),
  authTest: fixture('authTest.json'),
  invalidAuth: fixture('invalidAuth.json'),
  channelNotFound: fixture('channelNotFound.json'),
};
const secondHistoryPage = fixture('opsdroid/conversationsHistorySecondPage.json');
const channel = fixture('slackdump/chan1.json');
const thread = fixture('slackdump/chan1_thread_1736478630.905399.json');
const THREAD = '1736478630.905399';
const HISTORY_CURSOR = documented.history.response_metadata.next_cursor;
const REPLIES_CURSOR = documented.replies.response_metadata.next_cursor;

const GENERAL: HistoryScope = { key: 'C012AB3CD', name: '#general' };
const WINDOW = { since: new Date('2017-01-01T00:00:00Z'), until: new Date('2026-01-01T00:00:00Z') };

type Route = (method: string, params: URLSearchParams) => ScriptedAnswer;
let route: Route;
const peer = new ScriptedPeer((request, url) => route(url.pathname.replace(/^\/api\//, ''), new URLSearchParams(request.body)));
const calls = () => peer.requests.map((r) => ({ method: r.path.replace(/^\/api\//, ''), params: Object.fromEntries(new URLSearchParams(r.body)) }));
const ok = (body: unknown): ScriptedAnswer => ({ status: 200, body });

let waits: { seconds: number; why: string }[];
let slept: number[];
beforeAll(() => peer.start());
afterAll(() => peer.stop());
beforeEach(() => {
  peer.requests.length = 0;
  waits = [];
  slept = [];
});

/** The reading the runner hands the importer: the fake answers on loopback, which the operator's allowance lets calls reach. */
function reading(allowPrivate = true): HistoryReading {
  return {
    credential: { kind: 'token', token: TOKEN },
    baseUrl: `${peer.base}/api`,
    http: {
      outbound: { allowPrivate, answerMaxBytes: 1024 * 1024, reportMaxBytes: 1024 * 1024 },
      now: () => new Date(),
      sleep: async (ms) => {
        slept.push(ms);
      },
      onWait: (seconds, why) => waits.push({ seconds, why }),
    },
    connection: { id: 'app-slack-history', organizationId: 'org-slack-history' },
  };
}

async function pagesOf(scope: HistoryScope, cursor: string | null = null): Promise<HistoryPage[]> {
  const pages: HistoryPage[] = [];
  for await (const page of slackHistory.pages(reading(), scope, 'messages', WINDOW, cursor)) pages.push(page);
  return pages;
}

/** A page of `conversations.history` or `conversations.replies` in Slack's documented envelope. */
const messages = (list: unknown[], nextCursor = '') => ({ ok: true, messages: list, has_more: nextCursor !== '', response_metadata: { next_cursor: nextCursor } });

describe('channels', () => {
  beforeEach(() => {
    route = (method, params) => {
      if (method !== 'users.conversations') return ok({ ok: false, error: 'unknown_method' });
      // The last page: the documented conversations.create channel, in the listing's envelope (README.md).
      if (params.get('cursor') === documented.channels.response_metadata.next_cursor) return ok({ ok: true, channels: [documented.created.channel], response_metadata: { next_cursor: '' } });
      return ok(documented.channels);
    };
  });

  test('the public and private channels the bot is in, archived ones too, every page, by name; the bot token as a bearer', async () => {
    expect(await slackHistory.scopes(reading())).toEqual([
      { key: 'C0EAQDV4Z', name: '#endeavor' },
      { key: 'C012AB3CD', name: '#general' },
      { key: 'C061EG9T2', name: '#random' },
    ]);
    const listing = { types: 'public_channel,private_channel', exclude_archived: 'false', limit: '200' };
    expect(calls()).toEqual([
      { method: 'users.conversations', params: listing },
      { method: 'users.conversations', params: { ...listing, cursor: 'dGVhbTpDMDYxRkE1UEI=' } },
    ]);
    expect(peer.requests.map((r) => [r.method, r.headers.authorization])).toEqual([
      ['POST', `Bearer ${TOKEN}`],
      ['POST', `Bearer ${TOKEN}`],
    ]);
  });

  test('--repos names them by id or name, with or without #; a channel the bot is not in is refused by name', async () => {
    expect(await slackHistory.scopes(reading(), ['random', '#endeavor', 'C012AB3CD'])).toEqual([
      { key: 'C0EAQDV4Z', name: '#endeavor' },
      { key: 'C012AB3CD', name: '#general' },
      { key: 'C061EG9T2', name: '#random' },
    ]);
    expect(await slackHistory.scopes(reading(), ['#random'])).toEqual([{ key: 'C061EG9T2', name: '#random' }]);
    await expect(slackHistory.scopes(reading(), ['#random', '#secret-plans'])).rejects.toThrow(new ProviderFailure("Slack: the bot is in no channel '#secret-plans' (it is in 3); invite it there (/invite @your-app) or check the name"));
  });

  test('a refused token stops the listing with CredentialRefused', async () => {
    route = () => ok(documented.invalidAuth);
    const refused = slackHistory.scopes(reading());
    await expect(refused).rejects.toBeInstanceOf(CredentialRefused);
    await expect(refused).rejects.toThrow("Slack users.conversations, listing the channels the bot is in: Slack refused the app's token (invalid_auth)");
  });

  test('every call goes through the address guard: a loopback API without the operator allowance is never called', async () => {
    const refused = slackHistory.scopes(reading(false));
    await expect(refused).rejects.toBeInstanceOf(ProviderFailure);
    await expect(refused).rejects.toThrow(/users\.conversations, listing the channels the bot is in: refused: .*plain http/);
    expect(peer.requests).toHaveLength(0);
  });
});

describe('messages', () => {
  /** The documented history, its second page as opsdroid serves it; the bot is the documented auth.test's user. */
  const documentedChannel: Route = (method, params) => {
    if (method === 'auth.test') return ok(documented.authTest);
    if (method !== 'conversations.history') return ok({ ok: false, error: 'unknown_method' });
    return ok(params.get('cursor') === HISTORY_CURSOR ? secondHistoryPage : documented.history);
  };
  /** slackdump's channel, whose thread's two replies come a page each, the parent listed first on both. */
  const channelWithThread: Route = (method, params) => {
    if (method === 'auth.test') return ok(documented.authTest);
    if (method === 'conversations.history') return ok(messages(channel));
    if (method !== 'conversations.replies' || params.get('ts') !== THREAD) return ok(documented.channelNotFound);
    return ok(params.get('cursor') === REPLIES_CURSOR ? messages([channel[1], thread[1]]) : messages([channel[1], thread[0]], REPLIES_CURSOR));
  };
  const timeline = { oldest: '1483228800.000000', latest: '1767225600.000000', inclusive: 'true', limit: '200' };

  test("pages to the window's end: the window and Slack's cursor asked for, each page's next the cursor after it", async () => {
    route = documentedChannel;
    const pages = await pagesOf(GENERAL);
    // Slack's examples mention no one and reply in no thread: they make no conversation.
    expect(pages).toEqual([
      { read: 2, messages: [], next: JSON.stringify({ page: HISTORY_CURSOR }) },
      { read: 2, messages: [], next: null },
    ]);
    expect(calls()).toEqual([
      { method: 'auth.test', params: {} },
      { method: 'conversations.history', params: { channel: 'C012AB3CD', ...timeline } },
      { method: 'conversations.history', params: { channel: 'C012AB3CD', ...timeline, cursor: HISTORY_CURSOR } },
    ]);
  });

  test("a thread's replies follow its page, a page of replies at a time: a reply speaks to the thread's author, one to one's own thread to no one", async () => {
    route = channelWithThread;
    const random: HistoryScope = { key: 'C061EG9T2', name: '#random' };
    const pages = await pagesOf(random);
    expect(pages).toEqual([
      { read: 2, messages: [], next: JSON.stringify({ page: '', thread: THREAD, replies: '' }) },
      {
        read: 1,
        messages: [{ channel: 'C061EG9T2', messageId: '1736554746.482349', sender: 'U0887G31L03', counterparts: ['UHSD97ZA5'], at: new Date(Number('1736554746.482349') * 1000) }],
        next: JSON.stringify({ page: '', thread: THREAD, replies: REPLIES_CURSOR }),
      },
      { read: 1, messages: [], next: null },
    ]);
    expect(calls().slice(2)).toEqual([
      { method: 'conversations.replies', params: { channel: 'C061EG9T2', ts: THREAD, ...timeline } },
      { method: 'conversations.replies', params: { channel: 'C061EG9T2', ts: THREAD, ...timeline, cursor: REPLIES_CURSOR } },
    ]);
  });

  test("Slack's documented thread, all replies by its author, makes no conversation and is read past its parent", async () => {
    const parent = documented.replies.messages[0];
    route = (method) => {
      if (method === 'auth.test') return ok(documented.authTest);
      if (method === 'conversations.history') return ok(messages([parent]));
      return ok({ ...documented.replies, response_metadata: { next_cursor: '' } });
    };
    // The documented replies' next_cursor is cleared so the thread ends on this page (named change).
    expect(await pagesOf(GENERAL)).toEqual([
      { read: 1, messages: [], next: JSON.stringify({ page: '', thread: parent.ts, replies: '' }) },
      { read: 3, messages: [], next: null },
    ]);
  });

  test('resuming from a cursor reads the rest only: after a page, and within a thread', async () => {
    route = documentedChannel;
    expect(await pagesOf(GENERAL, JSON.stringify({ page: HISTORY_CURSOR }))).toEqual([{ read: 2, messages: [], next: null }]);
    expect(calls().map((c) => c.params.cursor)).toEqual([undefined, HISTORY_CURSOR]);

    peer.requests.length = 0;
    route = channelWithThread;
    const random: HistoryScope = { key: 'C061EG9T2', name: '#random' };
    // Stopped after the thread's first page of replies: its page of history is asked again to know the threads, not yielded again.
    expect(await pagesOf(random, JSON.stringify({ page: '', thread: THREAD, replies: REPLIES_CURSOR }))).toEqual([{ read: 1, messages: [], next: null }]);
    expect(calls().map((c) => [c.method, c.params.cursor])).toEqual([
      ['auth.test', undefined],
      ['conversations.history', undefined],
      ['conversations.replies', REPLIES_CURSOR],
    ]);
    await expect(pagesOf(random, 'https://slack.com/api/conversations.history?cursor=x')).rejects.toThrow(new ProviderFailure('Slack, #random: the stored cursor is not one this importer wrote (https://slack.com/api/conversations.history?cursor=x)'));
  });

  test('the message the Events API delivered, listed by the history, is the same conversation: its mentions less the app’s bot', async () => {
    const delivery = JSON.parse(rawBody('messageWithUserMentions.json'));
    // The captured event's message as conversations.history lists it: without the event's own channel, event_ts and
    // channel_type; auth.test answers the capture's bot (its authorizations[0].user_id) as the token's user.
    const { channel: channelId, event_ts: _eventTs, channel_type: _channelType, ...listed } = delivery.event;
    route = (method) => (method === 'auth.test' ? ok({ ...documented.authTest, user_id: delivery.authorizations[0].user_id }) : ok(messages([listed])));
    const pages = await pagesOf({ key: channelId, name: '#captured' });
    const webhook = slackWebhook.parse({ headers: { 'content-type': 'application/json' }, body: Buffer.from(rawBody('messageWithUserMentions.json')), settings: { pointsField: null } });
    if (!('messages' in webhook)) throw new Error(`the Events API delivery made no conversation: ${JSON.stringify(webhook)}`);
    expect(pages).toEqual([{ read: 1, messages: webhook.messages, next: null }]);
    expect(pages[0].messages?.[0].counterparts).toEqual(['U074VRHQ11T']);
  });

  test("a 429 is waited out for its Retry-After, and a 5xx after a back-off, through the reading's sleep", async () => {
    let limited = false;
    let failed = false;
    route = (method, params) => {
      if (method === 'conversations.history' && !limited) {
        limited = true;
        return { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '7' } };
      }
      if (method === 'conversations.history' && params.get('cursor') && !failed) {
        failed = true;
        return { status: 503, text: 'upstream unavailable', headers: { 'content-type': 'text/plain' } };
      }
      return documentedChannel(method, params);
    };
    expect(await pagesOf(GENERAL)).toHaveLength(2);
    expect(waits).toEqual([
      { seconds: 7, why: 'Slack conversations.history, reading #general: rate limited by Slack' },
      { seconds: 1, why: 'Slack conversations.history, reading #general: Slack answered 503' },
    ]);
    expect(slept).toEqual([7000, 1000]);
    expect(calls().filter((c) => c.method === 'conversations.history')).toHaveLength(4);
  });

  test('a rate limit that does not pass stops the channel with a failure saying so', async () => {
    route = (method, params) => (method === 'conversations.history' ? { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '30' } } : documentedChannel(method, params));
    await expect(pagesOf(GENERAL)).rejects.toThrow(new ProviderFailure('Slack conversations.history, reading #general: rate limited by Slack (asked to wait 30 s after 5 tries); run the import again later, it resumes there'));
    expect(slept).toEqual([30_000, 30_000, 30_000, 30_000]);
  });

  test('a refused token stops the channel with CredentialRefused naming it', async () => {
    route = (method) => (method === 'auth.test' ? ok(documented.authTest) : ok(documented.invalidAuth));
    const refused = pagesOf(GENERAL);
    await expect(refused).rejects.toBeInstanceOf(CredentialRefused);
    await expect(refused).rejects.toThrow("Slack conversations.history, reading #general: Slack refused the app's token (invalid_auth); store the Slack app's current bot token (xoxb-…) with apps set-credential");
  });

  test('a missing scope is named: the one Slack says is needed, else both history scopes', async () => {
    // Slack's missing_scope answer carries `needed` and `provided` (https://docs.slack.dev/authentication/installing-with-oauth, scopes).
    route = (method) => (method === 'auth.test' ? ok(documented.authTest) : ok({ ok: false, error: 'missing_scope', needed: 'groups:history', provided: 'channels:history,channels:read,groups:read' }));
    await expect(pagesOf(GENERAL)).rejects.toThrow(new CredentialRefused("Slack conversations.history, reading #general: the Slack app's token lacks the groups:history scope; add it under OAuth & Permissions, reinstall the app and store its new bot token with apps set-credential"));
    route = (method) => (method === 'auth.test' ? ok(documented.authTest) : ok({ ok: false, error: 'missing_scope' }));
    await expect(pagesOf(GENERAL)).rejects.toThrow(/lacks the channels:history, groups:history scope/);
  });

  test('a channel the bot has left is a failure naming it and what to do, never an empty channel', async () => {
    route = (method) => (method === 'auth.test' ? ok(documented.authTest) : ok(documented.channelNotFound));
    await expect(pagesOf(GENERAL)).rejects.toThrow(
      new ProviderFailure("Slack conversations.history, reading #general: the app's bot is no longer in that channel (channel_not_found); invite it again (/invite @your-app) and run the import again, or leave the channel out with --repos"),
    );
  });
});
