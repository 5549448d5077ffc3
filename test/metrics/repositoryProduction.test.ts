import request from 'supertest';
import { AuditEntry, GitApp, Repository } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { publicBase } from '../../src/config';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { createLab, sha } from '../support/data/metricsHistory';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';

/**
 * A repository's own production environments (docs/metrics.md#a-repositorys-own-production-environments): lab/web
 * deploys to production as `live`, lab/api as `production`. Worked by hand, Monday May 4, 2026:
 *
 *   api  k1 05:00 → DA1 production 06:00 (1 h);  k2 06:30 → DA2 production 08:30 (2 h)
 *   web  k3 05:00 → DW2 production 05:30 (0.5 h); k4 06:00 → DW1 live 16:00 (k3 11 h, k4 10 h: the first to live
 *        ships every commit before it, each environment counting from its own previous success)
 *
 * The organization's list alone (production): DA1, DA2, DW2; changes [0.5, 1, 2], median 1 h.
 * web's own list live: DA1, DA2, DW1; changes [1, 2, 10, 11], median 2 h (rank 2 of 4).
 * Team Empty owns web: DW2, [0.5] by the organization's list; DW1, [10, 11] → 10 h by its own.
 * Team Core owns api: DA1, DA2 and [1, 2] → 1 h, whatever web's list.
 */
let t: TestApp;
let ada: SettingsBrowser;
let linus: SettingsBrowser;
let token: string;
let org: string;
let teams: { core: string; empty: string };
let repos: { api: string; web: string };
let cli: (...args: string[]) => Promise<CliRun>;
const DAY = { from: '2026-05-04', to: '2026-05-04' };
const at = (time: string) => new Date(`2026-05-04T${time}:00.000Z`);

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  const origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
  linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
  token = await t.token();
  cli = appCli(t, 'metricsSettings');
  const created = await createLab(t, `Own production ${unique()}`);
  org = created.lab.organizationId;
  teams = { core: created.lab.core, empty: created.lab.empty };
  const gitApp = (await GitApp.findByPk(created.gitAppId))!;
  const repository = (name: string): RepositoryRef => ({ providerId: `own-${name}-${unique()}`, name, fullName: `lab/${name}`, defaultBranch: 'main', isPrivate: false, createdAt: new Date('2026-05-01T00:00:00Z') });
  const [api, web] = [repository('api'), repository('web')];
  const commit = (key: string, time: string) => ({ sha: sha(key), message: key, authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: at(time) });
  const deployment = (key: string, commitKey: string, environment: string, time: string) => ({
    externalId: key,
    environment,
    status: 'success' as const,
    sha: sha(commitKey),
    createdAt: new Date(at(time).getTime() - 600_000),
    finishedAt: at(time),
  });
  const activities: Activity[] = [
    { kind: 'push', repository: api, commits: [commit('k1', '05:00'), commit('k2', '06:30')] },
    { kind: 'push', repository: web, commits: [commit('k3', '05:00'), commit('k4', '06:00')] },
    { kind: 'deployment', repository: web, deployment: deployment('DW2', 'k3', 'production', '05:30') },
    { kind: 'deployment', repository: api, deployment: deployment('DA1', 'k1', 'production', '06:00') },
    { kind: 'deployment', repository: api, deployment: deployment('DA2', 'k2', 'production', '08:30') },
    { kind: 'deployment', repository: web, deployment: deployment('DW1', 'k4', 'live', '16:00') },
  ];
  for (const [i, activity] of activities.entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `own-${unique()}-${i}`, event: activity.kind }, activity);
  const idOf = async (fullName: string) => (await Repository.findOne({ where: { organization_id: org, full_name: fullName } }))!.id;
  repos = { api: await idOf('lab/api'), web: await idOf('lab/web') };
  await t.runtime.writers.teamRepositories.set(org, teams.core, ['lab/api'], OPERATOR);
  await t.runtime.writers.teamRepositories.set(org, teams.empty, ['lab/web'], OPERATOR);
});
afterAll(async () => t?.close());

/** Deployments, shipped changes and their median lead time, as a dashboard reads them, with the settings' version. */
async function figures(scope: { organization_id: string } | { team_id: string }) {
  const answer = await t.get(`/v1/metrics/dora?${new URLSearchParams({ ...scope, ...DAY })}`, token);
  expect(answer.status).toBe(200);
  const { deployment_frequency, lead_time_for_changes, change_failure_rate } = answer.body.data;
  return { deployments: deployment_frequency.deployments, finished: change_failure_rate.deployments, changes: lead_time_for_changes.changes, median: lead_time_for_changes.median_hours, version: answer.body.meta.settings_version };
}

const setOwn = (repository: unknown, productionEnvironments: unknown, who = ada) =>
  who.mutate('settings.metrics.setRepositoryProduction', { organization_id: org, repository, production_environments: productionEnvironments });

test("by the organization's list alone, web's live deployment counts nowhere", async () => {
  expect(await figures({ organization_id: org })).toEqual({ deployments: 3, finished: 3, changes: 3, median: 1, version: 2 });
  expect(await figures({ team_id: teams.empty })).toEqual({ deployments: 1, finished: 1, changes: 1, median: 0.5, version: 2 });
});

