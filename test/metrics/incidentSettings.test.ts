import request from 'supertest';
import { GitApp, Incident } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { publicBase } from '../../src/config';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { incidentCondition } from '../../src/services/metrics/settings/incidents';
import { parseCommand } from '../../scripts/metricsSettings';
import { UsageError } from '../../scripts/cli';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { createLab, sha } from '../support/data/metricsHistory';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';
import { pagerdutySignature, payload as pagerdutyPayload } from '../support/peers/pagerduty/deliveries';
import { payload as opsgeniePayload } from '../support/peers/opsgenie/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * Which incidents count in time to restore (docs/metrics.md#what-counts): an organization's settings leave out
 * incidents by PagerDuty's urgency, by priority and by service or team, as each source brought them
 * (docs/incidents.md#what-is-stored), the way test/metrics/doraSources.test.ts sends them. An incident that says
 * nothing of a setting is never left out by it; the change failure rate and rework still count every incident.
 * Worked by hand, the week of Monday May 4, 2026, one incident a day, all of lab/api but B1:
 *
 *   P1 PagerDuty, service "Webhook Tester" (PAPI → lab/api), urgency high, no priority   May 4 08:00–09:00   1 h
 *   P2 PagerDuty, the same service, urgency low; its note blames deployment D1            May 5 10:00–14:00   4 h
 *   O1 Opsgenie, team "ops" (→ lab/api), P1                                              May 6 10:00–10:30   0.5 h
 *   O2 Opsgenie, team "ops", P4                                                          May 7 09:00–15:00   6 h
 *   G1 GitHub issue labelled incident: nothing of urgency, priority or service           May 8 10:00–13:00   3 h
 *   S1 the deployments API, urgency low, P2, service "search"                            May 9 12:00–12:15   0.25 h
 *   B1 PagerDuty, unmapped service PBIL "Billing", urgency high, P3                      May 10 00:00–02:00  2 h
 *   D1 GitHub deployment of k1, success, May 4 07:00: failed once P2 names k1 its root cause
 */
let t: TestApp;
let org: string;
let ada: SettingsBrowser;
let token: string;
let cli: (...args: string[]) => Promise<CliRun>;
const apps: Record<'pagerduty' | 'opsgenie' | 'deployments', { id: string; secret: string }> = {} as never;
const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => `2026-05-${String(day).padStart(2, '0')}T${time}:00.000Z`;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  token = await t.token();
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, new URL(publicBase(t.config)).origin);
  cli = appCli(t, 'metricsSettings');
  const created = await createLab(t, `Incidents that count ${unique()}`);
  org = created.lab.organizationId;
  const gitApp = (await GitApp.findByPk(created.gitAppId))!;
  const repository: RepositoryRef = { providerId: `triage-${unique()}`, name: 'api', fullName: 'lab/api', defaultBranch: 'main', isPrivate: false, createdAt: new Date(at(1, '00:00')) };
  const git: Activity[] = [
    { kind: 'push', repository, commits: [{ sha: sha('k1'), message: 'k1', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: new Date(at(4, '06:00')) }] },
    { kind: 'deployment', repository, deployment: { externalId: 'D1', environment: 'production', status: 'success', sha: sha('k1'), createdAt: new Date(at(4, '06:50')), finishedAt: new Date(at(4, '07:00')) } },
    { kind: 'incident', repository, incident: { externalId: 'G1', title: 'Login loops', causeSha: null, fixSha: null, createdAt: new Date(at(8, '10:00')), resolvedAt: new Date(at(8, '13:00')), updatedAt: new Date(at(8, '13:00')) } },
  ];
  for (const [i, activity] of git.entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `triage-${unique()}-${i}`, event: activity.kind }, activity);
  const { repositoryId } = await t.runtime.writers.gitActivity.importCommits(gitApp, repository, []);

  for (const provider of ['pagerduty', 'opsgenie', 'deployments'] as const) {
    const { app, secret } = withSecret(await t.runtime.writers.apps.create(org, provider, { name: provider }));
    apps[provider] = { id: app.id, secret };
  }
  await t.runtime.writers.apps.map(apps.pagerduty.id, 'PAPI', { repositoryId });
  await t.runtime.writers.apps.map(apps.opsgenie.id, 'ops', { repositoryId });

  // PagerDuty's captured deliveries (urgency low, no priority, service "Webhook Tester"), made this lab's incidents.
  const pagerduty = async (type: 'triggered' | 'resolved', id: string, created: string, occurred: string, data: Record<string, unknown> = {}) => {
    const body = pagerdutyPayload(type === 'triggered' ? 'incidentTriggered.json' : 'incidentResolved.json');
    Object.assign(body.event, { id: `${id}-${type}`, occurred_at: occurred });
    Object.assign(body.event.data, { id, created_at: created, service: { ...body.event.data.service, id: 'PAPI' }, ...data });
    await sendToPagerDuty(body);
  };
  await pagerduty('triggered', 'P1', at(4, '08:00'), at(4, '08:00'), { urgency: 'high' });
  await pagerduty('resolved', 'P1', at(4, '08:00'), at(4, '09:00'), { urgency: 'high' });
  await pagerduty('resolved', 'P2', at(5, '10:00'), at(5, '14:00'));
  const note = pagerdutyPayload('incidentAnnotated.json');
  Object.assign(note.event, { id: 'P2-note', occurred_at: at(5, '14:05') });
  Object.assign(note.event.data, { incident: { ...note.event.data.incident, id: 'P2' }, content: `root cause: ${sha('k1')}` });
  await sendToPagerDuty(note);
  // Billing's priority as PagerDuty's own example gives it (P1), renamed P3 here.
  const priority = { ...pagerdutyPayload('incidentPriorityUpdated.json').event.data.priority, summary: 'P3' };
  await pagerduty('resolved', 'B1', at(10, '00:00'), at(10, '02:00'), { urgency: 'high', priority, service: { id: 'PBIL', summary: 'Billing', type: 'service_reference' } });

  // Opsgenie's captured Create (P3, team "operations"), made this lab's alerts of team "ops".
  const opsgenie = async (alertId: string, priority: string, created: string, closed: string) => {
    for (const [action, updated] of [['Create', created], ['Close', closed]]) {
      const body = opsgeniePayload('alertCreated.json');
      Object.assign(body, { action });
      Object.assign(body.alert, { alertId, priority, createdAt: Date.parse(created), updatedAt: Date.parse(updated) * 1e6, team: 'ops' });
      await send(`/ingest/opsgenie/${apps.opsgenie.id}`, { Authorization: `Bearer ${apps.opsgenie.secret}` }, JSON.stringify(body));
    }
  };
  await opsgenie('O1', 'P1', at(6, '10:00'), at(6, '10:30'));
  await opsgenie('O2', 'P4', at(7, '09:00'), at(7, '15:00'));

  const s1 = { id: 'S1', title: 'Search timeouts', created_at: at(9, '12:00'), resolved_at: at(9, '12:15'), repository: 'lab/api', urgency: 'low', priority: 'P2', service: 'search' };
  await send(`/ingest/deployments/${apps.deployments.id}/incidents`, { Authorization: `Bearer ${apps.deployments.secret}` }, JSON.stringify(s1));
});
afterAll(async () => t?.close());

