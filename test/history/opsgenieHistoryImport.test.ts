import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Incident } from '../../db/models';
import { providerCatalog } from '../../src/integrations/catalog';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import type { HistoryImports } from '../../src/services/history/historyImport';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { deliverToOpsgenie, payload, rawBody } from '../support/peers/opsgenie/deliveries';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';
import { withSecret } from '../support/webhooks';

/**
 * An Opsgenie alert delivered by its Webhook integration and read again from its Alert API (and the other way round)
 * is one incident, on the same board, with one fix named; the import's second run finds nothing. The deliveries are
 * the relay capture's `Create` and Zulip's `AddNote` made to be about that alert and to name its fix
 * (test/support/peers/opsgenie/README.md). The API lists that same alert as it lists alerts (its teams by id) in the
 * envelope Cortex XSOAR recorded, its team's name in XSOAR's recorded teams, its note in the shape README.md of
 * test/fixtures/history/opsgenie/ describes.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/opsgenie', name), 'utf8'));
const recordedPage = fixture('demistoListAlertsLastPage.json');
const recordedTeams = fixture('demistoTeams.json');
const created = payload('alertCreated.json').alert;
const team = created.responders[0];
const FIX = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const WINDOW = { since: new Date('2020-06-01T00:00:00Z'), until: new Date('2020-07-01T00:00:00Z') };

/** Zulip's AddNote delivery, about the relay alert, a second after its creation, its note naming the fix. */
const addNote = payload('alertNoteAdded.json');
const noteAt = created.createdAt + 1_000;
Object.assign(addNote.alert, { alertId: created.alertId, createdAt: created.createdAt, updatedAt: noteAt * 1e6, message: created.message, note: `${addNote.alert.note}; fixed by: ${FIX}` });

const listedAlert = {
  id: created.alertId,
  tinyId: created.tinyId,
  alias: created.alias,
  message: created.message,
  status: 'open',
  tags: created.tags,
  createdAt: new Date(created.createdAt).toISOString(),
  updatedAt: new Date(noteAt).toISOString(),
  priority: created.priority,
  teams: created.teams.map((id: string) => ({ id })),
  responders: [{ type: 'team', id: team.id }],
  ownerTeamId: team.id,
};

const peer = new ScriptedPeer((_request, url): ScriptedAnswer => {
  const ok = (body: unknown): ScriptedAnswer => ({ status: 200, body });
  switch (url.pathname) {
    case '/v2/teams':
      return ok({ ...recordedTeams, data: [...recordedTeams.data, { id: team.id, name: team.name }] });
    case '/v2/alerts':
      return ok({ ...recordedPage, data: [listedAlert] });
    case `/v2/alerts/${created.alertId}/notes`:
      return ok({ data: [{ note: addNote.alert.note, owner: addNote.alert.username, createdAt: new Date(noteAt).toISOString() }], took: recordedPage.took, requestId: recordedPage.requestId });
    default:
      return { status: 404, text: '' };
  }
});

let t: TestApp;
let imports: HistoryImports;
let credentials: ConnectionCredentials;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
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

/** An Acme Opsgenie app with its webhook secret and a Read key. */
async function opsgenieApp() {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'opsgenie', { name: `Opsgenie ${unique()}` }));
  await credentials.setCredential({ type: 'app', id: app.id }, { kind: 'token', token: `key-${unique()}` });
  return {
    id: app.id,
    deliverAll: async () => {
      expect((await deliverToOpsgenie(t, app.id, secret, { body: rawBody('alertCreated.json') })).status).toBe(200);
      expect((await deliverToOpsgenie(t, app.id, secret, { body: addNote })).status).toBe(200);
    },
    importHistory: () => imports.run({ connection: { type: 'app', id: app.id }, ...WINDOW, baseUrl: peer.base }),
  };
}

const stored = async (appId: string) =>
  (await Incident.findAll({ where: { app_id: appId } })).map((i) => [i.external_id, i.title, i.board_key, i.fix_sha, i.created_at.toISOString(), i.resolved_at]);
const ONE = [[created.alertId, 'asdf', 'operations', FIX, '2020-06-30T00:06:04.295Z', null]];

test('delivered by the webhook, then imported: one incident on its team, its fix named once; the import finds nothing new', async () => {
  const app = await opsgenieApp();
  await app.deliverAll();
  expect(await stored(app.id)).toEqual(ONE);
  const imported = await app.importHistory();
  expect(imported).toMatchObject({ outcome: 'complete', message: null, read: 1, found: 0, scopes: [{ scope: 'Opsgenie account', kind: 'alerts', read: 1, found: 0, complete: true }] });
  expect(await stored(app.id)).toEqual(ONE);
});

test('imported, then delivered: the deliveries add no incident; a second run finds nothing', async () => {
  const app = await opsgenieApp();
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 1 });
  expect(await stored(app.id)).toEqual(ONE);
  await app.deliverAll();
  expect(await stored(app.id)).toEqual(ONE);
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 0 });
  expect(await stored(app.id)).toEqual(ONE);
});
