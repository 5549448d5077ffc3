import { Incident, IngestDelivery } from '../../db/models';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { unique } from '../support/common';
import { deliverToOpsgenie, OpsgenieDelivery, payload, rawBody } from '../support/peers/opsgenie/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * `POST /ingest/opsgenie/{app_id}` (docs/incidents.md#opsgenie) with Opsgenie's own webhook deliveries
 * (test/support/peers/opsgenie/README.md), sent with the custom `Authorization` header its integration is given.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => t.close());

async function opsgenieApp() {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'opsgenie', { name: `Opsgenie ${unique()}` }));
  return { id: app.id, secret, deliver: (d: OpsgenieDelivery) => deliverToOpsgenie(t, app.id, secret, d) };
}
const incidentOf = (appId: string, alertId: string) => Incident.findOne({ where: { app_id: appId, external_id: alertId } });

test('an alert created opens an incident on its team; closed resolves it at the update time; a retry changes nothing', async () => {
  const app = await opsgenieApp();
  const created = payload('alertCreated.json');
  const answer = await app.deliver({ body: rawBody('alertCreated.json') });
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual({
    delivery_id: `${created.alert.alertId}:Create:1593475564636`,
    event: 'Create',
    result: 'applied',
    incidents: [{ external_id: created.alert.alertId, result: 'created', repository_id: null }],
    deployments: [],
  });
  const incident = (await incidentOf(app.id, created.alert.alertId))!;
  // The alert's team by name is its board: what an admin maps.
  expect(incident).toMatchObject({ title: 'asdf', board_key: 'operations', repository_id: null, resolved_at: null });
  // What counts in time to restore: its priority and its team's name; Opsgenie has no urgency.
  expect([incident.urgency, incident.priority, incident.service]).toEqual([null, 'P3', 'operations']);
  expect(incident.created_at.toISOString()).toBe('2020-06-30T00:06:04.295Z');
  expect((await app.deliver({ body: rawBody('alertCreated.json') })).body.data).toMatchObject({ result: 'duplicate', incidents: [] });

  // The captured Close is of another alert: made from it, resolved at its update time.
  const closed = payload('alertClosed.json');
  const close = await app.deliver({ body: rawBody('alertClosed.json') });
  expect(close.body.data).toMatchObject({ event: 'Close', incidents: [{ external_id: closed.alert.alertId, result: 'created' }] });
  const resolved = (await incidentOf(app.id, closed.alert.alertId))!;
  expect([resolved.created_at.toISOString(), resolved.resolved_at?.toISOString(), resolved.board_key]).toEqual(['2015-01-05T10:03:11.104Z', '2015-01-05T10:06:14.669Z', null]);

  // Our alert closed: the captured Close made ours (its id, times after our creation).
  const ours = { ...closed, alert: { ...closed.alert, alertId: created.alert.alertId, createdAt: created.alert.createdAt, updatedAt: 1593479164636000000 } };
  expect((await app.deliver({ body: ours })).body.data.incidents).toEqual([{ external_id: created.alert.alertId, result: 'updated', repository_id: null }]);
  expect((await incidentOf(app.id, created.alert.alertId))!.resolved_at?.toISOString()).toBe('2020-06-30T01:06:04.636Z');
  // The 2015 Close names no priority or team: those the Create said stay.
  expect(await incidentOf(app.id, created.alert.alertId)).toMatchObject({ priority: 'P3', service: 'operations' });
  // Opsgenie's retry of the Create after the Close changes nothing: the incident stays resolved.
  expect((await app.deliver({ body: rawBody('alertCreated.json') })).body.data.result).toBe('duplicate');
  expect((await incidentOf(app.id, created.alert.alertId))!.resolved_at?.toISOString()).toBe('2020-06-30T01:06:04.636Z');
});

