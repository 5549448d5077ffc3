import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { MEASURES } from '../../db/rollups/pullRequestMeasures';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0055 on a database that already holds a merged pull request, on the backend this run uses: it gains `draft` (false)
 * and `ready_for_review_at` (null: its deliveries were not kept), and its samples the measures from ready for review,
 * equal to those from opening (with the monthly counts); down takes the measures and the columns away and keeps the
 * pull request and its other samples.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig55'));
});
afterAll(async () => drop());

const select = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
const samples = async () =>
  (await select<{ measure: number; value: number }>("SELECT measure, value FROM pull_request_samples WHERE pull_request_id = 'pr_m' ORDER BY measure")).map((s) => [Number(s.measure), Number(s.value)]);
const months = async () =>
  (await select<{ measure: number; n: number }>("SELECT measure, SUM(pull_requests) AS n FROM pull_request_months WHERE scope_id = 'org_m' GROUP BY measure ORDER BY measure")).map((m) => [Number(m.measure), Number(m.n)]);

const HOUR = 3_600_000;
const { merge, pickup, mergeFromReady, pickupFromReady } = MEASURES;

test('0055 gives pull requests draft and ready_for_review_at and their samples the measures from ready; down and up again keep the pull request', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0055-ready-for-review') - 1] });
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, created_at, merged_at, closed_at, first_review_at) VALUES
       ('pr_m', 'repo_m', 'git_m', 'org_m', 7, 'Drafted', 'merged', '2026-05-04 09:00:00.000', '2026-05-07 09:00:00.000', '2026-05-07 09:00:00.000', '2026-05-06 15:00:00.000')`,
  );
  expect((await migrator.up({ to: '0055-ready-for-review' })).map((m) => m.name)).toEqual(['0055-ready-for-review']);
  expect(await select('SELECT draft, ready_for_review_at FROM pull_requests')).toEqual([{ draft: expect.anything(), ready_for_review_at: null }]);
  expect(Number((await select<{ draft: unknown }>('SELECT draft FROM pull_requests'))[0].draft)).toBe(0);
  // Opened Monday 09:00, reviewed Wednesday 15:00, merged Thursday 09:00: 72 h and 54 h, from opening as from ready.
  const measured = await samples();
  expect(measured).toEqual(expect.arrayContaining([[merge.id, 72 * HOUR], [pickup.id, 54 * HOUR], [mergeFromReady.id, 72 * HOUR], [pickupFromReady.id, 54 * HOUR]]));
  expect((await months()).filter(([m]) => m >= mergeFromReady.id)).toEqual([[mergeFromReady.id, 1], [pickupFromReady.id, 1]]);

  await migrator.down({ to: '0055-ready-for-review' });
  const columns = Object.keys(await sequelize.getQueryInterface().describeTable('pull_requests'));
  expect(columns.filter((c) => ['draft', 'ready_for_review_at'].includes(c))).toEqual([]);
  expect(await samples()).toEqual(measured.filter(([m]) => m < mergeFromReady.id));
  expect((await months()).filter(([m]) => m >= mergeFromReady.id)).toEqual([]);

  await migrator.up({ to: '0055-ready-for-review' });
  expect(await samples()).toEqual(measured);
});
