import { Deployment, Incident, IngestDelivery } from '../../db/models';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { unique } from '../support/common';
import { deliverToPagerDuty, pagerdutySignature, payload, PUBLISHED_SECRET, signed } from '../support/peers/pagerduty/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * `POST /ingest/pagerduty/{app_id}` (docs/incidents.md#pagerduty) with PagerDuty's own Webhooks v3 deliveries
 * (test/support/peers/pagerduty/README.md): five signed by PagerDuty with a published subscription secret, sent byte
 * for byte with PagerDuty's own signature; the others signed here as PagerDuty documents.
 */
const BODY_LIMIT_KB = 32;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_BODY_LIMIT_KB: String(BODY_LIMIT_KB) });
});
afterAll(async () => t.close());

/** An Acme PagerDuty app holding the secret of the subscription that signed the captured deliveries. */
async function pagerdutyApp() {
  const { app } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'pagerduty', { name: `PagerDuty ${unique()}` }));
  await t.runtime.writers.apps.setSecret(app.id, PUBLISHED_SECRET);
  const deliver = (body: Buffer | string, signature?: string | null) => deliverToPagerDuty(t, app.id, PUBLISHED_SECRET, { body, signature });
  return { id: app.id, deliver };
}
const incidentOf = (appId: string, externalId = 'Q2CKYRLH85UNN4') => Incident.findOne({ where: { app_id: appId, external_id: externalId } });
const stamp = (i: Incident) => [i.created_at.toISOString(), i.resolved_at?.toISOString() ?? null];

test("PagerDuty's own signed deliveries: triggered opens the incident on its unmapped service, resolved resolves it at the event's time", async () => {
  const app = await pagerdutyApp();
  const triggered = await app.deliver(signed.triggered.body, signed.triggered.signature);
  expect(triggered.status).toBe(200);
  expect(triggered.body).toEqual({
    status: 'success',
    data: { delivery_id: '01FKZSRAPTMF55RE69G8BQHGC6', event: 'incident.triggered', result: 'applied', incidents: [{ external_id: 'Q2CKYRLH85UNN4', result: 'created', repository_id: null }], deployments: [] },
  });
  const opened = (await incidentOf(app.id))!;
  expect(opened).toMatchObject({ title: 'Test', board_key: 'PNE3JZM', repository_id: null, git_app_id: null, organization_id: DEMO.orgs.acme });
  // What counts in time to restore: its urgency and its service's name; it has no priority.
  expect([opened.urgency, opened.priority, opened.service]).toEqual(['low', null, 'Webhook Tester']);
  expect(stamp(opened)).toEqual(['2025-04-07T03:47:13.000Z', null]);

  const resolved = await app.deliver(signed.resolved.body, signed.resolved.signature);
  expect(resolved.body.data).toMatchObject({ event: 'incident.resolved', result: 'applied', incidents: [{ external_id: 'Q2CKYRLH85UNN4', result: 'updated' }] });
  expect(stamp((await incidentOf(app.id))!)).toEqual(['2025-04-07T03:47:13.000Z', '2025-04-07T03:49:36.358Z']);

  // The organization lists it, with where it came from.
  const token = await t.token();
  const list = await t.get(`/v1/organizations/${DEMO.orgs.acme}/incidents?created_at[gte]=2025-04-07&created_at[lte]=2025-04-07`, token);
  expect(list.status).toBe(200);
  expect(list.body.data.filter((i: { app_id: string }) => i.app_id === app.id)).toEqual([
    { id: opened.id, repository_id: null, app_id: app.id, service: 'PNE3JZM', title: 'Test', cause_sha: null, fix_sha: null, created_at: '2025-04-07T03:47:13.000Z', resolved_at: '2025-04-07T03:49:36.358Z' },
  ]);
});

