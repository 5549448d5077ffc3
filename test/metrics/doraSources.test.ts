import request from 'supertest';
import { GitApp } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { createLab, Lab, sha } from '../support/data/metricsHistory';
import { unique } from '../support/common';
import { pagerdutySignature, payload as pagerdutyPayload } from '../support/peers/pagerduty/deliveries';
import { payload as opsgeniePayload } from '../support/peers/opsgenie/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * DORA (docs/metrics.md#dora-the-four-keys-method) counts incidents and deployments from every source alike: a GitHub
 * repository's deployments and `incident` issue, a CI job's deployments through the deployments API, PagerDuty
 * incidents on a mapped and an unmapped service, an Opsgenie alert of a mapped team and an incident a script
 * reported. Every figure is worked out by hand below, for the week of Monday May 4, 2026:
 *
 *   lab/api commits k1 May 4 08:00, k2 May 5 08:00, k3 May 6 08:00, all by Ada (team Core's repository)
 *   G1 GitHub deployment, success, May 4 10:00        ships k1 (2 h)
 *   A1 API deployment of lab/api, success, May 5 12:00 ships k2 (4 h); rework: GH1 open, and GH1 names k2 its fix
 *   A2 API deployment of lab/api, failure, May 6 09:00 rework: P1 open
 *   A3 API deployment of lab/api, success, May 6 14:00 ships k3 (6 h); rework: S1 names k3 its fix
 *   U1 API deployment of "checkout-svc", success, May 7 12:00: no repository of that name, the organization's only
 *   GH1 GitHub issue May 5 11:00–12:00 (1 h)   P1 PagerDuty, service PAPI → lab/api, May 6 08:00–10:00 (2 h)
 *   P2 PagerDuty, unmapped PUNM, May 7 00:00–06:00 (6 h)   O1 Opsgenie, team "ops" → lab/api, May 8 10:00–10:30 (0.5 h)
 *   S1 API incident on lab/api, May 6 13:00–13:30 (0.5 h), fix_sha k3
 */
let t: TestApp;
let lab: Omit<Lab, 'repositories'>;
let repositoryId: string;
let token: string;
const apps: Record<'pagerduty' | 'opsgenie' | 'deployments', { id: string; secret: string }> = {} as never;
const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => `2026-05-${String(day).padStart(2, '0')}T${time}:00.000Z`;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  token = await t.token();
  const created = await createLab(t, `DORA sources ${unique()}`);
  lab = created.lab;
  const gitApp = (await GitApp.findByPk(created.gitAppId))!;
  const repository: RepositoryRef = { providerId: `dora-${unique()}`, name: 'api', fullName: 'lab/api', defaultBranch: 'main', isPrivate: false, createdAt: new Date(at(1, '00:00')) };
  const commit = (key: string, when: string) => ({ sha: sha(key), message: key, authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: new Date(when) });
  const git: Activity[] = [
    { kind: 'push', repository, commits: [commit('k1', at(4, '08:00')), commit('k2', at(5, '08:00')), commit('k3', at(6, '08:00'))] },
    { kind: 'deployment', repository, deployment: { externalId: 'G1', environment: 'production', status: 'success', sha: sha('k1'), createdAt: new Date(at(4, '09:50')), finishedAt: new Date(at(4, '10:00')) } },
    { kind: 'incident', repository, incident: { externalId: 'GH1', title: 'Checkout 500s', causeSha: null, fixSha: sha('k2').slice(0, 9), createdAt: new Date(at(5, '11:00')), resolvedAt: new Date(at(5, '12:00')), updatedAt: new Date(at(5, '12:00')) } },
  ];
  for (const [i, activity] of git.entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `dora-${unique()}-${i}`, event: activity.kind }, activity);
  repositoryId = (await t.runtime.writers.gitActivity.importCommits(gitApp, repository, [])).repositoryId;

  for (const provider of ['pagerduty', 'opsgenie', 'deployments'] as const) {
    const { app, secret } = withSecret(await t.runtime.writers.apps.create(lab.organizationId, provider, { name: provider }));
    apps[provider] = { id: app.id, secret };
  }
  await t.runtime.writers.apps.map(apps.pagerduty.id, 'PAPI', { repositoryId });
  await t.runtime.writers.apps.map(apps.opsgenie.id, 'ops', { repositoryId });

  const api = (resource: string, body: object) => send(`/ingest/deployments/${apps.deployments.id}/${resource}`, { Authorization: `Bearer ${apps.deployments.secret}` }, JSON.stringify(body));
  const deployment = (id: string, repository: string, status: string, commitSha: string, finished: string) =>
    api('deployments', { id, repository, environment: 'production', status, sha: commitSha, created_at: new Date(Date.parse(finished) - 600_000).toISOString(), finished_at: finished });
  await deployment('A1', 'lab/api', 'success', sha('k2'), at(5, '12:00'));
  await deployment('A2', 'lab/api', 'failure', sha('k3'), at(6, '09:00'));
  await deployment('A3', repositoryId, 'success', sha('k3'), at(6, '14:00'));
  await deployment('U1', 'checkout-svc', 'success', sha('u1'), at(7, '12:00'));
  await api('incidents', { id: 'S1', title: 'Search timeouts', created_at: at(6, '13:00'), resolved_at: at(6, '13:30'), repository: 'lab/api', fix_sha: sha('k3') });

  // PagerDuty's captured deliveries, made this lab's incidents: their ids, service and times.
  const pagerduty = async (type: 'triggered' | 'resolved', id: string, service: string, created: string, occurred: string) => {
    const body = pagerdutyPayload(type === 'triggered' ? 'incidentTriggered.json' : 'incidentResolved.json');
    Object.assign(body.event, { id: `${id}-${type}`, occurred_at: occurred });
    Object.assign(body.event.data, { id, created_at: created, service: { ...body.event.data.service, id: service } });
    const text = JSON.stringify(body);
    await send(`/ingest/pagerduty/${apps.pagerduty.id}`, { 'X-PagerDuty-Signature': pagerdutySignature(apps.pagerduty.secret, text) }, text);
  };
  await pagerduty('triggered', 'P1', 'PAPI', at(6, '08:00'), at(6, '08:00'));
  await pagerduty('resolved', 'P1', 'PAPI', at(6, '08:00'), at(6, '10:00'));
  await pagerduty('resolved', 'P2', 'PUNM', at(7, '00:00'), at(7, '06:00'));

  // Opsgenie's captured Create and Close, made this lab's alert of team "ops".
  const opsgenie = async (action: 'Create' | 'Close', updated: string) => {
    const body = opsgeniePayload('alertCreated.json');
    Object.assign(body, { action });
    Object.assign(body.alert, { alertId: 'O1', createdAt: Date.parse(at(8, '10:00')), updatedAt: Date.parse(updated) * 1e6, team: 'ops' });
    await send(`/ingest/opsgenie/${apps.opsgenie.id}`, { Authorization: `Bearer ${apps.opsgenie.secret}` }, JSON.stringify(body));
  };
  await opsgenie('Create', at(8, '10:00'));
  await opsgenie('Close', at(8, '10:30'));
});
afterAll(async () => t.close());

