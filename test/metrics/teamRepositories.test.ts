import { AuditEntry, GitApp, Repository, TeamRepository } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { publicBase } from '../../src/config';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { parseCommand } from '../../scripts/metricsSettings';
import { UsageError } from '../../scripts/cli';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { eraseDeletedRepositories } from '../support/peers/ingest';
import { eventually } from '../support/peers/receiver';
import { insertHistory, Lab, sha } from '../support/data/metricsHistory';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';

/**
 * A team's repositories, owned explicitly (docs/metrics.md#what-a-team-covers), on the history of
 * test/support/data/metricsHistory.ts (test/metrics/metrics.test.ts works its figures by hand) and a third
 * repository, docs, where ada (team Core) also commits, merges a pull request and deploys that week:
 *   docs: commit d1 March 4 06:00, deployed 10:00 (4 h); pull request #6 opened March 3, merged March 4 (24 h).
 * Core by its members' commits (api, docs): D1, D3, D5, DD1; changes [1, 4, 6, 6, 15, 28]; D2 failed, D5 blamed;
 *   pull requests #2, #3, #4, #6 opened, #2 (12 h), #1 (48 h), #6 (24 h) merged.
 * Core owning web and docs: D7 and DD1; changes [2, 4]; none failed; #6 alone.
 */
let t: TestApp;
let ada: SettingsBrowser;
let linus: SettingsBrowser;
let token: string;
let lab: Lab;
let docs: string;
let cli: (...args: string[]) => Promise<CliRun>;

const WEEK = { from: '2026-03-02', to: '2026-03-08' };
const docsRef: RepositoryRef = { providerId: `docs-${unique()}`, name: 'docs', fullName: 'lab/docs', defaultBranch: 'main', isPrivate: false, createdAt: new Date('2026-01-01T00:00:00Z') };

beforeAll(async () => {
  t = await startTestApp();
  const origin = new URL(publicBase(t.config)).origin;
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, origin);
  linus = await signInWithLink(t.runtime.app, DEMO.users.linus, origin);
  token = await t.token();
  cli = appCli(t, 'metricsSettings');
  lab = await insertHistory(t);
  const gitApp = (await GitApp.findOne({ where: { organization_id: lab.organizationId } }))!;
  const activities: Activity[] = [
    {
      kind: 'push',
      repository: docsRef,
      commits: [{ sha: sha('d1'), message: 'd1', authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: new Date('2026-03-04T06:00:00Z') }],
    },
    {
      kind: 'pull_request',
      repository: docsRef,
      pullRequest: {
        number: 6,
        title: 'Docs',
        state: 'merged',
        authorUsername: null,
        authorProviderId: null,
        body: null,
        size: null,
        commits: { head: null, merge: null },
        createdAt: new Date('2026-03-03T00:00:00Z'),
        mergedAt: new Date('2026-03-04T00:00:00Z'),
        closedAt: new Date('2026-03-04T00:00:00Z'),
        updatedAt: new Date('2026-03-04T00:00:00Z'),
      },
    },
    {
      kind: 'deployment',
      repository: docsRef,
      deployment: { externalId: 'DD1', environment: 'production', status: 'success', sha: sha('d1'), createdAt: new Date('2026-03-04T09:50:00Z'), finishedAt: new Date('2026-03-04T10:00:00Z') },
    },
  ];
  for (const [i, activity] of activities.entries()) await t.runtime.writers.gitActivity.receive({ gitApp, id: `docs-${unique()}-${i}`, event: activity.kind }, activity);
  docs = (await Repository.findOne({ where: { organization_id: lab.organizationId, full_name: 'lab/docs' } }))!.id;
});
afterAll(async () => t?.close());

/** Through the API, as a dashboard asks: the kept figures are those of the settings in force. */
const metric = async (path: 'dora' | 'pull-requests', teamId: string) => {
  const res = await t.get(`/v1/metrics/${path}?${new URLSearchParams({ team_id: teamId, ...WEEK })}`, token);
  expect(res.status).toBe(200);
  return res.body;
};
const teamRepositories = (teamId: string, who = ada, organizationId = lab.organizationId) => who.query('settings.metrics.teamRepositories', { organization_id: organizationId, team_id: teamId });
const setTeamRepositories = (teamId: string, repositories: unknown, who = ada, organizationId = lab.organizationId) =>
  who.mutate('settings.metrics.setTeamRepositories', { organization_id: organizationId, team_id: teamId, repositories });
