import { QueryTypes } from 'sequelize';
import { startTestApp, TestApp, DEMO, DEMO_END_DAY } from '../support/harness';
import { createSequelize } from '../../db/connection';
import { migrate } from '../../db/migrator';
import { seedDemo } from '../../db/demo/generator';
import { parseArgs } from '../../scripts/seed';

/**
 * The demo data ends on the day it is seeded, so a newcomer's first start shows a team's rhythm in every default
 * window (the last 28 days), whatever the date. A first start as `npm start` makes it (migrate, then the demo
 * scale seeded to end on the clock's UTC day), on three days a year apart, the service's "now" that day too.
 */

const DAYS = ['2025-03-14', '2026-03-14', '2027-03-14'];
const DAY_MS = 86_400_000;

describe.each(DAYS)('a first start on %s', (today) => {
  let t: TestApp;
  let token: string;
  // Mid-morning: the day's own records would be in the future, so the data stops at 00:00 UTC.
  const now = new Date(`${today}T10:30:00.000Z`);
  const windowStart = new Date(now.getTime() - 27 * DAY_MS).toISOString().slice(0, 10);

  beforeAll(async () => {
    t = await startTestApp({}, { clock: () => now, scale: 'demo' });
    token = await t.token();
  }, 300_000);
  afterAll(async () => t.close());

  const defaultWindow = async (metric: string) => {
    const res = await t.get(`/v1/metrics/${metric}?organization_id=${DEMO.orgs.acme}`, token);
    expect(res.status).toBe(200);
    // The default window is the service's clock's last 28 days.
    expect(res.body.data).toMatchObject({ from: windowStart, to: today });
    return res.body.data;
  };

  test('DORA: deployments and their lead times', async () => {
    const dora = await defaultWindow('dora');
    expect(dora.deployment_frequency.deployments).toBeGreaterThan(0);
    expect(dora.lead_time_for_changes.changes).toBeGreaterThan(0);
    expect(dora.lead_time_for_changes.median_hours).toBeGreaterThan(0);
  });

  test('pull requests opened and merged, some open now', async () => {
    const prs = await defaultWindow('pull-requests');
    expect(prs.opened).toBeGreaterThan(0);
    expect(prs.merged).toBeGreaterThan(0);
    expect(prs.time_to_merge_hours.median).toBeGreaterThan(0);
    expect(prs.open_now).toBeGreaterThan(0);
  });

  test('flow: tasks completed, some in progress now, and every figure of their history says something', async () => {
    const flow = await defaultWindow('flow');
    expect(flow.completed).toBeGreaterThan(0);
    expect(flow.cycle_time_hours.median).toBeGreaterThan(0);
    expect(flow.in_progress_now).toBeGreaterThan(0);
    // Most tasks have a history, a few were imported without one.
    expect(flow.completed_with_history).toBeGreaterThan(0);
    expect(flow.completed_with_history).toBeLessThanOrEqual(flow.completed);
    expect(flow.lead_time_hours.median).toBeGreaterThan(0);
    expect(flow.flow_efficiency).toBeGreaterThan(0);
    expect(flow.flow_efficiency).toBeLessThan(1);
    expect(flow.time_in_status_hours.backlog).toBeGreaterThan(0);
    expect(flow.time_in_status_hours.active).toBeGreaterThan(0);
    expect(flow.time_in_status_hours.paused).not.toBeNull();
    expect(flow.reworked).toBeGreaterThan(0);
    expect(flow.canceled).toBeGreaterThan(0);
    expect(flow.wip_age_hours.median).toBeGreaterThan(0);
    expect(flow.unassigned_now).toBeGreaterThan(0);
  });

  test('activity, AI usage, collaboration and financial', async () => {
    expect((await defaultWindow('activity')).commits).toBeGreaterThan(0);
    expect((await defaultWindow('ai-usage')).active_users).toBeGreaterThan(0);
    const collaboration = await defaultWindow('collaboration');
    expect(collaboration.merged).toBeGreaterThan(0);
    expect(collaboration.reviews).toBeGreaterThan(0);
    expect(collaboration.reviewers).toBeGreaterThan(0);
    // Amounts need the cost rates an operator sets (npm run costs): without them they are null, never 0.
    const financial = await defaultWindow('financial');
    expect(financial.members).toBeGreaterThan(0);
    expect(financial.ai.active_users).toBeGreaterThan(0);
    expect(financial.ai.tool_estimate_usd).toBeGreaterThan(0);
  });

  test('the data ends the day before: nothing is dated after the start of the day', async () => {
    const [row] = await t.runtime.sequelize.query<{ last: string | Date }>('SELECT MAX(created_at) AS last FROM commits', { type: QueryTypes.SELECT });
    const last = new Date(row.last);
    expect(last.getTime()).toBeLessThan(Date.parse(`${today}T00:00:00.000Z`));
    expect(last.getTime()).toBeGreaterThanOrEqual(Date.parse(`${today}T00:00:00.000Z`) - 2 * DAY_MS);
  });
});

describe('reproducible for a given end day', () => {
  /** The tiny demo ended on `endDay`, in a database of its own: what a table's rows are, in id order. */
  async function seeded(endDay: string, table: string, columns: string): Promise<Array<Record<string, unknown>>> {
    const sequelize = createSequelize({ sqlitePath: ':memory:' });
    try {
      await migrate(sequelize);
      await seedDemo(sequelize, { scale: 'tiny', endDay });
      return await sequelize.query(`SELECT ${columns} FROM ${table} ORDER BY id`, { type: QueryTypes.SELECT });
    } finally {
      await sequelize.close();
    }
  }
  const ms = (value: unknown) => (value === null ? null : new Date(String(value)).getTime());

  test('the same end day gives the same rows; another moves every timestamp by the days in between', async () => {
    const columns = 'id, title, author_id, created_at, merged_at, closed_at, state';
    const [first, again, yearLater] = await Promise.all([DEMO_END_DAY, DEMO_END_DAY, '2027-11-05'].map((endDay) => seeded(endDay, 'pull_requests', columns)));
    expect(again).toEqual(first);
    const moveMs = Date.parse('2027-11-05') - Date.parse(DEMO_END_DAY);
    expect(yearLater.map((r) => [r.id, r.state, ms(r.created_at), ms(r.merged_at), ms(r.closed_at)])).toEqual(
      first.map((r) => [r.id, r.state, ms(r.created_at)! + moveMs, r.merged_at === null ? null : ms(r.merged_at)! + moveMs, r.closed_at === null ? null : ms(r.closed_at)! + moveMs]),
    );
    // As written in db/demo/fixtures/ when it ends on DEMO_END_DAY.
    expect(ms(first.find((r) => r.id === DEMO.pullRequests.acmeApi1)!.created_at)).toBe(Date.parse('2024-03-19T10:00:00.000Z'));
  });

  test('npm run seed takes the end day, today (UTC) by default', () => {
    expect(parseArgs([], new Date('2027-01-01T23:30:00-05:00'))).toMatchObject({ endDay: '2027-01-02' });
    expect(parseArgs(['--end-day', '2025-02-28'])).toMatchObject({ endDay: '2025-02-28' });
    for (const bad of ['2025-02-30', '2025-13-01', 'yesterday', '2025-2-3']) {
      expect(() => parseArgs(['--end-day', bad])).toThrow(`--end-day must be a date, YYYY-MM-DD (got "${bad}")`);
    }
  });
});