async function send(path: string, headers: Record<string, string>, body: string) {
  const req = request(t.runtime.app).post(path).set('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  const answer = await req.send(body);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
}

const sendToPagerDuty = (body: object) => {
  const text = JSON.stringify(body);
  return send(`/ingest/pagerduty/${apps.pagerduty.id}`, { 'X-PagerDuty-Signature': pagerdutySignature(apps.pagerduty.secret, text) }, text);
};

const settings = (change: Record<string, unknown>) => t.runtime.writers.metricSettings.update(org, change, OPERATOR);

/** Time to restore, the change failure rate, and which days' incidents counted (one incident a day: May 4 … 10). */
async function figures() {
  const answer = await t.get(`/v1/metrics/dora?${new URLSearchParams({ organization_id: org, ...WEEK, interval: 'day' })}`, token);
  expect(answer.status).toBe(200);
  const { time_to_restore, change_failure_rate, series } = answer.body.data;
  const days = series.flatMap((b: { start: string; incidents: number }) => (b.incidents ? [Number(b.start.slice(8, 10))] : []));
  return { time_to_restore, failed: change_failure_rate.failed, days, version: answer.body.meta.settings_version };
}

const ALL_DAYS = [4, 5, 6, 7, 8, 9, 10];

test('each source stores what it says of its incident; by default every incident counts, as before these settings', async () => {
  const stored = await Incident.findAll({ where: { organization_id: org }, order: [['created_at', 'ASC']] });
  expect(stored.map((i) => [i.external_id, i.urgency, i.priority, i.service])).toEqual([
    ['P1', 'high', null, 'Webhook Tester'],
    ['P2', 'low', null, 'Webhook Tester'],
    ['O1', null, 'P1', 'ops'],
    ['O2', null, 'P4', 'ops'],
    ['G1', null, null, null],
    ['S1', 'low', 'P2', 'search'],
    ['B1', 'high', 'P3', 'Billing'],
  ]);
  // [0.25, 0.5, 1, 2, 3, 4, 6]: rank 4.
  expect(await figures()).toEqual({ time_to_restore: { median_hours: 2, incidents: 7, band: 'high' }, failed: 1, days: ALL_DAYS, version: 0 });
});

test("a low-urgency PagerDuty incident is out of time to restore once incident_urgency is high, and in again with any; its blame still fails D1", async () => {
  await settings({ incident_urgency: 'high' });
  // P2 and S1 (low) out; Opsgenie's and GitHub's have no urgency: [0.5, 1, 2, 3, 6], rank 3.
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 2, incidents: 5, band: 'high' }, failed: 1, days: [4, 6, 7, 8, 10] });
  await settings({ incident_urgency: 'any' });
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 2, incidents: 7, band: 'high' }, failed: 1, days: ALL_DAYS });
});