const versionOf = async (organizationId: string) => (await ada.query('settings.metrics.get', { organization_id: organizationId })).body.result.data.version;

test('a team that owns two repositories gets exactly their figures; cleared, those its members authored commits in again', async () => {
  // The fallback: api and docs, where ada commits; not web.
  const authored = await metric('dora', lab.core);
  expect(authored.data.scope).toEqual({ organization_id: lab.organizationId, team_id: lab.core, repositories: 'authored' });
  expect(authored.data).toMatchObject({
    deployment_frequency: { deployments: 4 },
    // [1, 4, 6, 6, 15, 28]: rank 3.
    lead_time_for_changes: { median_hours: 6, changes: 6 },
    change_failure_rate: { rate: 0.4, failed: 2, deployments: 5 },
  });
  // [12, 24, 48]: rank 2.
  expect((await metric('pull-requests', lab.core)).data).toMatchObject({ opened: 4, merged: 3, time_to_merge_hours: { median: 24, p75: 48, p90: 48 } });
  const version = await versionOf(lab.organizationId);

  // By full name (in any case) and by id.
  const set = await setTeamRepositories(lab.core, ['LAB/Web', docs]);
  expect(set.status).toBe(200);
  expect(set.body.result.data).toEqual({
    organization_id: lab.organizationId,
    team_id: lab.core,
    version: version + 1,
    owned: [
      { id: docs, full_name: 'lab/docs' },
      { id: lab.repositories.web, full_name: 'lab/web' },
    ],
    authored: [
      { id: lab.repositories.api, full_name: 'lab/api' },
      { id: docs, full_name: 'lab/docs' },
    ],
  });
  const owned = await metric('dora', lab.core);
  expect(owned.meta).toEqual({ settings_version: version + 1 });
  expect(owned.data.scope).toEqual({ organization_id: lab.organizationId, team_id: lab.core, repositories: 'owned' });
  expect(owned.data).toMatchObject({
    // D7 and DD1, one a day apart: 2 in 7 days.
    deployment_frequency: { deployments: 2, per_day: 0.2857 },
    // c7 (2 h) and d1 (4 h): rank 1.
    lead_time_for_changes: { median_hours: 2, changes: 2 },
    change_failure_rate: { rate: 0, failed: 0, deployments: 2 },
    // The incidents are api's.
    time_to_restore: { median_hours: null, incidents: 0 },
  });
  const pullRequests = await metric('pull-requests', lab.core);
  expect(pullRequests.data.scope.repositories).toBe('owned');
  expect(pullRequests.data).toMatchObject({ opened: 1, merged: 1, closed_unmerged: 0, open_now: 0, time_to_merge_hours: { median: 24, p75: 24, p90: 24 } });

  // The same list again changes nothing: no version.
  expect((await setTeamRepositories(lab.core, [docs, 'lab/web'])).body.result.data.version).toBe(version + 1);

  const cleared = await setTeamRepositories(lab.core, null);
  expect(cleared.body.result.data).toMatchObject({ version: version + 2, owned: null });
  const again = await metric('dora', lab.core);
  expect(again.meta).toEqual({ settings_version: version + 2 });
  expect(again.data.scope.repositories).toBe('authored');
  expect(again.data).toEqual({ ...authored.data });
  expect((await teamRepositories(lab.core)).body.result.data).toEqual({ ...cleared.body.result.data, owned: null });
});

test('an organization says it covers all its repositories', async () => {
  const res = await t.get(`/v1/metrics/dora?${new URLSearchParams({ organization_id: lab.organizationId, ...WEEK })}`, token);
  expect(res.body.data.scope).toEqual({ organization_id: lab.organizationId, team_id: null, repositories: 'all' });
  // D1, D3, D5, D7, DD1.
  expect(res.body.data.deployment_frequency.deployments).toBe(5);
});