test('a redelivery changes nothing; resolved before triggered ends resolved; reopened opens it again', async () => {
  const app = await pagerdutyApp();
  const answers = [];
  answers.push(await app.deliver(signed.resolved.body, signed.resolved.signature));
  answers.push(await app.deliver(signed.triggered.body, signed.triggered.signature));
  answers.push(await app.deliver(signed.resolved.body, signed.resolved.signature));
  expect(answers.map((a) => [a.status, a.body.data.result, a.body.data.incidents])).toEqual([
    [200, 'applied', [{ external_id: 'Q2CKYRLH85UNN4', result: 'created', repository_id: null }]],
    [200, 'applied', [{ external_id: 'Q2CKYRLH85UNN4', result: 'stale', repository_id: null }]],
    [200, 'duplicate', []],
  ]);
  expect(stamp((await incidentOf(app.id))!)).toEqual(['2025-04-07T03:47:13.000Z', '2025-04-07T03:49:36.358Z']);
  expect(await Incident.count({ where: { app_id: app.id } })).toBe(1);

  // The Zulip fixture's incident, reopened (it was never triggered here: made from the event, open).
  const reopened = payload('incidentReopened.json');
  const answer = await app.deliver(JSON.stringify(reopened));
  expect(answer.body.data).toMatchObject({ event: 'incident.reopened', incidents: [{ external_id: reopened.event.data.id, result: 'created' }] });
  const incident = (await incidentOf(app.id, reopened.event.data.id))!;
  expect([incident.title, incident.board_key, incident.resolved_at]).toEqual([reopened.event.data.title, reopened.event.data.service.id, null]);
  expect([incident.urgency, incident.priority, incident.service]).toEqual(['low', 'P3', 'Default Service']);

  // Our incident reopened after its resolution: open again. Derived from the Zulip fixture: its incident and
  // service are ours, and it happened after the resolution.
  const ours = structuredClone(reopened);
  Object.assign(ours.event, { id: 'reopened-ours', occurred_at: '2025-04-07T04:10:00.000Z' });
  Object.assign(ours.event.data, { id: 'Q2CKYRLH85UNN4', created_at: '2025-04-07T03:47:13Z', title: 'Test', service: { ...ours.event.data.service, id: 'PNE3JZM' } });
  expect((await app.deliver(JSON.stringify(ours))).body.data.incidents).toEqual([{ external_id: 'Q2CKYRLH85UNN4', result: 'updated', repository_id: null }]);
  expect(stamp((await incidentOf(app.id))!)).toEqual(['2025-04-07T03:47:13.000Z', null]);
});

test('events that change no figure are acknowledged and ignored (202), storing nothing', async () => {
  const app = await pagerdutyApp();
  for (const [d, event] of [[signed.acknowledged, 'incident.acknowledged'], [signed.ping, 'pagey.ping'], [signed.annotated, 'incident.annotated']] as const) {
    const answer = await app.deliver(d.body, d.signature);
    expect([answer.status, answer.body.data.event, answer.body.data.result]).toEqual([202, event, 'ignored']);
  }
  const priority = await app.deliver(JSON.stringify(payload('incidentPriorityUpdated.json')));
  expect([priority.status, priority.body.data.reason]).toEqual([202, expect.stringContaining("event 'incident.priority_updated' changes no figure")]);
  expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
});

test('a note naming the fix (`fixed by: <sha>`) marks the deployment that shipped it as rework once the service is mapped', async () => {
  const app = await pagerdutyApp();
  await app.deliver(signed.triggered.body, signed.triggered.signature);
  await app.deliver(signed.resolved.body, signed.resolved.signature);
  // A successful production deployment of acme/api long after the incident: rework only as its named fix.
  const sha = 'c0ffee'.padEnd(40, '7');
  const deployment = await Deployment.create({
    id: `dep_pd_${unique()}`, repository_id: DEMO.repos.acmeApi, git_app_id: 'gapp_acme_github', organization_id: DEMO.orgs.acme, external_id: `pd-${unique()}`,
    environment: 'production', status: 'success', sha, created_at: new Date('2025-04-08T09:00:00Z'), finished_at: new Date('2025-04-08T09:10:00Z'),
  });
  try {
    // The captured note, its content saying which commit fixed it.
    const note = payload('incidentAnnotated.json');
    note.event.id = `note-${unique()}`;
    note.event.data.content = `Resolution Note: fixed by: ${sha.slice(0, 10)}`;
    expect((await app.deliver(JSON.stringify(note))).body.data.incidents).toEqual([{ external_id: 'Q2CKYRLH85UNN4', result: 'updated', repository_id: null }]);
    expect((await incidentOf(app.id))!.fix_sha).toBe(sha.slice(0, 10));
    expect((await Deployment.findByPk(deployment.id))!.rework).toBeFalsy();

    await t.runtime.writers.apps.map(app.id, 'PNE3JZM', { repositoryId: DEMO.repos.acmeApi });
    expect((await incidentOf(app.id))!).toMatchObject({ repository_id: DEMO.repos.acmeApi, git_app_id: 'gapp_acme_github' });
    expect((await Deployment.findByPk(deployment.id))!.rework).toBeTruthy();

    await t.runtime.writers.apps.unmap(app.id, 'PNE3JZM');
    expect((await incidentOf(app.id))!).toMatchObject({ repository_id: null, git_app_id: null });
    expect((await Deployment.findByPk(deployment.id))!.rework).toBeFalsy();
  } finally {
    await deployment.destroy();
  }
});

