import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, githubExamples } from '../support/peers/ingest';
import { deliverHistory, insertHistory, Lab, sha } from '../support/data/metricsHistory';
import { callerFor } from '../support/callers';

/**
 * The Metrics API (docs/metrics.md) on the history of test/support/data/metricsHistory.ts, every figure worked out by hand
 * below. Lead times of the changes each deployment ships (hours):
 *   D0 (Feb 28 12:00, first of api): c0 26
 *   D1 (Mar 2 12:00, after D0):      c1 28, c2 6
 *   D2 failed: ships nothing.  D4 is staging: not a production deployment.
 *   D3 (Mar 4 00:00, after D1):      c3 15, c4 6
 *   D5 (Mar 5 12:00, after D3):      c5 1     (blamed by I1 → failed, still counts as deployed)
 *   D7 (Mar 6 12:00, first of web):  c7 2
 *   D6 (Mar 9 10:00, after D5):      c6 14
 * Incidents: I1 2.5 h to restore, I2 24 h, I3 still open.
 */

let t: TestApp;
let token: string;
let lab: Lab;

beforeAll(async () => {
  t = await startTestApp();
  lab = await insertHistory(t);
  token = await t.token();
});
afterAll(async () => t.close());

const metric = (path: string, query: Record<string, string>, as = token) => t.get(`/v1/metrics/${path}?${new URLSearchParams(query)}`, as);
const WEEK = { from: '2026-03-02', to: '2026-03-08' };

const PROCEDURE = { dora: 'dora', 'pull-requests': 'pullRequests', flow: 'flow', activity: 'activity' } as const;