test('each change is audited with the team and its repositories before and after, by the same action as every setting', async () => {
  const version = await versionOf(lab.organizationId);
  await setTeamRepositories(lab.empty, ['lab/api']);
  await setTeamRepositories(lab.empty, ['lab/api', 'lab/web']);
  await setTeamRepositories(lab.empty, null);
  const entries = (await AuditEntry.findAll({ where: { organization_id: lab.organizationId, action: 'metric_settings.updated' } }))
    .map((e) => ({ actor: e.actor_user_id, target: [e.target_type, e.target_id], details: JSON.parse(e.details) }))
    .filter((e) => e.details.version > version)
    .sort((a, b) => a.details.version - b.details.version);
  const sorted = (...ids: string[]) => ids.sort();
  const entry = (n: number, from: string[] | null, to: string[] | null) => ({
    actor: DEMO.users.ada,
    target: ['organization', lab.organizationId],
    details: { version: version + n, team_id: lab.empty, changed: { repositories: { from, to } } },
  });
  expect(entries).toEqual([
    entry(1, null, [lab.repositories.api]),
    entry(2, [lab.repositories.api], sorted(lab.repositories.api, lab.repositories.web)),
    entry(3, sorted(lab.repositories.api, lab.repositories.web), null),
  ]);
});

test("mistakes are 400 naming what to fix; another organization's repositories are unknown here, its teams not found", async () => {
  const version = await versionOf(lab.organizationId);
  const acmeRepository = (await Repository.findOne({ where: { organization_id: DEMO.orgs.acme } }))!;
  const cases: [unknown, string][] = [
    [['lab/api', 'lab/nope', acmeRepository.id, acmeRepository.full_name], `No repository lab/nope, ${acmeRepository.id}, ${acmeRepository.full_name} in organization ${lab.organizationId}`],
    [[], 'at least one repository, or be null'],
    ['lab/api', 'must be a list of repository ids or full names'],
    [['  '], 'must not be empty'],
    [undefined, 'must be a list'],
  ];
  for (const [repositories, message] of cases) {
    const res = await setTeamRepositories(lab.core, repositories);
    expect([res.status, res.body.error.message]).toEqual([400, expect.stringContaining(message)]);
  }
  // A team of another organization, asked for in this one (ada administers both).
  expect((await setTeamRepositories(DEMO.teams.platform, ['lab/api'])).status).toBe(404);
  expect((await teamRepositories(DEMO.teams.platform)).status).toBe(404);
  expect((await setTeamRepositories('team_nope', ['lab/api'])).status).toBe(404);
  expect(await versionOf(lab.organizationId)).toBe(version);
  expect(await TeamRepository.count({ where: { team_id: lab.core } })).toBe(0);
});

test("admins only: a member is refused, another organization's admin too", async () => {
  // Linus is a member of acme, not an admin, and nothing of the lab.
  expect((await teamRepositories(DEMO.teams.platform, linus, DEMO.orgs.acme)).status).toBe(403);
  expect((await setTeamRepositories(DEMO.teams.platform, null, linus, DEMO.orgs.acme)).status).toBe(403);
  expect((await setTeamRepositories(lab.core, ['lab/api'], linus)).status).toBe(403);
  expect(await TeamRepository.count({ where: { team_id: [lab.core, DEMO.teams.platform] } })).toBe(0);
});

