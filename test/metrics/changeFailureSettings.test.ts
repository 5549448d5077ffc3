import { GitApp, Deployment } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { publicBase } from '../../src/config';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { reversals, revertedShas } from '../../db/rollups/reverts';
import { parseCommand } from '../../scripts/metricsSettings';
import { UsageError } from '../../scripts/cli';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { createLab, sha } from '../support/data/metricsHistory';
import { appCli, CliRun } from '../support/cli';
import { unique } from '../support/common';

/**
 * What a change failure is (docs/metrics.md#what-counts: `change_failure`): a failed job, an incident's blame, a
 * revert or rollback within N hours, a hotfix within the same hours. Reverts are git's own message, as `git revert`
 * writes it (builtin/revert.c: `Revert "<subject>"`, a blank line, `This reverts commit <sha>.`). Worked by hand, the
 * week of Monday May 4, 2026, all production deployments of lab/api (commit kN at the hour before its deployment):
 *
 *   D1 k1 success May 4 09:00   reverted by D2 (r1 reverts k1) May 4 21:00: 12 h
 *   D3 k2 success May 5 09:00   reverted by D4 (r2 reverts k2) May 7 10:00: 49 h
 *   D5 k3 success May 8 09:00   rolled back by D6 May 8 11:00, which deploys r2 again (D4's): 2 h
 *   F1 k4 failure May 9 10:00   a failed job; recovered by D7, the next clean success, May 9 12:00: 2 h
 *   D7 k5 success May 9 12:00   hotfixed by D8 (k6 "hotfix: checkout totals") May 9 14:00: 2 h
 *   D2, D4, D6, D8 success: nothing undoes them
 *
 * Nine finished. Defaults (failed job, incident, 24 h, no hotfix patterns): F1, D1, D5 failed; recoveries [2, 2, 12].
 * The revert commits arrive after the deployments that ship them, so the commit writer keeps D1's and D3's reversal.
 */
let t: TestApp;
let org: string;
let gitApp: GitApp;
let token: string;
let ada: SettingsBrowser;
let cli: (...args: string[]) => Promise<CliRun>;
const repository: RepositoryRef = { providerId: `change-failure-${unique()}`, name: 'api', fullName: 'lab/api', defaultBranch: 'main', isPrivate: false, createdAt: new Date('2026-05-01T00:00:00.000Z') };
const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => new Date(`2026-05-${String(day).padStart(2, '0')}T${time}:00.000Z`);
const hourBefore = (date: Date) => new Date(date.getTime() - 3_600_000);

const receive = async (activity: Activity) => t.runtime.writers.gitActivity.receive({ gitApp, id: `change-failure-${unique()}`, event: activity.kind }, activity);
const push = (key: string, message: string, created: Date) =>
  receive({ kind: 'push', repository, commits: [{ sha: sha(key), message, authorName: 'Ada', authorEmail: DEMO.emails.ada, authorUsername: null, createdAt: created }] });
const deploy = (key: string, commit: string, status: 'success' | 'failure', finished: Date) =>
  receive({ kind: 'deployment', repository, deployment: { externalId: key, environment: 'production', status, sha: sha(commit), createdAt: new Date(finished.getTime() - 600_000), finishedAt: finished } });
const gitRevert = (subject: string, commit: string) => `Revert "${subject}"\n\nThis reverts commit ${sha(commit)}.\n`;

const settings = (changeFailure: Record<string, unknown>) => t.runtime.writers.metricSettings.update(org, { change_failure: changeFailure }, OPERATOR);
const DEFAULTS = { failed_deployment: true, incident: true, revert_within_hours: 24, hotfix_patterns: [] };

async function figures() {
  const answer = await t.get(`/v1/metrics/dora?${new URLSearchParams({ organization_id: org, ...WEEK })}`, token);
  expect(answer.status).toBe(200);
  const { change_failure_rate, failed_deployment_recovery } = answer.body.data;
  return { failed: change_failure_rate.failed, deployments: change_failure_rate.deployments, recovery: failed_deployment_recovery };
}
const revertedAt = async (key: string) => (await Deployment.findOne({ where: { organization_id: org, external_id: key } }))!.reverted_at;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  ada = await signInWithLink(t.runtime.app, DEMO.users.ada, new URL(publicBase(t.config)).origin);
  cli = appCli(t, 'metricsSettings');
  const created = await createLab(t, `Change failures ${unique()}`);
  org = created.lab.organizationId;
  gitApp = (await GitApp.findByPk(created.gitAppId))!;
  const deployments: [string, string, 'success' | 'failure', Date][] = [
    ['D1', 'k1', 'success', at(4, '09:00')],
    ['D2', 'r1', 'success', at(4, '21:00')],
    ['D3', 'k2', 'success', at(5, '09:00')],
    ['D4', 'r2', 'success', at(7, '10:00')],
    ['D5', 'k3', 'success', at(8, '09:00')],
    ['D6', 'r2', 'success', at(8, '11:00')],
    ['F1', 'k4', 'failure', at(9, '10:00')],
    ['D7', 'k5', 'success', at(9, '12:00')],
    ['D8', 'k6', 'success', at(9, '14:00')],
  ];
  const messages: Record<string, string> = { k5: 'Fix checkout rounding', k6: 'hotfix: checkout totals' };
  for (const [, commit, , finished] of deployments) if (!commit.startsWith('r')) await push(commit, messages[commit] ?? `Change ${commit}`, hourBefore(finished));
  for (const [key, commit, status, finished] of deployments) await deploy(key, commit, status, finished);
  await push('r2', gitRevert('Change k2', 'k2'), at(7, '08:00'));
  await push('r1', gitRevert('Change k1', 'k1'), at(4, '20:00'));
});
afterAll(async () => t?.close());

