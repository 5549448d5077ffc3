import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0057 on a database that already holds boards and incidents, on the backend this run uses: a PagerDuty service
 * mapped to a repository moves to `board_repositories` (when it was mapped kept), a Jira board mapped to a team stays
 * in `app_boards`, which loses `repository_id`; each incident with a repository belongs to it in
 * `incident_repositories`, one without to none. Down gives each board its earliest repository back and takes the
 * tables away; up again ends as the first up did.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig57'));
});
afterAll(async () => drop());

const select = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
const boardRows = () => select('SELECT app_id, board_key, repository_id, organization_id FROM board_repositories ORDER BY board_key, repository_id');
const teamRows = () => select('SELECT app_id, board_key, team_id FROM app_boards ORDER BY board_key');
const belonging = () => select('SELECT incident_id, repository_id, organization_id FROM incident_repositories ORDER BY incident_id');

test('0057 moves repository mappings to board_repositories and gives each placed incident its row; down and up again keep them', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0057-board-repositories') - 1] });
  await sequelize.query(`INSERT INTO app_boards (app_id, board_key, organization_id, team_id, repository_id, created_at) VALUES
    ('app_pd', 'PAPI', 'org_m', NULL, 'repo_api', '2026-05-01 09:00:00.000'),
    ('app_jira', 'PLAT', 'org_m', 'team_core', NULL, '2026-05-01 09:00:00.000')`);
  await sequelize.query(`INSERT INTO incidents (id, repository_id, git_app_id, organization_id, app_id, board_key, external_id, title, cause_sha, created_at, resolved_at) VALUES
    ('inc_paged', 'repo_api', 'git_m', 'org_m', 'app_pd', 'PAPI', 'Q1', 'Paged', NULL, '2026-05-05 10:00:00.000', '2026-05-05 12:00:00.000'),
    ('inc_issue', 'repo_web', 'git_m', 'org_m', NULL, NULL, '17', 'Issue', NULL, '2026-05-06 10:00:00.000', NULL),
    ('inc_unmapped', NULL, NULL, 'org_m', 'app_pd', 'PBILL', 'Q2', 'Billing', NULL, '2026-05-07 10:00:00.000', NULL)`);

  expect((await migrator.up({ to: '0057-board-repositories' })).map((m) => m.name)).toEqual(['0057-board-repositories']);
  const after = { boards: await boardRows(), teams: await teamRows(), belonging: await belonging() };
  expect(after).toEqual({
    boards: [{ app_id: 'app_pd', board_key: 'PAPI', repository_id: 'repo_api', organization_id: 'org_m' }],
    teams: [{ app_id: 'app_jira', board_key: 'PLAT', team_id: 'team_core' }],
    belonging: [
      { incident_id: 'inc_issue', repository_id: 'repo_web', organization_id: 'org_m' },
      { incident_id: 'inc_paged', repository_id: 'repo_api', organization_id: 'org_m' },
    ],
  });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('app_boards'))).not.toContain('repository_id');
  const [kept] = await select<{ n: number | string }>("SELECT COUNT(*) AS n FROM board_repositories WHERE created_at = '2026-05-01 09:00:00.000'");
  expect(Number(kept.n)).toBe(1);

  // A second repository for the service, then down: the board keeps its earliest one.
  await sequelize.query(`INSERT INTO board_repositories (app_id, board_key, repository_id, organization_id, created_at) VALUES ('app_pd', 'PAPI', 'repo_web', 'org_m', '2026-05-02 09:00:00.000')`);
  await migrator.down({ to: '0057-board-repositories' });
  expect(await select('SELECT app_id, board_key, team_id, repository_id FROM app_boards ORDER BY board_key')).toEqual([
    { app_id: 'app_pd', board_key: 'PAPI', team_id: null, repository_id: 'repo_api' },
    { app_id: 'app_jira', board_key: 'PLAT', team_id: 'team_core', repository_id: null },
  ]);
  const tables = (await sequelize.getQueryInterface().showAllTables()).map(String);
  expect(tables.filter((name) => ['board_repositories', 'incident_repositories'].includes(name))).toEqual([]);

  await migrator.up({ to: '0057-board-repositories' });
  expect({ boards: await boardRows(), teams: await teamRows(), belonging: await belonging() }).toEqual(after);
});
