import { QueryTypes } from 'sequelize';
import { Interaction, IngestDelivery } from '../../db/models';
import { slackWebhook } from '../../src/integrations/slack/webhook';
import { bodyAuthentication } from '../support/webhooks';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { unique } from '../support/common';
import { deliverToSlack, payload, rawBody, SlackDelivery } from '../support/peers/slack/deliveries';

/**
 * `POST /ingest/slack/{app_id}` (docs/conversations.md#slack) with Slack's own Events API bodies
 * (test/support/peers/slack/README.md), signed as Slack documents.
 */
const BODY_LIMIT_KB = 32;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_BODY_LIMIT_KB: String(BODY_LIMIT_KB) });
});
afterAll(async () => t.close());

const SENDER = 'U06NU4E26M9';
const MENTIONED = 'U074VRHQ11T';
const BOT = 'U074G5E1ANR';

/** An Acme Slack app with its signing secret, the message's author linked to Ada and the person mentioned to Grace. */
async function slackApp() {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'slack', { name: `Slack ${unique()}` });
  const secret = `signing-${unique()}-secret`;
  await t.runtime.writers.apps.setSecret(app.id, secret);
  await t.runtime.writers.apps.linkUser(app.id, DEMO.users.ada, SENDER);
  await t.runtime.writers.apps.linkUser(app.id, DEMO.users.grace, MENTIONED);
  return { id: app.id, secret, deliver: (d: SlackDelivery) => deliverToSlack(t, app.id, secret, d) };
}

test("Slack's own worked example of a signature is accepted, at its time", () => {
  // https://docs.slack.dev/authentication/verifying-requests-from-slack, as Slack's SDKs test it.
  const body = Buffer.from('token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c');
  const headers = { 'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503', 'x-slack-request-timestamp': '1531420618' };
  expect(() => bodyAuthentication(slackWebhook)(headers, body, ['8f742231b10e8888abcd99yyyzzz85a5'], new Date(1531420618_000))).not.toThrow();
  expect(() => bodyAuthentication(slackWebhook)(headers, body, ['8f742231b10e8888abcd99yyyzzz85a6'], new Date(1531420618_000))).toThrow(/does not match/);
  // Six minutes later the same request is stale.
  expect(() => bodyAuthentication(slackWebhook)(headers, body, ['8f742231b10e8888abcd99yyyzzz85a5'], new Date(1531420978_000))).toThrow(/stale delivery/);
});

test('url_verification is answered with its challenge', async () => {
  const app = await slackApp();
  const answer = await app.deliver({ body: rawBody('urlVerification.json') });
  expect([answer.status, answer.body]).toEqual([200, { challenge: payload('urlVerification.json').challenge }]);
});

test('a message mentioning members is a conversation from its author to each of them (not to the bot, never its text); a retry adds none', async () => {
  const app = await slackApp();
  const message = payload('messageWithUserMentions.json');
  const answer = await app.deliver({ body: rawBody('messageWithUserMentions.json') });
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual({ delivery_id: 'Ev079B6N3H53', event: 'message', result: 'applied', interactions: 1 });
  const stored = await Interaction.findAll({ where: { source_ref: `slack:C06NRA6JLER:1719209649.631399:${MENTIONED}`, organization_id: DEMO.orgs.acme } });
  expect(stored.map((i) => [i.type, i.user_id, i.counterpart_id, i.created_at.toISOString()])).toEqual([['communication', DEMO.users.ada, DEMO.users.grace, '2024-06-24T06:14:09.631Z']]);
  // The app's own bot was mentioned too, and the third account is the author: neither is a conversation.
  expect(await Interaction.count({ where: { source_ref: [`slack:C06NRA6JLER:1719209649.631399:${BOT}`, `slack:C06NRA6JLER:1719209649.631399:${SENDER}`] } })).toBe(0);

  // Slack's retry of the same event.
  const retry = await app.deliver({ body: rawBody('messageWithUserMentions.json'), headers: { 'X-Slack-Retry-Num': '1', 'X-Slack-Retry-Reason': 'http_timeout' } });
  expect(retry.body.data).toEqual({ delivery_id: 'Ev079B6N3H53', event: 'message', result: 'duplicate', interactions: 0 });
  expect(await Interaction.count({ where: { source_ref: `slack:C06NRA6JLER:1719209649.631399:${MENTIONED}` } })).toBe(1);

  // Ada's interactions show it.
  const listed = await t.get(`/v1/users/${DEMO.users.ada}/interactions?created_at[gte]=2024-06-24&created_at[lte]=2024-06-24`, await t.token());
  expect(listed.body.data).toEqual([expect.objectContaining({ type: 'communication', source: 'slack', user_id: DEMO.users.ada, counterpart_id: DEMO.users.grace })]);

  // No column of any table holds what the message said.
  const said = message.event.text.slice(message.event.text.lastIndexOf('>') + 2);
  expect(await tablesHolding(said)).toEqual([]);
});

