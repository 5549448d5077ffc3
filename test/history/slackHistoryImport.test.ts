import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Interaction } from '../../db/models';
import { providerCatalog } from '../../src/integrations/catalog';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import type { HistoryImports } from '../../src/services/history/historyImport';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { deliverToSlack, payload, rawBody } from '../support/peers/slack/deliveries';
import { ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * A Slack message delivered by the Events API and read again from the Web API's history (and the other way round) is
 * one conversation: one interaction, stored once, whichever way came first; the import's second run finds nothing.
 * The delivery is the real capture of test/support/peers/slack/ (Zulip's `message_with_user_mentions.json`); the
 * history lists that same message, in Slack's documented answers (test/fixtures/history/slack/README.md).
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/slack', name), 'utf8'));
const delivery = payload('messageWithUserMentions.json');
const SENDER = 'U06NU4E26M9';
const MENTIONED = 'U074VRHQ11T';
const CHANNEL = 'C06NRA6JLER';
const REF = `slack:${CHANNEL}:1719209649.631399:${MENTIONED}`;
const WINDOW = { since: new Date('2024-06-01T00:00:00Z'), until: new Date('2024-07-01T00:00:00Z') };

// The capture's message as conversations.history lists it: without the event's own channel, event_ts and channel_type.
const { channel: _channel, event_ts: _eventTs, channel_type: _channelType, ...listed } = delivery.event;
const peer = new ScriptedPeer((_request, url) => {
  const method = url.pathname.replace(/^\/api\//, '');
  // Slack's documented auth.test, its user the capture's bot (authorizations[0].user_id); its documented
  // users.conversations, its #general the capture's channel; its documented history envelope, with the message.
  if (method === 'auth.test') return { status: 200, body: { ...fixture('authTest.json'), user_id: delivery.authorizations[0].user_id } };
  if (method === 'users.conversations') return { status: 200, body: { ok: true, channels: [{ ...fixture('usersConversations.json').channels[0], id: CHANNEL }], response_metadata: { next_cursor: '' } } };
  if (method === 'conversations.history') return { status: 200, body: { ok: true, messages: [listed], has_more: false, response_metadata: { next_cursor: '' } } };
  return { status: 200, body: fixture('channelNotFound.json') };
});

let t: TestApp;
let imports: HistoryImports;
let credentials: ConnectionCredentials;
beforeAll(async () => {
  t = await startTestApp();
  await peer.start();
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const secrets = new SecretBox(() => secretsKeyFor(t.config));
  credentials = new ConnectionCredentials(changes, secrets, providerCatalog());
  // The fake answers on loopback, which the operator's allowance lets calls reach; waits take no time.
  const http = { outbound: { ...outboundPolicy(t.config), allowPrivate: true }, sleep: async () => undefined, now: () => new Date() };
  imports = createHistoryImports(t.config, changes, secrets, providerCatalog(), http);
});
afterAll(async () => {
  await peer.stop();
  await t.close();
});
beforeEach(() => Interaction.destroy({ where: { source_ref: REF } }));

/** An Acme Slack app with its signing secret and bot token, the author linked to Ada and the one mentioned to Grace. */
async function slackApp() {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'slack', { name: `Slack ${unique()}` });
  const secret = `signing-${unique()}-secret`;
  await t.runtime.writers.apps.setSecret(app.id, secret);
  await credentials.setCredential({ type: 'app', id: app.id }, { kind: 'token', token: `xoxb-${unique()}` });
  await t.runtime.writers.apps.linkUser(app.id, DEMO.users.ada, SENDER);
  await t.runtime.writers.apps.linkUser(app.id, DEMO.users.grace, MENTIONED);
  return {
    deliver: () => deliverToSlack(t, app.id, secret, { body: rawBody('messageWithUserMentions.json') }),
    importHistory: () => imports.run({ connection: { type: 'app', id: app.id }, ...WINDOW, baseUrl: `${peer.base}/api` }),
  };
}

const stored = async () => (await Interaction.findAll({ where: { source_ref: REF, organization_id: DEMO.orgs.acme } })).map((i) => [i.type, i.user_id, i.counterpart_id, i.created_at.toISOString()]);
const ONE = [['communication', DEMO.users.ada, DEMO.users.grace, '2024-06-24T06:14:09.631Z']];

test('delivered by the Events API, then imported: one interaction, and the import finds nothing new', async () => {
  const app = await slackApp();
  expect((await app.deliver()).body.data).toMatchObject({ result: 'applied', interactions: 1 });
  const imported = await app.importHistory();
  expect(imported).toMatchObject({ outcome: 'complete', message: null, read: 1, found: 0, scopes: [{ scope: '#general', kind: 'messages', read: 1, found: 0, complete: true }] });
  expect(await stored()).toEqual(ONE);
});

test('imported, then delivered by the Events API: the delivery adds nothing; a second run finds nothing', async () => {
  const app = await slackApp();
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 1 });
  expect(await stored()).toEqual(ONE);
  expect((await app.deliver()).body.data).toMatchObject({ result: 'applied', interactions: 0 });
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 0 });
  expect(await stored()).toEqual(ONE);
});