test('each reverted or rolled-back deployment keeps when, whatever order its commits and deployments came in', async () => {
  expect(await revertedAt('D1')).toEqual(at(4, '21:00'));
  expect(await revertedAt('D3')).toEqual(at(7, '10:00'));
  expect(await revertedAt('D5')).toEqual(at(8, '11:00'));
  for (const key of ['D2', 'D4', 'D6', 'F1', 'D7', 'D8']) expect([key, await revertedAt(key)]).toEqual([key, null]);
});

test('by default a revert within 24 hours makes its deployment a change failure, a failed job too; a revert after 49 hours does not', async () => {
  expect((await ada.query('settings.metrics.get', { organization_id: org })).body.result.data).toMatchObject({ change_failure: DEFAULTS, defaults: { change_failure: DEFAULTS } });
  // F1, D1, D5 of nine; recoveries [2 (F1), 2 (D5), 12 (D1)]: rank 2.
  expect(await figures()).toEqual({ failed: 3, deployments: 9, recovery: { median_hours: 2, deployments: 3, unrecovered: 0, band: 'high' } });
});

test('a revert counts within the hours set and not after them; with null, reverts and rollbacks are not read', async () => {
  await settings({ ...DEFAULTS, revert_within_hours: 48 });
  expect((await figures()).failed).toBe(3);
  await settings({ ...DEFAULTS, revert_within_hours: 49 });
  // D3 too: [2, 2, 12, 49], rank 2.
  expect(await figures()).toEqual({ failed: 4, deployments: 9, recovery: { median_hours: 2, deployments: 4, unrecovered: 0, band: 'high' } });
  await settings({ ...DEFAULTS, revert_within_hours: 11 });
  // D1's revert came 12 hours after it: F1 and D5 alone.
  expect((await figures()).failed).toBe(2);
  await settings({ ...DEFAULTS, revert_within_hours: null });
  expect(await figures()).toEqual({ failed: 1, deployments: 9, recovery: { median_hours: 2, deployments: 1, unrecovered: 0, band: 'high' } });
});

test('failed_deployment false leaves a failed job out; nothing set, nothing fails', async () => {
  await settings({ ...DEFAULTS, failed_deployment: false });
  // D1, D5: [2, 12], rank 1.
  expect(await figures()).toEqual({ failed: 2, deployments: 9, recovery: { median_hours: 2, deployments: 2, unrecovered: 0, band: 'high' } });
  await settings({ failed_deployment: false, incident: false, revert_within_hours: null, hotfix_patterns: [] });
  expect(await figures()).toEqual({ failed: 0, deployments: 9, recovery: { median_hours: null, deployments: 0, unrecovered: 0, band: null } });
});

test('a hotfix pattern on a later deployment’s commit message within the hours makes the deployment before it a change failure', async () => {
  await settings({ ...DEFAULTS, hotfix_patterns: ['HOTFIX*'] });
  // D7 too, restored by D8 2 hours later: [2, 2, 2, 12].
  expect(await figures()).toEqual({ failed: 4, deployments: 9, recovery: { median_hours: 2, deployments: 4, unrecovered: 0, band: 'high' } });
  // A glob that matches nothing shipped, and one of the whole message.
  await settings({ ...DEFAULTS, hotfix_patterns: ['*[hotfix]*'] });
  expect((await figures()).failed).toBe(3);
  await settings({ ...DEFAULTS, revert_within_hours: 1, hotfix_patterns: ['hotfix*'] });
  // D8 is 2 hours after D7, past the hour; D5's rollback too: F1 alone.
  expect((await figures()).failed).toBe(1);
  await settings(DEFAULTS);
});