test('several signatures during a rotation: any one made with the app’s secret will do', async () => {
  const app = await pagerdutyApp();
  const other = pagerdutySignature('an-old-subscription-secret', signed.triggered.body);
  const answer = await app.deliver(signed.triggered.body, `${other},${signed.triggered.signature}`);
  expect(answer.status).toBe(200);
});

describe('refused, in the ingest error format, storing nothing', () => {
  const cases: [string, (app: Awaited<ReturnType<typeof pagerdutyApp>>) => Promise<{ status: number; body: any }>, number, RegExp][] = [
    ['no signature', (app) => app.deliver(signed.triggered.body, null), 401, /Missing X-PagerDuty-Signature/],
    ['a signature by another secret', (app) => app.deliver(signed.triggered.body, pagerdutySignature('not-the-secret', signed.triggered.body)), 401, /does not match the body/],
    ['the body changed after signing', (app) => app.deliver(Buffer.from(signed.triggered.body.toString().replace('"Test"', '"Tset"')), signed.triggered.signature), 401, /does not match the body/],
    ['a signature of another scheme', (app) => app.deliver(signed.triggered.body, signed.triggered.signature.replace('v1=', 'v0=')), 401, /does not match the body/],
    ['a body that is not PagerDuty’s', (app) => app.deliver(JSON.stringify({ webhookEvent: 'jira:issue_created', issue: {} })), 400, /Not a PagerDuty webhook \(v3\) payload: event: /],
    ['an incident without its service', (app) => app.deliver(signed.triggered.body.toString().replace(/"service":\{[^}]*\},/, '')), 400, /event\.data\.service/],
    ['not JSON', (app) => app.deliver('{"event":'), 400, /not valid JSON/],
  ];
  test.each(cases)('%s', async (_name, send, status, message) => {
    const app = await pagerdutyApp();
    const answer = await send(app);
    expect([answer.status, answer.body.status, answer.body.error?.message]).toEqual([status, 'error', expect.stringMatching(message)]);
    expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
    expect(await IngestDelivery.count({ where: { app_id: app.id } })).toBe(0);
  });

  test('over the body limit: 413', async () => {
    const app = await pagerdutyApp();
    const big = payload('incidentTriggered.json');
    big.event.data.title = 'x'.repeat(BODY_LIMIT_KB * 1024);
    const answer = await app.deliver(JSON.stringify(big));
    expect([answer.status, answer.body.status]).toEqual([413, 'error']);
    expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
  });

  test('an unknown app (404), a Jira app (400) or a disabled one (403)', async () => {
    const unknown = await deliverToPagerDuty(t, 'app_nope', PUBLISHED_SECRET, { body: signed.triggered.body, signature: signed.triggered.signature });
    expect([unknown.status, unknown.body.error.message]).toEqual([404, expect.stringMatching(/App not found/)]);
    const { app: jira, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
    const misdirected = await deliverToPagerDuty(t, jira.id, secret, { body: signed.triggered.body });
    expect([misdirected.status, misdirected.body.error.message]).toEqual([400, `App ${jira.id} is a jira app; send its deliveries to /ingest/jira/${jira.id}`]);
    const app = await pagerdutyApp();
    await t.runtime.writers.apps.setActive(app.id, false);
    const disabled = await app.deliver(signed.triggered.body, signed.triggered.signature);
    expect([disabled.status, disabled.body.error.message]).toEqual([403, expect.stringMatching(/is disabled/)]);
    expect(await Incident.count({ where: { app_id: app.id } })).toBe(0);
  });
});