test('a reply in a thread is a conversation with the thread’s author; a reply to oneself is none', async () => {
  const app = await slackApp();
  // The captured message, made a reply in the thread Grace started, mentioning no one: `thread_ts`, `parent_user_id`
  // added as Slack adds them to a reply (docs.slack.dev/reference/events/message/message_replied), a new event id and ts.
  const reply = payload('messageWithUserMentions.json');
  Object.assign(reply, { event_id: 'Ev0REPLY0001' });
  Object.assign(reply.event, { text: 'agreed', blocks: [], ts: '1719209700.000200', event_ts: '1719209700.000200', thread_ts: '1719209000.000100', parent_user_id: MENTIONED });
  const answer = await app.deliver({ body: reply });
  expect(answer.body.data).toMatchObject({ result: 'applied', interactions: 1 });
  expect(await Interaction.findOne({ where: { source_ref: `slack:C06NRA6JLER:1719209700.000200:${MENTIONED}`, user_id: DEMO.users.ada, counterpart_id: DEMO.users.grace } })).not.toBeNull();

  // bolt-python's thread_broadcast: U111 replying in U111's own thread.
  const own = await app.deliver({ body: rawBody('threadBroadcast.json') });
  expect([own.status, own.body.data.result, own.body.data.reason]).toEqual([202, 'ignored', expect.stringMatching(/mentions no one/)]);
});

test.each([
  ['botMessage.json', /bot_message message is not someone speaking/],
  ['messageChanged.json', /message_changed message is not someone speaking/],
  ['channelJoin.json', /channel_join message is not someone speaking/],
  ['appMention.json', /event 'app_mention' changes no figure/],
])('%s is acknowledged and ignored', async (file, reason) => {
  const app = await slackApp();
  const answer = await app.deliver({ body: rawBody(file) });
  expect([answer.status, answer.body.data.result, answer.body.data.reason]).toEqual([202, 'ignored', expect.stringMatching(reason)]);
});

test('a direct message makes no conversation', async () => {
  const app = await slackApp();
  const direct = payload('messageWithUserMentions.json');
  Object.assign(direct, { event_id: 'Ev0DIRECT001' });
  direct.event.channel_type = 'im';
  const answer = await app.deliver({ body: direct });
  expect([answer.status, answer.body.data.reason]).toEqual([202, expect.stringMatching(/direct messages are private/)]);
});

describe('refused, storing nothing', () => {
  const now = () => String(Math.floor(Date.now() / 1000));
  const cases: [string, () => Partial<SlackDelivery>, number, RegExp][] = [
    ['no signature', () => ({ signature: null }), 401, /Missing X-Slack-Signature/],
    ['another secret', () => ({ signature: `v0=${'0'.repeat(64)}` }), 401, /does not match the body/],
    ['a stale timestamp, signed', () => ({ timestamp: String(Number(now()) - 600) }), 400, /stale delivery/],
    ['a body that is not Slack’s', () => ({ body: { webhookEvent: 'jira:issue_created' } }), 400, /Not a Slack Events API payload: type/],
    ['a ts past the year 9999', () => ({ body: { ...payload('messageWithUserMentions.json'), event: { ...payload('messageWithUserMentions.json').event, ts: '999999999999.000100' } } }), 400, /Slack message event payload: ts: a Slack message ts/],
    ['a message without its channel', () => ({ body: { ...payload('messageWithUserMentions.json'), event: { ...payload('messageWithUserMentions.json').event, channel: undefined } } }), 400, /channel/],
  ];
  test.each(cases)('%s', async (_name, make, status, message) => {
    const app = await slackApp();
    const answer = await app.deliver({ body: rawBody('messageWithUserMentions.json'), ...make() });
    expect([answer.status, answer.body.status, answer.body.error?.message]).toEqual([status, 'error', expect.stringMatching(message)]);
    expect(await IngestDelivery.count({ where: { app_id: app.id } })).toBe(0);
  });

  test('over the body limit (413), an unknown app (404) or a disabled one (403)', async () => {
    const app = await slackApp();
    const big = payload('messageWithUserMentions.json');
    big.event.text = 'x'.repeat(BODY_LIMIT_KB * 1024);
    expect((await app.deliver({ body: big })).status).toBe(413);
    expect((await deliverToSlack(t, 'app_nope', app.secret, { body: rawBody('messageWithUserMentions.json') })).status).toBe(404);
    await t.runtime.writers.apps.setActive(app.id, false);
    expect((await app.deliver({ body: rawBody('messageWithUserMentions.json') })).status).toBe(403);
    expect(await IngestDelivery.count({ where: { app_id: app.id } })).toBe(0);
  });
});

/** The tables any of whose rows hold `text` in any column. */
async function tablesHolding(text: string): Promise<string[]> {
  const sequelize = t.runtime.sequelize;
  const tables = (await sequelize.getQueryInterface().showAllTables()).map((name) => (typeof name === 'string' ? name : (name as { tableName: string }).tableName));
  const holding: string[] = [];
  for (const table of tables) {
    const rows = await sequelize.query(`SELECT * FROM \`${table}\``, { type: QueryTypes.SELECT });
    if (JSON.stringify(rows).includes(text)) holding.push(table);
  }
  return holding;
}
