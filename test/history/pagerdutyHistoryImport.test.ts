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
import { deliverToPagerDuty, payload, PUBLISHED_SECRET, signed } from '../support/peers/pagerduty/deliveries';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * A PagerDuty incident delivered by its Webhooks v3 and read again from its REST API (and the other way round) is one
 * incident with one note; the import's second run finds nothing. The deliveries are PagerDuty's own signed captures of
 * incident #37 (test/support/peers/pagerduty/README.md), its note made to name the commit that fixed it as the
 * webhook tests do. The API shows that same incident in PagerDuty's documented answers
 * (test/fixtures/history/pagerduty/README.md): the documented List incidents entry with #37's fields, and a log of
 * Apache DevLake's recorded resolve and annotate entries at #37's times.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/pagerduty', name), 'utf8'));
const triggered = payload('incidentTriggered.json').event;
const resolved = payload('incidentResolved.json').event;
const annotated = payload('incidentAnnotated.json');
const INCIDENT = triggered.data.id;
const SERVICE = triggered.data.service;
const FIX = 'c0ffee'.padEnd(40, '7');
annotated.event.data.content = `Resolution Note: fixed by: ${FIX}`;
const WINDOW = { since: new Date('2025-04-01T00:00:00Z'), until: new Date('2025-05-01T00:00:00Z') };

const documented = { incidents: fixture('listIncidents.json'), services: fixture('listServices.json'), notes: fixture('listNotes.json') };
const [devlakeResolved] = fixture('devlakeIncidents.json').filter((i: { status: string }) => i.status === 'resolved');
const entry = (type: string, at: string) => ({ ...devlakeResolved.log_entries.find((e: { type: string }) => e.type === type), created_at: at, incident: { ...devlakeResolved.log_entries[0].incident, id: INCIDENT } });
/** PagerDuty's REST times are whole seconds; its webhook events' `occurred_at` have milliseconds. */
const seconds = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

const peer = new ScriptedPeer((_request, url): ScriptedAnswer => {
  const ok = (body: unknown): ScriptedAnswer => ({ status: 200, body });
  switch (url.pathname) {
    case '/services':
      return ok({ ...documented.services, services: [{ ...documented.services.services[0], id: SERVICE.id, name: SERVICE.summary, summary: SERVICE.summary }] });
    case '/incidents':
      return ok({
        ...documented.incidents,
        incidents: [{ ...documented.incidents.incidents[0], id: INCIDENT, title: triggered.data.title, created_at: triggered.data.created_at, status: 'resolved', service: { ...documented.incidents.incidents[0].service, id: SERVICE.id, summary: SERVICE.summary }, last_status_change_at: seconds(resolved.occurred_at), resolved_at: seconds(resolved.occurred_at) }],
        limit: 100,
        more: false,
      });
    case `/incidents/${INCIDENT}/log_entries`:
      return ok({ log_entries: [entry('resolve_log_entry', seconds(resolved.occurred_at)), entry('annotate_log_entry', seconds(annotated.event.occurred_at))], limit: 100, offset: 0, more: false, total: null });
    case `/incidents/${INCIDENT}/notes`:
      return ok({ notes: [{ ...documented.notes.notes[0], id: annotated.event.data.id, content: annotated.event.data.content }] });
    default:
      return { status: 404, body: { error: { message: 'Not Found', code: 2100 } } };
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

/** An Acme PagerDuty app holding the subscription's secret and a read-only key. */
async function pagerdutyApp() {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'pagerduty', { name: `PagerDuty ${unique()}` });
  await t.runtime.writers.apps.setSecret(app.id, PUBLISHED_SECRET);
  await credentials.setCredential({ type: 'app', id: app.id }, { kind: 'token', token: `u+${unique()}` });
  const deliver = (body: Buffer | string, signature?: string) => deliverToPagerDuty(t, app.id, PUBLISHED_SECRET, { body, signature });
  return {
    id: app.id,
    deliverAll: async () => {
      for (const [body, signature] of [[signed.triggered.body, signed.triggered.signature], [signed.resolved.body, signed.resolved.signature]] as const) expect((await deliver(body, signature)).status).toBe(200);
      expect((await deliver(JSON.stringify(annotated))).status).toBe(200);
    },
    importHistory: () => imports.run({ connection: { type: 'app', id: app.id }, ...WINDOW, baseUrl: peer.base }),
  };
}

const stored = async (appId: string) =>
  (await Incident.findAll({ where: { app_id: appId } })).map((i) => [i.external_id, i.title, i.board_key, i.fix_sha, i.created_at.toISOString(), i.resolved_at?.toISOString() ?? null]);
const ONE = (resolvedAt: string) => [[INCIDENT, 'Test', SERVICE.id, FIX, '2025-04-07T03:47:13.000Z', resolvedAt]];

test('delivered by the webhook, then imported: one incident with its note, and the import finds nothing new', async () => {
  const app = await pagerdutyApp();
  await app.deliverAll();
  expect(await stored(app.id)).toEqual(ONE('2025-04-07T03:49:36.358Z'));
  const imported = await app.importHistory();
  expect(imported).toMatchObject({ outcome: 'complete', message: null, read: 1, found: 0, scopes: [{ scope: SERVICE.summary, kind: 'incidents', read: 1, found: 0, complete: true }] });
  // The webhook's resolution, to the millisecond, is newer than the API's whole second: it stays.
  expect(await stored(app.id)).toEqual(ONE('2025-04-07T03:49:36.358Z'));
});

test('imported, then delivered: the deliveries add no incident; a second run finds nothing', async () => {
  const app = await pagerdutyApp();
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 1 });
  expect(await stored(app.id)).toEqual(ONE('2025-04-07T03:49:36.000Z'));
  await app.deliverAll();
  expect(await stored(app.id)).toEqual(ONE('2025-04-07T03:49:36.358Z'));
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 0 });
  expect(await stored(app.id)).toEqual(ONE('2025-04-07T03:49:36.358Z'));
});