async function send(path: string, headers: Record<string, string>, body: string) {
  const req = request(t.runtime.app).post(path).set('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  const answer = await req.send(body);
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
}

const dora = async (scope: Record<string, string>) => {
  const answer = await t.get(`/v1/metrics/dora?${new URLSearchParams({ ...scope, ...WEEK })}`, token);
  expect(answer.status).toBe(200);
  const { scope: _, from: __, to: ___, interval: ____, ...figures } = answer.body.data;
  return figures;
};

test('the organization: every source, the unmapped service and repository included', async () => {
  expect(await dora({ organization_id: lab.organizationId })).toEqual({
    // G1, A1, A3, U1 in 7 days.
    deployment_frequency: { deployments: 4, per_day: 0.5714, band: 'high' },
    // [2, 4, 6]: rank ⌈0.5·3⌉ = 2.
    lead_time_for_changes: { median_hours: 4, changes: 3, band: 'elite' },
    // A2 of G1, A1, A2, A3, U1: the high cluster's 20 %.
    change_failure_rate: { rate: 0.2, failed: 1, deployments: 5, band: 'high' },
    // [0.5 (O1), 0.5 (S1), 1 (GH1), 2 (P1), 6 (P2)]: rank 3.
    time_to_restore: { median_hours: 1, incidents: 5, band: 'high' },
    // A2 recovered by A3, 5 h later.
    failed_deployment_recovery: { median_hours: 5, deployments: 1, unrecovered: 0, band: 'high' },
    // A1, A2, A3 of the five.
    rework_rate: { rate: 0.6, rework: 3, deployments: 5, band: 'low' },
  });
});

test("the team: lab/api's deployments and incidents, whatever brought them; mapping the rest places it", async () => {
  expect(await dora({ team_id: lab.core })).toEqual({
    deployment_frequency: { deployments: 3, per_day: 0.4286, band: 'high' },
    lead_time_for_changes: { median_hours: 4, changes: 3, band: 'elite' },
    change_failure_rate: { rate: 0.25, failed: 1, deployments: 4, band: 'low' },
    // [0.5, 0.5, 1, 2]: rank 2.
    time_to_restore: { median_hours: 0.5, incidents: 4, band: 'elite' },
    failed_deployment_recovery: { median_hours: 5, deployments: 1, unrecovered: 0, band: 'high' },
    rework_rate: { rate: 0.75, rework: 3, deployments: 4, band: 'low' },
  });
  // "checkout-svc" and PUNM turn out to be lab/api: the team now counts them, as the organization did.
  await t.runtime.writers.apps.map(apps.deployments.id, 'checkout-svc', { repositoryId });
  await t.runtime.writers.apps.map(apps.pagerduty.id, 'PUNM', { repositoryId });
  expect(await dora({ team_id: lab.core })).toEqual(await dora({ organization_id: lab.organizationId }));
  expect((await dora({ team_id: lab.core })).deployment_frequency.deployments).toBe(4);
});