test("web's own list counts its live deployment in the organization's and its team's figures, its production one no more; api's keep the organization's", async () => {
  const set = await setOwn('LAB/WEB', ['Live']);
  expect(set.status).toBe(200);
  expect(set.body.result.data).toMatchObject({ version: 3, production_environments: ['production'], repository_production_environments: { [repos.web]: ['live'] } });
  expect(await figures({ organization_id: org })).toEqual({ deployments: 3, finished: 3, changes: 4, median: 2, version: 3 });
  expect(await figures({ team_id: teams.empty })).toEqual({ deployments: 1, finished: 1, changes: 2, median: 10, version: 3 });
  expect(await figures({ team_id: teams.core })).toEqual({ deployments: 2, finished: 2, changes: 2, median: 1, version: 3 });

  const entry = await AuditEntry.findOne({ where: { organization_id: org, action: 'metric_settings.updated' }, order: [['created_at', 'DESC'], ['id', 'DESC']] });
  expect(JSON.parse(entry!.details!)).toEqual({ version: 3, repository_id: repos.web, changed: { production_environments: { from: null, to: ['live'] } } });

  // The same list again is no change: no version, no entry.
  expect((await setOwn(repos.web, ['live'])).body.result.data.version).toBe(3);
});

test("the organization's list changed leaves web's own alone; null gives web the organization's back", async () => {
  await t.runtime.writers.metricSettings.update(org, { production_environments: ['production', 'live'] }, OPERATOR);
  // api has no live deployment; web is read by its own list still: the same figures, under version 4.
  expect(await figures({ organization_id: org })).toEqual({ deployments: 3, finished: 3, changes: 4, median: 2, version: 4 });
  const back = await setOwn(repos.web, null);
  expect(back.body.result.data.repository_production_environments).toEqual({});
  // Both of web's environments now count: DW2 ships k3, DW1 ships k3 and k4 (each environment from its own previous success).
  expect(await figures({ team_id: teams.empty })).toEqual({ deployments: 2, finished: 2, changes: 3, median: 10, version: 5 });
  await t.runtime.writers.metricSettings.update(org, { production_environments: ['production'] }, OPERATOR);
  expect(await figures({ organization_id: org })).toEqual({ deployments: 3, finished: 3, changes: 3, median: 1, version: 6 });
});

test('mistakes are refused with what to fix, and a collaborator may not set it', async () => {
  const refused = async (repository: unknown, environments: unknown, who = ada) => {
    const answer = await setOwn(repository, environments, who);
    return [answer.status, answer.body.error.message];
  };
  expect(await refused('lab/nowhere', ['live'])).toEqual([400, expect.stringMatching(/No repository lab\/nowhere in organization/)]);
  // Another organization's repository is no repository of this one.
  expect(await refused(DEMO.repos.acmeApi, ['live'])).toEqual([400, expect.stringMatching(new RegExp(`No repository ${DEMO.repos.acmeApi} in organization`))]);
  expect(await refused(repos.web, [])).toEqual([400, expect.stringMatching(/at least one environment/)]);
  expect(await refused(repos.web, undefined)).toEqual([400, expect.stringMatching(/production_environments must be a list of names or globs, or null/)]);
  expect(await refused('', ['live'])).toEqual([400, 'repository must not be empty']);
  expect(await refused(repos.web, ['live'], linus)).toEqual([403, expect.any(String)]);
  // A settings change needs ada's session from a page of this service: not a bearer token, not another origin.
  const input = { organization_id: org, repository: repos.web, production_environments: ['live'] };
  const fromElsewhere = await ada.mutate('settings.metrics.setRepositoryProduction', input, { Origin: 'https://evil.example' });
  expect([fromElsewhere.status, fromElsewhere.body.error.message]).toEqual([403, 'A settings change from https://evil.example is refused: only pages of this service may make one']);
  const byToken = await request(t.runtime.app).post('/trpc/settings.metrics.setRepositoryProduction').set('Authorization', `Bearer ${token}`).send(input);
  expect(byToken.status).toBe(401);
  const update = await ada.mutate('settings.metrics.update', { organization_id: org, settings: { repository_production_environments: { [repos.web]: ['live'] } } });
  expect([update.status, update.body.error.message]).toEqual([400, expect.stringMatching(/one repository at a time \(settings\.metrics\.setRepositoryProduction/)]);
  expect((await ada.query('settings.metrics.get', { organization_id: org })).body.result.data).toMatchObject({ version: 6, repository_production_environments: {} });
});

test('npm run metrics-settings -- repo-production sets and clears it, and show lists it', async () => {
  const set = await cli('repo-production', '--org', org, '--repo', 'lab/web', '--production-environments', 'live,prod-*', '--json');
  expect([set.code, set.stderr]).toEqual([0, '']);
  expect(JSON.parse(set.stdout)).toMatchObject({ version: 7, repository_production_environments: { [repos.web]: ['live', 'prod-*'] } });
  const shown = await cli('show', '--org', org);
  expect(shown.stdout).toContain(`production environments of repository ${repos.web}: live, prod-*   (its own)`);
  const cleared = await cli('repo-production', '--org', org, '--repo', repos.web, '--organization-default', '--json');
  expect(JSON.parse(cleared.stdout)).toMatchObject({ version: 8, repository_production_environments: {} });
  const usage = await cli('repo-production', '--org', org, '--repo', repos.web);
  expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('--production-environments <list> or --organization-default, one of them')]);
});
