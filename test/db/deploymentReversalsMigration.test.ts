import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0054 on a database that already holds deployments, commits and their shipped changes, on the backend this run
 * uses: each successful deployment reverted or rolled back gets when (db/rollups/reverts.ts), the others null; run
 * again it changes nothing; down takes the column away and keeps the deployments. By hand, all production of repo_r:
 *
 *   dep_1 ships k (08:00), finishes 09:00     reverted by dep_2, which ships r ("This reverts commit k"), 21:00
 *   dep_3 deploys c, next day 09:00           rolled back by dep_4, which deploys r again (dep_2's), 10:00
 *   dep_5 deploys c in staging, 09:30         nothing undoes it there
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig54'));
});
afterAll(async () => drop());

const at = (hours: number) => new Date(Date.parse('2026-05-04T00:00:00Z') + hours * 3_600_000).toISOString().replace('T', ' ').slice(0, 23);
const [K, R, C] = ['a', 'b', 'c'].map((x) => x.repeat(40));

const reverted = () =>
  sequelize
    .query<{ id: string; reverted_at: Date | string | null }>('SELECT id, reverted_at FROM deployments ORDER BY id', { type: QueryTypes.SELECT })
    .then((rows) => rows.map((r) => [r.id, r.reverted_at === null ? null : new Date(r.reverted_at).toISOString()]));

test('0054 keeps when each stored deployment was reverted or rolled back; again it changes nothing; down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0054-deployment-reversals') - 1] });
  const commit = (id: string, sha: string, message: string, hours: number) => `('${id}', 'repo_r', 'gapp_r', 'org_r', '${sha}', '${message}', NULL, 'A', 1, 0, '${at(hours)}')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at) VALUES
       ${commit('cmt_k', K, 'Add checkout totals', 8)}, ${commit('cmt_r', R, `Revert "Add checkout totals"\n\nThis reverts commit ${K}.\n`, 20)}`,
  );
  const deployment = (id: string, environment: string, sha: string, hours: number) =>
    `('${id}', 'repo_r', 'gapp_r', 'org_r', '${id}', '${environment}', 'success', '${sha}', '${at(hours - 0.1)}', '${at(hours)}')`;
  await sequelize.query(
    `INSERT INTO deployments (id, repository_id, git_app_id, organization_id, external_id, environment, status, sha, created_at, finished_at) VALUES
       ${deployment('dep_1', 'production', K, 9)}, ${deployment('dep_2', 'production', R, 21)}, ${deployment('dep_3', 'production', C, 33)},
       ${deployment('dep_4', 'Production', R, 34)}, ${deployment('dep_5', 'staging', C, 33.5)}`,
  );
  await sequelize.query(
    `INSERT INTO shipped_changes (deployment_id, commit_id, repository_id, organization_id, environment, finished_at, band, lead_ms) VALUES
       ('dep_1', 'cmt_k', 'repo_r', 'org_r', 'production', '${at(9)}', 0, 3600000), ('dep_2', 'cmt_r', 'repo_r', 'org_r', 'production', '${at(21)}', 0, 3600000)`,
  );
  expect((await migrator.up({ to: '0054-deployment-reversals' })).map((m) => m.name)).toEqual(['0054-deployment-reversals']);
  const kept = [
    ['dep_1', `${at(21).replace(' ', 'T')}Z`],
    ['dep_2', null],
    ['dep_3', `${at(34).replace(' ', 'T')}Z`],
    ['dep_4', null],
    ['dep_5', null],
  ];
  expect(await reverted()).toEqual(kept);

  // Half done: one lost, the migration run again finds it.
  await sequelize.query("UPDATE deployments SET reverted_at = NULL WHERE id = 'dep_3'");
  await (await import('../../db/migrations/0054-deployment-reversals')).up({ context: sequelize.getQueryInterface() });
  expect(await reverted()).toEqual(kept);

  await migrator.down({ to: '0054-deployment-reversals' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('deployments'))).not.toContain('reverted_at');
  expect((await sequelize.query<{ id: string }>('SELECT id FROM deployments ORDER BY id', { type: QueryTypes.SELECT })).map((r) => r.id)).toEqual(['dep_1', 'dep_2', 'dep_3', 'dep_4', 'dep_5']);
  await migrator.up();
  expect(await reverted()).toEqual(kept);
});