test('an Opsgenie P4 alert is out with priorities P1 and P2; those without a priority stay', async () => {
  await settings({ incident_priorities: ['p2', 'P1'] });
  // O2 (P4) and B1 (P3) out; P1, P2 and G1 have none: [0.25, 0.5, 1, 3, 4], rank 3.
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 1, incidents: 5, band: 'high' }, days: [4, 5, 6, 8, 9] });
  // With the urgency too: S1 and P2 out as well. [0.5, 1, 3]
  await settings({ incident_urgency: 'high' });
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 1, incidents: 3, band: 'high' }, days: [4, 6, 8] });
  await settings({ incident_urgency: 'any', incident_priorities: [] });
  expect((await figures()).days).toEqual(ALL_DAYS);
});

test('services by name or by the board an incident was placed by, without regard to case; a GitHub incident is never left out', async () => {
  await settings({ incident_services: ['OPS', 'search'] });
  // O1, O2, S1, and G1 (no service): [0.25, 0.5, 3, 6], rank 2.
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 0.5, incidents: 4, band: 'elite' }, days: [6, 7, 8, 9] });
  // PagerDuty's service id, its board: P1, P2; and Billing by name.
  await settings({ incident_services: ['papi', 'billing'] });
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 2, incidents: 4, band: 'high' }, days: [4, 5, 8, 10] });
  // Every filter at once: only G1, which says nothing of any, and P1 (high, no priority, PAPI).
  await settings({ incident_urgency: 'high', incident_priorities: ['P1'], incident_services: ['papi'] });
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 1, incidents: 2, band: 'high' }, days: [4, 8] });
  await settings({ incident_urgency: 'any', incident_priorities: [], incident_services: [] });
  expect(await figures()).toMatchObject({ time_to_restore: { median_hours: 2, incidents: 7 }, days: ALL_DAYS });
});

test('an incident stored before urgency and priority were kept counts whatever they say, until an older event of it fills them in', async () => {
  await Incident.update({ urgency: null, priority: null, service: null }, { where: { organization_id: org, external_id: 'P2' } });
  await settings({ incident_urgency: 'high' });
  expect((await figures()).days).toEqual([4, 5, 6, 7, 8, 10]);
  // The history imported again: the triggered event, older than the stored resolution, changes no time but says the urgency.
  const body = pagerdutyPayload('incidentTriggered.json');
  Object.assign(body.event, { id: 'P2-triggered-again', occurred_at: at(5, '10:00') });
  Object.assign(body.event.data, { id: 'P2', created_at: at(5, '10:00'), service: { ...body.event.data.service, id: 'PAPI' } });
  await sendToPagerDuty(body);
  const p2 = (await Incident.findOne({ where: { organization_id: org, external_id: 'P2' } }))!;
  expect([p2.urgency, p2.service, p2.resolved_at?.toISOString()]).toEqual(['low', 'Webhook Tester', at(5, '14:00')]);
  expect((await figures()).days).toEqual([4, 6, 7, 8, 10]);
  await settings({ incident_urgency: 'any' });
});

