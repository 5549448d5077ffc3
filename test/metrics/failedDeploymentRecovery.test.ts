import { GitApp, Deployment } from '../../db/models';
import type { Activity, RepositoryRef } from '../../src/services/git/activity';
import { OPERATOR } from '../../src/persistence/changes/auditRecord';
import { startTestApp, TestApp } from '../support/harness';
import { createLab, Lab, sha } from '../support/data/metricsHistory';
import { unique } from '../support/common';

/**
 * Failed deployment recovery time (docs/metrics.md#dora-the-four-keys-method): from a failed deployment's finish to
 * the finish of the next successful deployment to its repository and environment that is not itself blamed, kept
 * on it by the writers as deployments and incidents arrive. Worked out by hand for the week of Monday May 4, 2026,
 * all on lab/api, in the order written:
 *
 *   F1 production failure May 4 10:00   recovered by P1 production success May 4 12:00: 2 h
 *   E1 eu failure May 4 11:00           recovered by E2 eu success May 4 11:30: 0.5 h (P1 is another environment's)
 *   B1 production success May 5 09:00, B2 production success May 5 10:00, P2 production success May 5 13:00;
 *     then incidents I1 and I2 name B1's and B2's commits as their cause: both failed, and B2 (blamed) recovers
 *     nothing: B1 by P2, 4 h; B2 by P2, 3 h
 *   F3 production failure May 6 08:00, F2 production failure May 7 10:00: no later success (unrecovered)
 *   T1 staging failure May 8 10:00      recovered by T2 staging success May 8 11:00: 1 h, not production
 *   L1 production success May 6 09:00, written last: recovers F3, 1 h (F2 finished after it)
 */
let t: TestApp;
let lab: Omit<Lab, 'repositories'>;
let gitApp: GitApp;
const repository: RepositoryRef = { providerId: `recovery-${unique()}`, name: 'api', fullName: 'lab/api', defaultBranch: 'main', isPrivate: false, createdAt: new Date('2026-05-01T00:00:00.000Z') };
const WEEK = { from: '2026-05-04', to: '2026-05-10' };
const at = (day: number, time: string) => new Date(`2026-05-${String(day).padStart(2, '0')}T${time}:00.000Z`);

const receive = async (activity: Activity) => t.runtime.writers.gitActivity.receive({ gitApp, id: `recovery-${unique()}`, event: activity.kind }, activity);
const deploy = (key: string, environment: string, status: 'success' | 'failure', finished: Date) =>
  receive({ kind: 'deployment', repository, deployment: { externalId: key, environment, status, sha: sha(key), createdAt: new Date(finished.getTime() - 600_000), finishedAt: finished } });
const blame = (key: string, deployed: string, opened: Date) =>
  receive({ kind: 'incident', repository, incident: { externalId: key, title: `Caused by ${deployed}`, causeSha: sha(deployed).slice(0, 10), fixSha: null, createdAt: opened, resolvedAt: new Date(opened.getTime() + 3_600_000), updatedAt: opened } });

const dora = async (interval?: string) => {
  const answer = await t.get(`/v1/metrics/dora?${new URLSearchParams({ organization_id: lab.organizationId, ...WEEK, ...(interval ? { interval } : {}) })}`, token);
  expect(answer.status).toBe(200);
  return answer.body.data;
};
const recoveredAt = async (key: string) => (await Deployment.findOne({ where: { organization_id: lab.organizationId, external_id: key } }))!.recovered_at;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  const created = await createLab(t, `Recovery ${unique()}`);
  lab = created.lab;
  gitApp = (await GitApp.findByPk(created.gitAppId))!;
  await deploy('F1', 'production', 'failure', at(4, '10:00'));
  await deploy('E1', 'eu', 'failure', at(4, '11:00'));
  await deploy('E2', 'eu', 'success', at(4, '11:30'));
  await deploy('P1', 'Production', 'success', at(4, '12:00'));
  await deploy('B1', 'production', 'success', at(5, '09:00'));
  await deploy('B2', 'production', 'success', at(5, '10:00'));
  await deploy('P2', 'production', 'success', at(5, '13:00'));
  await deploy('F3', 'production', 'failure', at(6, '08:00'));
  await deploy('F2', 'production', 'failure', at(7, '10:00'));
  await deploy('T1', 'staging', 'failure', at(8, '10:00'));
  await deploy('T2', 'staging', 'success', at(8, '11:00'));
});
afterAll(async () => t.close());