test('npm run metrics-settings -- team-repos: shown, set and cleared by the operator, audited; usage mistakes exit 2', async () => {
  const set = await cli('team-repos', '--org', lab.organizationId, '--team', lab.empty, '--repos', 'lab/web, lab/docs', '--json');
  expect(set.code).toBe(0);
  const view = JSON.parse(set.stdout);
  expect(view).toMatchObject({ team_id: lab.empty, owned: [{ full_name: 'lab/docs' }, { full_name: 'lab/web' }], authored: [] });
  const entry = (await AuditEntry.findAll({ where: { organization_id: lab.organizationId, action: 'metric_settings.updated' } })).find((e) => JSON.parse(e.details).version === view.version)!;
  expect([entry.actor_type, entry.actor_user_id, JSON.parse(entry.details).team_id]).toEqual([OPERATOR.type, null, lab.empty]);
  // Another process's change: the service learns its version by its next poll of the data versions.
  const settledAt = async (version: number) => {
    await eventually(`the figures of settings version ${version}`, async () => (await metric('dora', lab.empty)).meta.settings_version === version, 5_000);
    return (await metric('dora', lab.empty)).data;
  };
  expect(await settledAt(view.version)).toMatchObject({ scope: { repositories: 'owned' }, deployment_frequency: { deployments: 2 } });

  const shown = await cli('team-repos', '--org', lab.organizationId, '--team', lab.empty);
  expect(shown.stdout).toContain(`Repositories of team ${lab.empty} in organization ${lab.organizationId} (settings version ${view.version})`);
  expect(shown.stdout).toContain('owns: lab/docs, lab/web   (its figures cover these)');
  expect(shown.stdout).toContain('its members authored commits in: none');

  const cleared = await cli('team-repos', '--org', lab.organizationId, '--team', lab.empty, '--fallback', '--json');
  expect(cleared.code).toBe(0);
  expect(JSON.parse(cleared.stdout)).toMatchObject({ version: view.version + 1, owned: null, authored: [] });
  expect((await cli('team-repos', '--org', lab.organizationId, '--team', lab.empty)).stdout).toContain('owns: none   (its figures cover the repositories its members authored commits in)');
  expect(await settledAt(view.version + 1)).toMatchObject({ scope: { repositories: 'authored' }, deployment_frequency: { deployments: 0 } });

  const unknown = await cli('team-repos', '--org', lab.organizationId, '--team', lab.empty, '--repos', 'lab/nope');
  expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('No repository lab/nope')]);
  expect((await cli('team-repos', '--org', lab.organizationId, '--team', 'team_nope')).code).toBe(1);
  expect(() => parseCommand(['team-repos', '--org', lab.organizationId])).toThrow(new UsageError('team-repos needs --team <team id>'));
  expect(() => parseCommand(['team-repos', '--team', lab.core])).toThrow(new UsageError('team-repos needs --org <organization id>'));
  expect(() => parseCommand(['team-repos', '--org', 'o', '--team', 't', '--repos', 'a', '--fallback'])).toThrow(new UsageError('team-repos takes --repos <list> or --fallback, not both'));
  expect(() => parseCommand(['team-repos', '--org', 'o', '--team', 't', '--repos', ' , '])).toThrow(UsageError);
  expect(parseCommand(['team-repos', '--org', 'o', '--team', 't', '--repos', 'a/b,c'])).toEqual({ kind: 'team-repos', org: 'o', team: 't', repositories: ['a/b', 'c'], json: false });
});

test("a team's deletion and a repository's erasure take their rows; a team that owned only erased repositories covers the fallback", async () => {
  const temp = await t.runtime.writers.teams.create(lab.organizationId, { name: `Temp ${unique()}`, externalId: null }, [DEMO.users.ada]);
  await setTeamRepositories(temp.id, ['lab/api']);
  await setTeamRepositories(lab.core, ['lab/docs']);
  expect(await TeamRepository.count({ where: { team_id: [temp.id, lab.core] } })).toBe(2);
  await t.runtime.writers.teams.delete(lab.organizationId, temp.id);
  expect(await TeamRepository.count({ where: { team_id: temp.id } })).toBe(0);

  const gitApp = (await GitApp.findOne({ where: { organization_id: lab.organizationId } }))!;
  const deleted: Activity = { kind: 'repository', action: 'deleted', repository: docsRef };
  await t.runtime.writers.gitActivity.receive({ gitApp, id: `docs-${unique()}-deleted`, event: 'repository' }, deleted);
  // Hidden, still counted until erased: still owned.
  expect((await metric('dora', lab.core)).data).toMatchObject({ scope: { repositories: 'owned' }, deployment_frequency: { deployments: 1 } });
  expect(await eraseDeletedRepositories(t)).toBeGreaterThanOrEqual(1);
  expect(await TeamRepository.count({ where: { repository_id: docs } })).toBe(0);
  expect((await teamRepositories(lab.core)).body.result.data).toMatchObject({ owned: null, authored: [{ full_name: 'lab/api' }] });
  // api's D1, D3, D5 again.
  expect((await metric('dora', lab.core)).data).toMatchObject({ scope: { repositories: 'authored' }, deployment_frequency: { deployments: 3 } });
});