test('mistakes are 400 with what to fix, and nothing changes', async () => {
  const before = (await ada.query('settings.metrics.get', { organization_id: org })).body.result.data;
  expect(before).toMatchObject({ incident_urgency: 'any', incident_priorities: [], incident_services: [], defaults: { incident_urgency: 'any', incident_priorities: [], incident_services: [] } });
  const cases: [unknown, string][] = [
    [{ incident_urgency: 'low' }, 'incident_urgency must be high or any'],
    [{ incident_urgency: ['high'] }, 'incident_urgency must be high or any'],
    [{ incident_priorities: 'P1' }, 'incident_priorities must be a list of P1, P2, P3, P4, P5 (empty: any priority)'],
    [{ incident_priorities: ['P1', 'SEV1'] }, 'incident priority "SEV1" is none of P1, P2, P3, P4, P5'],
    [{ incident_priorities: [1] }, 'each incident priority must be one of P1, P2, P3, P4, P5'],
    [{ incident_services: 'ops' }, 'incident_services must be a list of service or team names or ids (empty: any)'],
    [{ incident_services: [' '] }, 'an incident service must not be empty'],
    [{ incident_services: ['x'.repeat(201)] }, 'an incident service must be at most 200 characters'],
    [{ incident_services: ['ops\u0007x'] }, 'must not hold control characters'],
    [{ incident_services: Array.from({ length: 51 }, (_, i) => `svc-${i}`) }, 'incident_services takes at most 50'],
  ];
  for (const [change, message] of cases) {
    const res = await ada.mutate('settings.metrics.update', { organization_id: org, settings: change });
    expect([JSON.stringify(change).slice(0, 40), res.status, res.body.error.message]).toEqual([JSON.stringify(change).slice(0, 40), 400, expect.stringContaining(message)]);
  }
  expect((await ada.query('settings.metrics.get', { organization_id: org })).body.result.data.version).toBe(before.version);
  // Kept as they are compared: priorities in order, services lowercased, each once.
  const saved = await ada.mutate('settings.metrics.update', { organization_id: org, settings: { incident_priorities: ['p3', 'P1', 'P3'], incident_services: ['Ops', 'ops', 'PAPI'] } });
  expect(saved.body.result.data).toMatchObject({ version: before.version + 1, incident_priorities: ['P1', 'P3'], incident_services: ['ops', 'papi'] });
  await settings({ incident_priorities: [], incident_services: [] });
});

test('npm run metrics-settings: set and show the incident settings; usage mistakes exit 2 saying what to give', async () => {
  const set = await cli('set', '--org', org, '--incident-urgency', 'HIGH', '--incident-priorities', 'P1, p2', '--incident-services', 'ops,PAPI', '--json');
  expect(set.code).toBe(0);
  expect(JSON.parse(set.stdout)).toMatchObject({ incident_urgency: 'high', incident_priorities: ['P1', 'P2'], incident_services: ['ops', 'papi'] });
  const shown = await cli('show', '--org', org);
  expect(shown.stdout).toContain('incident urgency: high   (default: any)');
  expect(shown.stdout).toContain('incident priorities: P1, P2   (default: any)');
  expect(shown.stdout).toContain('incident services: ops, papi   (default: any)');
  const back = await cli('set', '--org', org, '--incident-urgency', 'any', '--incident-priorities', 'any', '--incident-services', 'ANY');
  expect(back.code).toBe(0);
  expect(back.stdout).toContain('incident priorities: any   (default: any)');
  const usage = await cli('set', '--org', org, '--incident-urgency', 'low');
  expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('--incident-urgency takes high or any, not "low"')]);

  expect(parseCommand(['set', '--org', org, '--incident-priorities', 'p4'])).toEqual({ kind: 'set', org, settings: { incident_priorities: ['P4'] }, json: false });
  expect(() => parseCommand(['set', '--org', org, '--incident-priorities', 'P1,P7'])).toThrow(new UsageError('--incident-priorities takes P1 to P5 (or any), not "P7"'));
  expect(() => parseCommand(['set', '--org', org, '--incident-priorities', ' , '])).toThrow(new UsageError('--incident-priorities needs priorities of P1 to P5, e.g. P1,P2, or any'));
  expect(() => parseCommand(['set', '--org', org, '--incident-services', ''])).toThrow(
    new UsageError('--incident-services needs names or ids of PagerDuty services or Opsgenie teams, e.g. checkout,PNE3JZM, or any'),
  );
  expect(() => parseCommand(['set', '--org', org, '--incident-urgency', 'urgent'])).toThrow(new UsageError('--incident-urgency takes high or any, not "urgent"'));
  expect(() => parseCommand(['set', '--org', org])).toThrow(UsageError);
});

test('the condition: nothing under the defaults; each filter passes what has the value asked for or none', () => {
  expect(incidentCondition({ incident_urgency: 'any', incident_priorities: [], incident_services: [] }, 'i')).toEqual({ sql: '1 = 1', replacements: {} });
  expect(incidentCondition({ incident_urgency: 'high', incident_priorities: ['P1'], incident_services: ['ops'] }, 'i')).toEqual({
    sql:
      "(i.urgency IS NULL OR i.urgency = 'high') AND (i.priority IS NULL OR UPPER(i.priority) IN (:incident_priorities)) AND (i.service IS NULL OR LOWER(i.service) IN (:incident_services) OR LOWER(i.board_key) IN (:incident_services))",
    replacements: { incident_priorities: ['P1'], incident_services: ['ops'] },
  });
});