/** A metric's figures as its procedure computes them, called without HTTP (the wire is tested below and in wire tests). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the figures of its own metric
async function figures(path: keyof typeof PROCEDURE, query: Record<string, string>): Promise<any> {
  const caller = await callerFor(t, token);
  return (await caller.metrics[PROCEDURE[path]](query)).data;
}

describe('DORA', () => {
  test('the organization over the week of March 2 to 8', async () => {
    expect(await figures('dora', { organization_id: lab.organizationId, ...WEEK })).toEqual({
      scope: { organization_id: lab.organizationId, team_id: null, repositories: 'all' },
      from: '2026-03-02',
      to: '2026-03-08',
      interval: null,
      // D1, D3, D5, D7 in 7 days: 0.5714 a day, at least weekly.
      deployment_frequency: { deployments: 4, per_day: 0.5714, band: 'high' },
      // [1, 2, 6, 6, 15, 28]: rank ⌈0.5·6⌉ = 3.
      lead_time_for_changes: { median_hours: 6, changes: 6, band: 'elite' },
      // D2 (failure) and D5 (blamed) of D1, D2, D3, D5, D7.
      change_failure_rate: { rate: 0.4, failed: 2, deployments: 5, band: 'low' },
      // [2.5, 24]: rank 1; I3 is still open.
      time_to_restore: { median_hours: 2.5, incidents: 2, band: 'high' },
      // D2 recovered by D3 (12 h); D5 (blamed) by D6, March 9 (94 h): [12, 94], rank 1.
      failed_deployment_recovery: { median_hours: 12, deployments: 2, unrecovered: 0, band: 'high' },
      // No api deployment finished while I1, I2 or I3 was open this week (D6, after I3 opened, is on March 9).
      rework_rate: { rate: 0, rework: 0, deployments: 5, band: 'elite' },
    });
  });

  test('the team: the repositories its members authored commits in (api, not web)', async () => {
    expect(await figures('dora', { team_id: lab.core, ...WEEK })).toMatchObject({
      scope: { organization_id: lab.organizationId, team_id: lab.core },
      deployment_frequency: { deployments: 3, per_day: 0.4286, band: 'high' },
      // [1, 6, 6, 15, 28]
      lead_time_for_changes: { median_hours: 6, changes: 5, band: 'elite' },
      change_failure_rate: { rate: 0.5, failed: 2, deployments: 4, band: 'low' },
      time_to_restore: { median_hours: 2.5, incidents: 2, band: 'high' },
    });
  });

  test('a daily series: every bucket by hand, adding up to the totals', async () => {
    const data = await figures('dora', { organization_id: lab.organizationId, ...WEEK, interval: 'day' });
    const empty = { deployments: 0, changes: 0, median_lead_time_hours: null, finished: 0, failed: 0, change_failure_rate: null, incidents: 0, median_time_to_restore_hours: null, failed_deployments_recovered: 0, median_failed_deployment_recovery_hours: null, rework: 0 };
    expect(data.series).toEqual([
      { ...empty, start: '2026-03-02', deployments: 1, changes: 2, median_lead_time_hours: 6, finished: 1, change_failure_rate: 0 },
      { ...empty, start: '2026-03-03', finished: 1, failed: 1, change_failure_rate: 1, failed_deployments_recovered: 1, median_failed_deployment_recovery_hours: 12 },
      { ...empty, start: '2026-03-04', deployments: 1, changes: 2, median_lead_time_hours: 6, finished: 1, change_failure_rate: 0 },
      { ...empty, start: '2026-03-05', deployments: 1, changes: 1, median_lead_time_hours: 1, finished: 1, failed: 1, change_failure_rate: 1, incidents: 1, median_time_to_restore_hours: 2.5, failed_deployments_recovered: 1, median_failed_deployment_recovery_hours: 94 },
      { ...empty, start: '2026-03-06', deployments: 1, changes: 1, median_lead_time_hours: 2, finished: 1, change_failure_rate: 0, incidents: 1, median_time_to_restore_hours: 24 },
      { ...empty, start: '2026-03-07' },
      { ...empty, start: '2026-03-08' },
    ]);
    const sum = (key: string) => data.series.reduce((s: number, b: Record<string, number>) => s + b[key], 0);
    expect([sum('deployments'), sum('changes'), sum('finished'), sum('failed'), sum('incidents')]).toEqual([4, 6, 5, 2, 2]);
  });

  test('weekly buckets are ISO weeks clipped to the window: Wednesday March 4 to Tuesday March 10', async () => {
    const data = await figures('dora', { organization_id: lab.organizationId, from: '2026-03-04', to: '2026-03-10', interval: 'week' });
    expect(data).toMatchObject({
      deployment_frequency: { deployments: 4, per_day: 0.5714, band: 'high' },
      // [1, 2, 6, 14, 15]
      lead_time_for_changes: { median_hours: 6, changes: 5, band: 'elite' },
      // D5 of D3, D5, D7, D6
      change_failure_rate: { rate: 0.25, failed: 1, deployments: 4, band: 'low' },
      time_to_restore: { median_hours: 2.5, incidents: 2, band: 'high' },
      // D6 finished while I3 (opened March 7) was still open.
      rework_rate: { rate: 0.25, rework: 1, deployments: 4, band: 'low' },
    });
    expect(data.series).toEqual([
      // D3, D5, D7: [1, 2, 6, 15] → rank 2; D5 blamed.
      { start: '2026-03-04', deployments: 3, changes: 4, median_lead_time_hours: 2, finished: 3, failed: 1, change_failure_rate: 0.3333, incidents: 2, median_time_to_restore_hours: 2.5, failed_deployments_recovered: 1, median_failed_deployment_recovery_hours: 94, rework: 0 },
      { start: '2026-03-09', deployments: 1, changes: 1, median_lead_time_hours: 14, finished: 1, failed: 0, change_failure_rate: 0, incidents: 0, median_time_to_restore_hours: null, failed_deployments_recovered: 0, median_failed_deployment_recovery_hours: null, rework: 1 },
    ]);
  });

  test('monthly buckets are calendar months: February 20 to March 10', async () => {
    const data = await figures('dora', { organization_id: lab.organizationId, from: '2026-02-20', to: '2026-03-10', interval: 'month' });
    expect(data).toMatchObject({
      // 6 in 19 days.
      deployment_frequency: { deployments: 6, per_day: 0.3158, band: 'high' },
      // [1, 2, 6, 6, 14, 15, 26, 28]: rank 4.
      lead_time_for_changes: { median_hours: 6, changes: 8, band: 'elite' },
      change_failure_rate: { rate: 0.2857, failed: 2, deployments: 7, band: 'low' },
    });
    expect(data.series.map((b: Record<string, unknown>) => [b.start, b.deployments, b.changes, b.median_lead_time_hours, b.finished, b.failed])).toEqual([
      ['2026-02-20', 1, 1, 26, 1, 0],
      // [1, 2, 6, 6, 14, 15, 28]: rank 4.
      ['2026-03-01', 5, 7, 6, 6, 2],
    ]);
  });

  test('edges: no deployments, one deployment, a window boundary at midnight, a team with no repositories', async () => {
    expect(await figures('dora', { organization_id: lab.organizationId, from: '2026-03-07', to: '2026-03-08' })).toMatchObject({
      deployment_frequency: { deployments: 0, per_day: 0, band: 'low' },
      lead_time_for_changes: { median_hours: null, changes: 0, band: null },
      change_failure_rate: { rate: null, failed: 0, deployments: 0, band: null },
      // I3 opened on the 7th and still open: nothing restored.
      time_to_restore: { median_hours: null, incidents: 0, band: null },
    });
    // D1 alone: [6, 28] → rank 1. One deployment a day is the high cluster's best; elite deploys several a day.
    expect(await figures('dora', { organization_id: lab.organizationId, from: '2026-03-02', to: '2026-03-02' })).toMatchObject({
      deployment_frequency: { deployments: 1, per_day: 1, band: 'high' },
      lead_time_for_changes: { median_hours: 6, changes: 2, band: 'elite' },
      change_failure_rate: { rate: 0, failed: 0, deployments: 1, band: 'elite' },
    });
    // D3 finished at 00:00 on March 4: outside a window ending March 3, inside one starting March 4.
    expect((await figures('dora', { organization_id: lab.organizationId, from: '2026-03-02', to: '2026-03-03' })).change_failure_rate).toEqual({ rate: 0.5, failed: 1, deployments: 2, band: 'low' });
    expect((await figures('dora', { organization_id: lab.organizationId, from: '2026-03-04', to: '2026-03-04' })).lead_time_for_changes).toEqual({ median_hours: 6, changes: 2, band: 'elite' });
    expect(await figures('dora', { team_id: lab.empty, ...WEEK, interval: 'week' })).toMatchObject({
      deployment_frequency: { deployments: 0, per_day: 0, band: 'low' },
      lead_time_for_changes: { median_hours: null, changes: 0, band: null },
      change_failure_rate: { rate: null, deployments: 0, band: null },
      time_to_restore: { median_hours: null, incidents: 0, band: null },
      series: [expect.objectContaining({ start: '2026-03-02', deployments: 0, change_failure_rate: null })],
    });
  });

  test('the same history sent through the GitHub webhook endpoint gives the same figures', async () => {
    const delivered = await deliverHistory(t);
    const token2 = await t.token({ name: 'after the delivered lab' });
    const strip = (data: Record<string, unknown>) => ({ ...data, scope: undefined });
    for (const query of [{ ...WEEK, interval: 'day' }, { from: '2026-02-20', to: '2026-03-10', interval: 'week' }]) {
      const inserted = await metric('dora', { organization_id: lab.organizationId, ...query }, token2);
      const viaGithub = await metric('dora', { organization_id: delivered.organizationId, ...query }, token2);
      expect(strip(viaGithub.body.data)).toEqual(strip(inserted.body.data));
      const team = await metric('dora', { team_id: delivered.core, ...query }, token2);
      expect(strip(team.body.data)).toEqual(strip((await metric('dora', { team_id: lab.core, ...query }, token2)).body.data));
      // Commits and their authors (matched by e-mail) too; interactions are not git activity.
      const commitsOf = async (organizationId: string) => {
        const { commits, active_authors, series } = (await metric('activity', { organization_id: organizationId, ...query }, token2)).body.data;
        return { commits, active_authors, series: series.map((b: { commits: number; active_authors: number }) => [b.commits, b.active_authors]) };
      };
      expect(await commitsOf(delivered.organizationId)).toEqual(await commitsOf(lab.organizationId));
    }

    // Figures are kept for a while, but a change through the service shows at once: a failed deployment on March 8.
    const before = (await metric('dora', { organization_id: delivered.organizationId, ...WEEK }, token2)).body.data.change_failure_rate;
    expect(before).toEqual({ rate: 0.4, failed: 2, deployments: 5, band: 'low' });
    const [status] = githubExamples('deployment_status');
    const failure = copy(status);
    failure.repository = { ...failure.repository, id: 9001, node_id: 'R_api', name: 'api', full_name: 'lab/api' };
    failure.deployment = { ...failure.deployment, id: 6000, sha: sha('c6'), environment: 'production', created_at: '2026-03-08T21:00:00Z' };
    failure.deployment_status = { ...failure.deployment_status, state: 'failure', created_at: '2026-03-08T22:00:00Z', updated_at: '2026-03-08T22:00:00Z' };
    await delivered.deliver('deployment_status', failure);
    const after = (await metric('dora', { organization_id: delivered.organizationId, ...WEEK }, token2)).body.data.change_failure_rate;
    expect(after).toEqual({ rate: 0.5, failed: 3, deployments: 6, band: 'low' });
  });
});

describe('pull requests, flow and activity', () => {
  test('pull requests: opened, merged, closed unmerged, time to merge, open now', async () => {
    const before = Date.now();
    const data = await figures('pull-requests', { organization_id: lab.organizationId, ...WEEK, interval: 'day' });
    const hoursSince = (iso: string) => (before - Date.parse(iso)) / 3_600_000;
    expect(data).toMatchObject({
      // #2, #3, #4 (#1 and #5 were opened before).
      opened: 3,
      // #2 (12 h) on the 2nd, #1 (48 h) on the 3rd: [12, 48] → median rank 1, p75 and p90 rank 2.
      merged: 2,
      time_to_merge_hours: { median: 12, p75: 48, p90: 48 },
      closed_unmerged: 1,
      // #4 and #5, at the time of the request.
      open_now: 2,
    });
    expect(data.open_age_hours.median).toBeCloseTo(hoursSince('2026-03-06T12:00:00Z'), 0);
    expect(data.open_age_hours.p90).toBeCloseTo(hoursSince('2026-02-25T00:00:00Z'), 0);
    const none = { median: null, p75: null, p90: null };
    expect(data.series).toEqual([
      { start: '2026-03-02', opened: 1, merged: 1, closed_unmerged: 0, time_to_merge_hours: { median: 12, p75: 12, p90: 12 } },
      { start: '2026-03-03', opened: 0, merged: 1, closed_unmerged: 0, time_to_merge_hours: { median: 48, p75: 48, p90: 48 } },
      { start: '2026-03-04', opened: 1, merged: 0, closed_unmerged: 0, time_to_merge_hours: none },
      { start: '2026-03-05', opened: 0, merged: 0, closed_unmerged: 1, time_to_merge_hours: none },
      { start: '2026-03-06', opened: 1, merged: 0, closed_unmerged: 0, time_to_merge_hours: none },
      { start: '2026-03-07', opened: 0, merged: 0, closed_unmerged: 0, time_to_merge_hours: none },
      { start: '2026-03-08', opened: 0, merged: 0, closed_unmerged: 0, time_to_merge_hours: none },
    ]);
    // Web has no pull requests; the empty team none either.
    expect(await figures('pull-requests', { team_id: lab.empty, ...WEEK })).toMatchObject({ opened: 0, merged: 0, open_now: 0, time_to_merge_hours: none, open_age_hours: { median: null, p90: null } });
  });

  test('flow: completed tasks, cycle time, types, work in progress', async () => {
    const expected = {
      // The story (48 h), the bug (6 h), the task (72 h): [6, 48, 72] → median rank 2, p75 and p90 rank 3.
      completed: 3,
      cycle_time_hours: { median: 48, p75: 72, p90: 72 },
      // Tasks with no recorded history: their cycle time is their lead time, created → done.
      lead_time_hours: { median: 48, p75: 72, p90: 72 },
      in_progress_now: 1,
      by_type: { story: 1, bug: 1, task: 1, epic: 0 },
    };
    expect(await figures('flow', { organization_id: lab.organizationId, ...WEEK })).toMatchObject(expected);
    const weekly = await figures('flow', { team_id: lab.core, ...WEEK, interval: 'week' });
    expect(weekly).toMatchObject(expected);
    expect(weekly).toMatchObject({ completed_with_history: 0, flow_efficiency: null, time_in_status_hours: { backlog: null, active: null, paused: null }, reworked: 0, canceled: 0 });
    const { in_progress_now: _now, ...bucket } = expected;
    expect(weekly.series).toEqual([{ start: '2026-03-02', ...bucket, reworked: 0, canceled: 0 }]);
    expect(await figures('flow', { team_id: lab.empty, ...WEEK })).toMatchObject({ completed: 0, in_progress_now: 0, cycle_time_hours: { median: null, p75: null, p90: null } });
  });

  test('activity: commits, distinct authors, interactions by type', async () => {
    const org = await figures('activity', { organization_id: lab.organizationId, ...WEEK, interval: 'day' });
    // c2…c6 on api by ada, c7 on web by grace.
    expect(org).toMatchObject({ commits: 6, active_authors: 2 });
    // Only the types recorded from real events: nothing records meetings.
    expect(org.interactions_by_type).toEqual({ code_review: 1, communication: 1, task_assignment: 1 });
    expect(org.series.map((b: { commits: number; active_authors: number }) => [b.commits, b.active_authors])).toEqual([[1, 1], [2, 1], [0, 0], [1, 1], [1, 1], [0, 0], [1, 1]]);
    expect(await figures('activity', { team_id: lab.core, ...WEEK })).toMatchObject({ commits: 5, active_authors: 1, interactions_by_type: { code_review: 1, communication: 0, task_assignment: 1 } });
  });
});

describe('access', () => {
  test("a collaborator of Acme gets Acme's figures, not Globex's (403); an unknown organization or team is 404", async () => {
    const linus = await t.token({ user: DEMO.emails.linus });
    expect((await metric('dora', { organization_id: DEMO.orgs.acme }, linus)).status).toBe(200);
    const globex = await metric('dora', { organization_id: DEMO.orgs.globex }, linus);
    expect(globex.status).toBe(403);
    expect(globex.body).toEqual({ status: 'error', error: { code: 'FORBIDDEN', message: 'You do not have permission to access this organization' } });
    expect((await metric('flow', { team_id: DEMO.teams.globexCore }, linus)).status).toBe(403);
    expect((await metric('activity', { organization_id: 'org_nope' }, linus)).body.error).toEqual({ code: 'NOT_FOUND', message: 'Organization not found' });
    expect((await metric('pull-requests', { team_id: 'team_nope' }, linus)).status).toBe(404);
  });

  test('a team-scoped token: its team only, not the organization nor another team', async () => {
    const scoped = await t.token({ teamIds: [lab.core] });
    expect((await metric('dora', { team_id: lab.core, ...WEEK }, scoped)).status).toBe(200);
    expect((await metric('dora', { team_id: lab.empty, ...WEEK }, scoped)).status).toBe(403);
    const org = await metric('activity', { organization_id: lab.organizationId, ...WEEK }, scoped);
    expect(org.status).toBe(403);
  });

  test('the default window is the 28 days ending today', async () => {
    const data = await figures('activity', { organization_id: DEMO.orgs.acme });
    const today = new Date().toISOString().slice(0, 10);
    expect(data.to).toBe(today);
    expect(Date.parse(data.to) - Date.parse(data.from)).toBe(27 * 86_400_000);
    expect(data.series).toBeUndefined();
    expect((await figures('activity', { organization_id: DEMO.orgs.acme, to: '2026-02-28' })).from).toBe('2026-02-01');
  });
});

describe('bad input: 400 with a message that says what to fix', () => {
  test.each([
    [{}, 'Give exactly one of organization_id and team_id'],
    [{ organization_id: 'org_acme', team_id: 'team_platform' }, 'Give exactly one of organization_id and team_id'],
    [{ organization_id: 'org_acme', from: '2026-02-30' }, 'from must be a date, YYYY-MM-DD (a whole UTC day)'],
    [{ organization_id: 'org_acme', to: '2026-03-01T00:00:00Z' }, 'to must be a date, YYYY-MM-DD (a whole UTC day)'],
    [{ organization_id: 'org_acme', from: '2026-03-10', to: '2026-03-01' }, 'to (2026-03-01) is before from (2026-03-10)'],
    [{ organization_id: 'org_acme', from: '2025-01-01', to: '2026-01-02' }, 'The window from 2025-01-01 to 2026-01-02 has more than 366 days; ask for at most 366'],
    [{ organization_id: 'org_acme', interval: 'hour' }, 'interval must be day, week or month'],
    [{ organization_id: 'org_acme', window: '7d' }, "Unknown query parameter(s): 'window'"],
  ])('%j', async (query, message) => {
    const res = await metric('dora', query as Record<string, string>);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain(message);
  });

  test('windows far from any data answer with zeros on every metric, never an error', async () => {
    for (const query of ['from=9999-12-01&to=9999-12-31&interval=week', 'from=1000-01-01&to=1000-01-31&interval=day', 'from=1969-12-01&to=1970-01-31&interval=month']) {
      for (const path of ['dora', 'pull-requests', 'flow', 'activity']) {
        const res = await t.get(`/v1/metrics/${path}?organization_id=${lab.organizationId}&${query}`, token);
        expect({ path, query, status: res.status }).toEqual({ path, query, status: 200 });
      }
    }
    const far = (await metric('dora', { organization_id: lab.organizationId, from: '9999-12-01', to: '9999-12-31' })).body.data;
    expect(far.deployment_frequency).toEqual({ deployments: 0, per_day: 0, band: 'low' });
  });

  test('a window of exactly 366 days is fine', async () => {
    expect((await metric('dora', { organization_id: DEMO.orgs.acme, from: '2025-01-01', to: '2026-01-01', interval: 'month' })).status).toBe(200);
  });
});

describe('a figure too slow to compute', () => {
  const mysql = process.env.DATABASE_URL?.startsWith('mysql');
  (mysql ? test : test.skip)('a query past METRICS_QUERY_TIMEOUT_MS is stopped by the database and answers 503 with Retry-After and what to do (MySQL/MariaDB)', async () => {
    const { MetricSql } = await import('../../src/services/metrics/reading/sql');
    const { organizationScope } = await import('../../src/services/metrics/reading/scope');
    const { windowOf } = await import('../../src/services/metrics/reading/window');
    const q = new MetricSql(t.runtime.sequelize, organizationScope(lab.organizationId), windowOf(new Date('2026-03-02'), new Date('2026-03-08')), new Date(), 200);
    const started = Date.now();
    await expect(q.rows('SELECT SLEEP(3) AS slept')).rejects.toMatchObject({ kind: 'unavailable', detail: { retryAfterSeconds: 60 }, message: expect.stringContaining('ask for a shorter window') });
    expect(Date.now() - started).toBeLessThan(2_500);
    // The same statement under the limit runs as before.
    expect(await q.rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
