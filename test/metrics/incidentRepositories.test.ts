import request from 'supertest';
import { GitApp, Incident, IncidentRepository, Repository } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { deleteRepository } from '../../src/services/git/repositories/repositories';
import { startTestApp, TestApp } from '../support/harness';
import { createLab, sha } from '../support/data/metricsHistory';
import { unique } from '../support/common';
import { pagerdutySignature, payload as pagerdutyPayload } from '../support/peers/pagerduty/deliveries';
import { withSecret } from '../support/webhooks';

/**
 * One PagerDuty service, several repositories (docs/incidents.md#mapping): a service mapped to lab/api and then to
 * lab/web brings incidents that belong to both. Worked by hand, the week of Monday May 4, 2026:
 *
 *   k1 commit of lab/api, deployed to production by DA (success, May 4 07:00)
 *   k2 commit of lab/web, deployed to production by DW (success, May 4 07:30)
 *   P1 PagerDuty, service PSHARED (→ lab/api, then lab/web), May 5 10:00–12:00 (2 h); its note names k2 its root cause
 *
 * Team Core owns lab/api and team Empty lab/web (explicitly). P1 counts once for the organization, once for each
 * team; it blames DW (a commit of lab/web), never DA. Unmapped from lab/api, it is Empty's only; lab/web erased, it
 * is stored under lab/api again, which it was mapped to once more.
 */
let t: TestApp;
let token: string;
let org: string;
let teams: { core: string; empty: string };
let repos: { api: string; web: string };
let pagerduty: { id: string; secret: string };
let gitAppId: string;
const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => `2026-05-${String(day).padStart(2, '0')}T${time}:00.000Z`;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  token = await t.token();
  const created = await createLab(t, `One service, several repositories ${unique()}`);
  org = created.lab.organizationId;
  teams = { core: created.lab.core, empty: created.lab.empty };
  gitAppId = created.gitAppId;
  const gitApp = (await GitApp.findByPk(gitAppId))!;
  const repository = (name: string): RepositoryRef => ({ providerId: `shared-${name}-${unique()}`, name, fullName: `lab/${name}`, defaultBranch: 'main', isPrivate: false, createdAt: new Date(at(1, '00:00')) });
  const [api, web] = [repository('api'), repository('web')];
  const commit = (key: string, time: string) => ({ sha: sha(key), message: key, authorName: 'Ada', authorEmail: 'ada@demo.test', authorUsername: null, createdAt: new Date(at(4, time)) });
  const deployment = (key: string, commitKey: string, time: string) => ({ externalId: key, environment: 'production', status: 'success' as const, sha: sha(commitKey), createdAt: new Date(at(4, time)), finishedAt: new Date(at(4, time)) });
  const git: Activity[] = [
    { kind: 'push', repository: api, commits: [commit('k1', '06:00')] },
    { kind: 'push', repository: web, commits: [commit('k2', '06:10')] },
    { kind: 'deployment', repository: api, deployment: deployment('DA', 'k1', '07:00') },
    { kind: 'deployment', repository: web, deployment: deployment('DW', 'k2', '07:30') },
  ];
  for (const [i, activity] of git.entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `shared-${unique()}-${i}`, event: activity.kind }, activity);
  const idOf = async (fullName: string) => (await Repository.findOne({ where: { git_app_id: gitApp.id, full_name: fullName } }))!.id;
  repos = { api: await idOf('lab/api'), web: await idOf('lab/web') };
  await t.runtime.writers.teamRepositories.set(org, teams.core, ['lab/api'], OPERATOR);
  await t.runtime.writers.teamRepositories.set(org, teams.empty, ['lab/web'], OPERATOR);

  const { app, secret } = withSecret(await t.runtime.writers.apps.create(org, 'pagerduty', { name: 'PagerDuty' }));
  pagerduty = { id: app.id, secret };
  await t.runtime.writers.apps.map(app.id, 'PSHARED', { repositoryId: repos.api });
  await t.runtime.writers.apps.map(app.id, 'PSHARED', { repositoryId: repos.web });

  // PagerDuty's captured deliveries (test/support/peers/pagerduty), made this lab's incident on service PSHARED.
  const resolved = pagerdutyPayload('incidentResolved.json');
  Object.assign(resolved.event, { id: 'P1-resolved', occurred_at: at(5, '12:00') });
  Object.assign(resolved.event.data, { id: 'P1', created_at: at(5, '10:00'), service: { ...resolved.event.data.service, id: 'PSHARED' } });
  const stored = await sendToPagerDuty(resolved);
  expect(stored.body.data.incidents).toEqual([{ external_id: 'P1', result: 'created', repository_id: repos.api }]);
  const note = pagerdutyPayload('incidentAnnotated.json');
  Object.assign(note.event, { id: 'P1-note', occurred_at: at(5, '12:05') });
  Object.assign(note.event.data, { incident: { ...note.event.data.incident, id: 'P1' }, content: `root cause: ${sha('k2')}` });
  await sendToPagerDuty(note);
});
afterAll(async () => t?.close());

async function sendToPagerDuty(body: object) {
  const text = JSON.stringify(body);
  const answer = await request(t.runtime.app)
    .post(`/ingest/pagerduty/${pagerduty.id}`)
    .set('Content-Type', 'application/json')
    .set('X-PagerDuty-Signature', pagerdutySignature(pagerduty.secret, text))
    .send(text);
  expect(answer.status).toBe(200);
  return answer;
}