test('a failed deployment is recovered by the next success of its own environment, compared lowercased', async () => {
  expect(await recoveredAt('F1')).toEqual(at(4, '12:00'));
  expect(await recoveredAt('E1')).toEqual(at(4, '11:30'));
  // Not failed: nothing to recover.
  expect(await recoveredAt('P1')).toBeNull();
  expect(await recoveredAt('F3')).toBeNull();
  expect((await dora()).failed_deployment_recovery).toEqual({ median_hours: 2, deployments: 1, unrecovered: 2, band: 'high' });
});

test('a success blamed by an incident is failed, and recovered by the next clean success, not by a blamed one', async () => {
  await blame('I1', 'B1', at(5, '09:30'));
  await blame('I2', 'B2', at(5, '10:30'));
  expect(await recoveredAt('B1')).toEqual(at(5, '13:00'));
  expect(await recoveredAt('B2')).toEqual(at(5, '13:00'));
  const figures = await dora();
  // F1, B1, B2, F3, F2 of seven finished: the change failure rate's failed are this figure's.
  expect(figures.change_failure_rate).toMatchObject({ failed: 5, deployments: 7 });
  // [2 (F1), 3 (B2), 4 (B1)]: rank ⌈0.5·3⌉ = 2; F3 and F2 not yet.
  expect(figures.failed_deployment_recovery).toEqual({ median_hours: 3, deployments: 3, unrecovered: 2, band: 'high' });
});

test('a success arriving late recovers the earlier failure; the series counts each where the failure finished', async () => {
  await deploy('L1', 'production', 'success', at(6, '09:00'));
  expect(await recoveredAt('F3')).toEqual(at(6, '09:00'));
  expect(await recoveredAt('F2')).toBeNull();
  const figures = await dora('day');
  // [1 (F3), 2, 3, 4]: rank 2; F2 still unrecovered.
  expect(figures.failed_deployment_recovery).toEqual({ median_hours: 2, deployments: 4, unrecovered: 1, band: 'high' });
  const days = figures.series.map((d: Record<string, unknown>) => [d.start, d.failed_deployments_recovered, d.median_failed_deployment_recovery_hours]);
  expect(days).toEqual([
    ['2026-05-04', 1, 2],
    ['2026-05-05', 2, 3],
    ['2026-05-06', 1, 1],
    ['2026-05-07', 0, null],
    ['2026-05-08', 0, null],
    ['2026-05-09', 0, null],
    ['2026-05-10', 0, null],
  ]);
  // Time to restore is the incidents' still: I1 and I2, an hour each.
  expect(figures.time_to_restore).toEqual({ median_hours: 1, incidents: 2, band: 'high' });
});

test("staging's failures are kept but count only once the organization calls staging production", async () => {
  expect(await recoveredAt('T1')).toEqual(at(8, '11:00'));
  expect((await dora()).failed_deployment_recovery).toEqual({ median_hours: 2, deployments: 4, unrecovered: 1, band: 'high' });
  await t.runtime.writers.metricSettings.update(lab.organizationId, { production_environments: ['production', 'eu', 'staging'] }, OPERATOR);
  // [0.5 (E1), 1 (F3), 1 (T1), 2, 3, 4]: rank 3.
  expect((await dora()).failed_deployment_recovery).toEqual({ median_hours: 1, deployments: 6, unrecovered: 1, band: 'high' });
});
