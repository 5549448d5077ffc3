import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0058 on a database that already holds what the adoption tiers read, on the backend this run uses: each member's
 * month gets the bits of the days they worked (a commit's author day, a pull request opened, an act on one) and of
 * the days they used any AI tool (the any-tool row of ai_active_months; a tool's own row and unattributed use add
 * nothing), worked by hand. Down takes the table away; up again ends as the first up did.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig58'));
});
afterAll(async () => drop());

const months = () =>
  sequelize.query<{ organization_id: string; user_id: string; month: string; work_days: number | string; ai_days: number | string }>(
    'SELECT organization_id, user_id, month, work_days, ai_days FROM member_active_months ORDER BY organization_id, user_id, month',
    { type: QueryTypes.SELECT },
  );
const bits = (...days: number[]) => days.reduce((sum, d) => sum + 2 ** (d - 1), 0);

test("0058 fills each member's months at work and with an AI tool from what is stored; down and up again keep them", async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0058-member-active-months') - 1] });
  // Ada: commits on May 1 and 31, a pull request opened May 3 at 23:30 UTC, a review on June 2, Claude Code on May 3
  // and June 30 (its own row too). Bo: a comment on May 31, Copilot on May 1. A pull request of no member, an act by
  // no member and unattributed AI use count for no one.
  await sequelize.query(`INSERT INTO author_days (organization_id, user_id, day, previous_day) VALUES
    ('org_m', 'usr_ada', '2026-05-01', NULL), ('org_m', 'usr_ada', '2026-05-31', '2026-05-01')`);
  await sequelize.query(`INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, author_id, created_at) VALUES
    ('pr_1', 'repo_api', 'git_m', 'org_m', 1, 'One', 'open', 'usr_ada', '2026-05-03 23:30:00.000'),
    ('pr_2', 'repo_api', 'git_m', 'org_m', 2, 'Two', 'open', NULL, '2026-05-09 10:00:00.000')`);
  await sequelize.query(`INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, actor_id, external_id, created_at) VALUES
    ('pra_1', 'pr_1', 'repo_api', 'git_m', 'org_m', 'approved', 'usr_ada', 'review:1', '2026-06-02 08:00:00.000'),
    ('pra_2', 'pr_1', 'repo_api', 'git_m', 'org_m', 'comment', 'usr_bo', 'note:2', '2026-05-31 12:00:00.000'),
    ('pra_3', 'pr_1', 'repo_api', 'git_m', 'org_m', 'comment', NULL, 'note:3', '2026-05-20 12:00:00.000')`);
  await sequelize.query(`INSERT INTO ai_active_months (organization_id, user_key, month, tool, days) VALUES
    ('org_m', 'usr_ada', '2026-05', '', ${bits(3)}), ('org_m', 'usr_ada', '2026-05', 'claude_code', ${bits(3)}),
    ('org_m', 'usr_ada', '2026-06', '', ${bits(30)}), ('org_m', 'usr_bo', '2026-05', '', ${bits(1)}),
    ('org_m', '', '2026-05', '', ${bits(7)})`);

  expect((await migrator.up({ to: '0058-member-active-months' })).map((m) => m.name)).toEqual(['0058-member-active-months']);
  const after = (await months()).map((r) => ({ ...r, work_days: Number(r.work_days), ai_days: Number(r.ai_days) }));
  expect(after).toEqual([
    { organization_id: 'org_m', user_id: 'usr_ada', month: '2026-05', work_days: bits(1, 3, 31), ai_days: bits(3) },
    { organization_id: 'org_m', user_id: 'usr_ada', month: '2026-06', work_days: bits(2), ai_days: bits(30) },
    { organization_id: 'org_m', user_id: 'usr_bo', month: '2026-05', work_days: bits(31), ai_days: bits(1) },
  ]);

  await migrator.down({ to: '0058-member-active-months' });
  expect((await sequelize.getQueryInterface().showAllTables()).map(String)).not.toContain('member_active_months');
  await migrator.up({ to: '0058-member-active-months' });
  expect((await months()).map((r) => ({ ...r, work_days: Number(r.work_days), ai_days: Number(r.ai_days) }))).toEqual(after);
});