/** Incidents in time to restore and failed deployments, for the organization or a team. */
async function figures(scope: { organization_id: string } | { team_id: string }) {
  const answer = await t.get(`/v1/metrics/dora?${new URLSearchParams({ ...scope, ...WEEK })}`, token);
  expect(answer.status).toBe(200);
  const { time_to_restore, change_failure_rate } = answer.body.data;
  return { incidents: time_to_restore.incidents, hours: time_to_restore.median_hours, failed: change_failure_rate.failed };
}

const incident = async () => (await Incident.findOne({ where: { organization_id: org, external_id: 'P1' } }))!;
const belongsTo = async () => (await IncidentRepository.findAll({ where: { incident_id: (await incident()).id } })).map((r) => r.repository_id).sort();

test('an incident of a service mapped to two repositories is stored under the first and belongs to both', async () => {
  expect((await incident()).repository_id).toBe(repos.api);
  expect(await belongsTo()).toEqual([repos.api, repos.web].sort());
  const mappings = await t.runtime.writers.apps.mappings(pagerduty.id);
  expect(mappings.map((m) => [m.board_key, m.repository_id, m.team_id])).toEqual([
    ['PSHARED', repos.api, null],
    ['PSHARED', repos.web, null],
  ]);
});

test("each repository's incident list shows it, and the app's list once", async () => {
  const listed = async (repo: string) => {
    const answer = await t.get(`/v1/git/apps/${gitAppId}/repositories/${repo}/incidents`, token);
    expect(answer.status).toBe(200);
    return answer.body.data.map((i: { service: string; repository_id: string }) => [i.service, i.repository_id]);
  };
  expect(await listed(repos.api)).toEqual([['PSHARED', repos.api]]);
  expect(await listed(repos.web)).toEqual([['PSHARED', repos.api]]);
  expect(await listed('all')).toEqual([['PSHARED', repos.api]]);
});

test('it counts once for the organization and once for each team that owns one of its repositories; its root cause blames the deployment of lab/web alone', async () => {
  expect(await figures({ organization_id: org })).toEqual({ incidents: 1, hours: 2, failed: 1 });
  expect(await figures({ team_id: teams.core })).toEqual({ incidents: 1, hours: 2, failed: 0 });
  expect(await figures({ team_id: teams.empty })).toEqual({ incidents: 1, hours: 2, failed: 1 });
});

test('mapping the same repository again changes nothing; mapping a tracker board to a repository is refused', async () => {
  await t.runtime.writers.apps.map(pagerduty.id, 'PSHARED', { repositoryId: repos.api });
  expect(await belongsTo()).toEqual([repos.api, repos.web].sort());
  const { app: jira } = await t.runtime.writers.apps.create(org, 'jira', { name: 'Jira' });
  await expect(t.runtime.writers.apps.map(jira.id, 'PLAT', { repositoryId: repos.api })).rejects.toMatchObject({ kind: 'invalid', message: expect.stringMatching(/Jira board is mapped to a team/) });
});

test('unmapped from one repository, it belongs to the other alone; unmapped from every one, to the organization only', async () => {
  expect(await t.runtime.writers.apps.unmap(pagerduty.id, 'PSHARED', {}, repos.api)).toBe(true);
  expect(await t.runtime.writers.apps.unmap(pagerduty.id, 'PSHARED', {}, repos.api)).toBe(false);
  expect((await incident()).repository_id).toBe(repos.web);
  expect(await belongsTo()).toEqual([repos.web]);
  expect(await figures({ team_id: teams.core })).toEqual({ incidents: 0, hours: null, failed: 0 });
  expect(await figures({ team_id: teams.empty })).toEqual({ incidents: 1, hours: 2, failed: 1 });

  await t.runtime.writers.apps.map(pagerduty.id, 'PSHARED', { repositoryId: repos.api });
  expect([(await incident()).repository_id, await belongsTo()]).toEqual([repos.web, [repos.api, repos.web].sort()]);
  expect(await figures({ team_id: teams.core })).toEqual({ incidents: 1, hours: 2, failed: 0 });

  expect(await t.runtime.writers.apps.unmap(pagerduty.id, 'PSHARED')).toBe(true);
  expect([(await incident()).repository_id, await belongsTo()]).toEqual([null, []]);
  expect(await figures({ organization_id: org })).toEqual({ incidents: 1, hours: 2, failed: 0 });
  expect(await figures({ team_id: teams.empty })).toEqual({ incidents: 0, hours: null, failed: 0 });
});

test('a repository erased takes its mappings: the incident is stored under the next repository of its service', async () => {
  await t.runtime.writers.apps.map(pagerduty.id, 'PSHARED', { repositoryId: repos.web });
  await t.runtime.writers.apps.map(pagerduty.id, 'PSHARED', { repositoryId: repos.api });
  expect((await incident()).repository_id).toBe(repos.web);
  const web = (await Repository.findByPk(repos.web))!;
  await ChangeRunner.for(t.runtime.sequelize).run((change) => deleteRepository(change, web));
  expect([(await incident()).repository_id, await belongsTo()]).toEqual([repos.api, [repos.api]]);
  expect((await t.runtime.writers.apps.mappings(pagerduty.id)).map((m) => m.repository_id)).toEqual([repos.api]);
  expect(await figures({ team_id: teams.core })).toEqual({ incidents: 1, hours: 2, failed: 0 });
});