test('a note naming the fix is kept on the incident; other actions are acknowledged and ignored', async () => {
  const app = await opsgenieApp();
  const closed = payload('alertClosed.json');
  await app.deliver({ body: rawBody('alertClosed.json') });
  // The captured note on that alert, its text naming the commit that fixed it.
  const note = payload('alertNoteAdded.json');
  note.alert.note = 'deployed the revert; fixed by: 4b825dc642cb6eb9a060e54bf8d69288fbee4904';
  expect((await app.deliver({ body: note })).body.data.incidents).toEqual([{ external_id: closed.alert.alertId, result: 'updated', repository_id: null }]);
  expect((await incidentOf(app.id, closed.alert.alertId))!.fix_sha).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');

  for (const file of ['alertAcknowledged.json', 'alertNoteAdded.json']) {
    const answer = await app.deliver({ body: rawBody(file) });
    expect([answer.status, answer.body.data.result]).toEqual([202, 'ignored']);
  }
  // A note on an alert this app never saw makes nothing.
  const prometheus = await app.deliver({ body: { ...payload('alertNoteAddedPrometheus.json'), alert: { ...payload('alertNoteAddedPrometheus.json').alert, note: 'fixed by: 4b825dc' } } });
  expect(prometheus.body.data.incidents).toEqual([{ external_id: 'f3efa74b-29cc-4a4f-9bb7-804d7c1be544-1639476708514', result: 'unknown', repository_id: null }]);
  expect(await Incident.count({ where: { app_id: app.id } })).toBe(1);
});

test('an alert placed by the first of its team, responders, team ids and tags mapped to a repository', async () => {
  const app = await opsgenieApp();
  await t.runtime.writers.apps.map(app.id, 'service=gdpr-deleter-srv', { repositoryId: DEMO.repos.acmeWeb });
  // The 2021 alert, created: its team "Tech" is not mapped, its tag is.
  const note = payload('alertNoteAddedPrometheus.json');
  const created = { ...note, action: 'Create' };
  const answer = await app.deliver({ body: created });
  expect(answer.body.data.incidents).toEqual([{ external_id: note.alert.alertId, result: 'created', repository_id: DEMO.repos.acmeWeb }]);
  expect(await incidentOf(app.id, note.alert.alertId)).toMatchObject({ board_key: 'service=gdpr-deleter-srv', repository_id: DEMO.repos.acmeWeb, git_app_id: 'gapp_acme_github' });
  // No owner team: the team responding to it is the one it came from.
  expect(await incidentOf(app.id, note.alert.alertId)).toMatchObject({ priority: 'P1', service: 'Tech' });
});

test("a 2017 delivery's priority, the number alone, is kept as Opsgenie names it now", async () => {
  const app = await opsgenieApp();
  const legacy = payload('legacyAlertCreated.json');
  expect((await app.deliver({ body: rawBody('legacyAlertCreated.json') })).status).toBe(200);
  expect(await incidentOf(app.id, legacy.alert.alertId)).toMatchObject({ urgency: null, priority: 'P3', service: null, board_key: 'vip' });
});

describe('refused, storing nothing', () => {
  const cases: [string, Partial<OpsgenieDelivery>, number, RegExp][] = [
    ['no Authorization header', { authorization: null }, 401, /Missing Authorization/],
    ['another secret', { authorization: 'Bearer not-the-secret-at-all' }, 401, /does not carry the app's secret/],
    ['the secret without Bearer', { authorization: 'SECRET' }, 401, /does not carry the app's secret/],
    ['a body that is not Opsgenie’s', { body: { event: { id: 'x', event_type: 'incident.triggered' } } }, 400, /Not an Opsgenie webhook payload: action: /],
    ['an alert without its id', { body: { action: 'Create', alert: { message: 'm', createdAt: 1, updatedAt: 1 } } }, 400, /alert\.alertId/],
    ['a creation time past 9999', { body: { action: 'Create', alert: { alertId: 'a-1', message: 'm', createdAt: 1e20, updatedAt: 1 } } }, 400, /alert\.createdAt/],
  ];
  test.each(cases)('%s', async (_name, d, status, message) => {
    const app = await opsgenieApp();
    const answer = await app.deliver({ body: rawBody('alertCreated.json'), ...d });
    expect([answer.status, answer.body.status, answer.body.error?.message]).toEqual([status, 'error', expect.stringMatching(message)]);
    expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
    expect(await IngestDelivery.count({ where: { app_id: app.id } })).toBe(0);
  });
});