test('settings.metrics.update keeps it and refuses mistakes with a 400 saying what to fix', async () => {
  const saved = await ada.mutate('settings.metrics.update', { organization_id: org, settings: { change_failure: { ...DEFAULTS, revert_within_hours: 72, hotfix_patterns: ['Hotfix*', 'hotfix*'] } } });
  expect(saved.status).toBe(200);
  expect(saved.body.result.data.change_failure).toEqual({ ...DEFAULTS, revert_within_hours: 72, hotfix_patterns: ['hotfix*'] });
  const version = saved.body.result.data.version;
  const cases: [unknown, string][] = [
    [{ ...DEFAULTS, revert_within_hours: 0 }, 'change_failure.revert_within_hours must be from 1 to 720 hours'],
    [{ ...DEFAULTS, revert_within_hours: 10000 }, 'change_failure.revert_within_hours must be at most 720 hours'],
    [{ ...DEFAULTS, revert_within_hours: 1.5 }, 'change_failure.revert_within_hours must be a whole number of hours from 1 to 720, or null'],
    [{ ...DEFAULTS, failed_deployment: 'yes' }, 'change_failure.failed_deployment must be true or false'],
    [{ ...DEFAULTS, revert_within_hours: null, hotfix_patterns: ['hotfix*'] }, 'change_failure.hotfix_patterns need revert_within_hours'],
    [{ ...DEFAULTS, hotfix_patterns: ['**'] }, 'a hotfix pattern must say more than * and ?'],
    [{ ...DEFAULTS, hotfix_patterns: [' '] }, 'a hotfix pattern must not be empty'],
    [{ ...DEFAULTS, rollbacks: true }, 'change_failure takes failed_deployment, incident, revert_within_hours and hotfix_patterns, not rollbacks'],
    [{ revert_within_hours: 24 }, 'change_failure.failed_deployment must be true or false'],
    ['24h', 'change_failure must be an object'],
  ];
  for (const [change, message] of cases) {
    const res = await ada.mutate('settings.metrics.update', { organization_id: org, settings: { change_failure: change } });
    expect([JSON.stringify(change).slice(0, 60), res.status, res.body.error.message]).toEqual([JSON.stringify(change).slice(0, 60), 400, expect.stringContaining(message)]);
  }
  expect((await ada.query('settings.metrics.get', { organization_id: org })).body.result.data.version).toBe(version);
  await settings(DEFAULTS);
});

test('npm run metrics-settings sets each part over the others in force, shows them, and says what is wrong', async () => {
  const set = await cli('set', '--org', org, '--revert-within-hours', '48', '--hotfix-patterns', 'hotfix*,*[hotfix]*', '--json');
  expect(set.code).toBe(0);
  expect(JSON.parse(set.stdout).change_failure).toEqual({ ...DEFAULTS, revert_within_hours: 48, hotfix_patterns: ['hotfix*', '*[hotfix]*'] });
  const off = await cli('set', '--org', org, '--failed-deployment-fails', 'false');
  expect(off.code).toBe(0);
  expect(off.stdout).toContain('change failure: an incident naming its commit, a revert or rollback within 48 h, a hotfix within 48 h (hotfix*, *[hotfix]*)   (default: a failed job, an incident naming its commit, a revert or rollback within 24 h)');
  const refused = await cli('set', '--org', org, '--revert-within-hours', '0');
  expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('change_failure.revert_within_hours must be from 1 to 720 hours')]);
  const back = await cli('set', '--org', org, '--failed-deployment-fails', 'true', '--revert-within-hours', '24', '--hotfix-patterns', 'none');
  expect(back.code).toBe(0);
  expect(JSON.parse((await cli('show', '--org', org, '--json')).stdout).change_failure).toEqual(DEFAULTS);

  expect(parseCommand(['set', '--org', org, '--revert-within-hours', 'none', '--incident-fails', 'false'])).toMatchObject({
    kind: 'set',
    org,
    settings: {},
    changeFailure: { revert_within_hours: null, incident: false },
    json: false,
  });
  expect(() => parseCommand(['set', '--org', org, '--revert-within-hours', '24h'])).toThrow(new UsageError('--revert-within-hours takes a whole number of hours (1 to 720) or none, not "24h"'));
  expect(() => parseCommand(['set', '--org', org, '--failed-deployment-fails', 'maybe'])).toThrow(new UsageError('--failed-deployment-fails takes true or false, not "maybe"'));
  expect(() => parseCommand(['set', '--org', org, '--hotfix-patterns', ' , '])).toThrow(new UsageError('--hotfix-patterns needs globs, e.g. hotfix*,*[hotfix]*, or none'));
  // Five runs of the CLI, each a process of its own: several seconds each on a busy machine.
}, 180_000);

test('reversals: git’s revert message, the first later undoing within 720 hours, another environment’s never', () => {
  expect(revertedShas(gitRevert('Change k1', 'k1'))).toEqual([sha('k1')]);
  expect(revertedShas(`Revert "x"\n\nThis reverts commit ${sha('k1').slice(0, 7)}.`)).toEqual([]);
  const d = (id: string, environment: string, commit: string, hour: number, rollsBack: number | null = null, reverts: string[] = []) => ({
    id,
    environment,
    sha: sha(commit),
    finishedMs: hour * 3_600_000,
    rollsBackMs: rollsBack === null ? null : rollsBack * 3_600_000,
    shipped: [sha(commit)],
    reverts,
  });
  expect(
    reversals([
      d('A', 'production', 'a', 0),
      d('B', 'eu', 'b', 1, null, [sha('a')]),
      d('C', 'production', 'c', 800, null, [sha('a')]),
      d('E', 'production', 'e', 900),
      d('F', 'production', 'a', 901, 800),
    ]),
    // F deploys A's commit again: it rolls back C, the first after A (as Datadog marks V2 of V1 → V2 → V3 → V1), not
    // E; A's revert by C came 800 hours on, B's is another environment's.
  ).toEqual(new Map([['C', 901 * 3_600_000]]));
});
