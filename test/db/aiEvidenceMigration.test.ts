import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0053 on a database whose commits were marked AI-assisted by any AI activity of their author that day, on the backend
 * this run uses: each commit gets the evidence its message and its author's day as stored show, and what was built
 * on AI-assisted commits follows (the pull request's flag and its sample's split, the deployment's shipped_ai, the
 * daily counts, now by evidence); down brings the old rule back, and up again the new.
 *
 * e1 (usr_a, March 5): marked → trailer. e2 (usr_a, March 5): usr_a's telemetry reports lines that day → telemetry.
 * e3 (usr_b, March 4): usr_b had a Claude Code session and a Cursor day without a line → none; pull request #1's head,
 * shipped alone by d0. e4 (usr_c, March 6): Cursor reports lines she accepted → vendor_lines.
 */
let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig53'));
});
afterAll(async () => drop());

const select = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
const sha = (n: number) => String(n).padStart(40, 'e');
const dayOf = (d: unknown) => String(d instanceof Date ? d.toISOString() : d).slice(0, 10);

async function built() {
  const pullRequest = await select<{ has_ai_commit: number | boolean }>("SELECT has_ai_commit FROM pull_requests WHERE id = 'pr_e1'");
  const samples = await select<{ ai: number | boolean }>("SELECT DISTINCT ai FROM pull_request_samples WHERE pull_request_id = 'pr_e1'");
  const deployments = await select<{ id: string; shipped_ai: number | boolean }>("SELECT id, shipped_ai FROM deployments WHERE organization_id = 'org_e' ORDER BY id");
  const days = await select<{ day: unknown; commits: number; ai_commits: number }>("SELECT day, commits, ai_commits FROM commit_days WHERE scope_id = 'org_e' ORDER BY day");
  return {
    pullRequest: Boolean(pullRequest[0].has_ai_commit),
    samples: samples.map((s) => Boolean(s.ai)),
    deployments: deployments.map((d) => [d.id, Boolean(d.shipped_ai)]),
    days: days.map((d) => [dayOf(d.day), Number(d.commits), Number(d.ai_commits)]),
  };
}

test('0053 gives the stored commits their evidence, builds again what stands on them, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: MIGRATION_NAMES[MIGRATION_NAMES.indexOf('0053-ai-evidence') - 1] });
  const commit = (id: string, n: number, author: string, at: string, marked: boolean) =>
    `('${id}', 'repo_e', 'gapp_e', 'org_e', '${sha(n)}', 'm', '${author}', 'A', 1, 0, '${at}', ${marked ? 1 : 0}, 1)`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at, ai_assisted, author_ai_active) VALUES
       ${commit('cmt_e1', 1, 'usr_a', '2025-03-05 10:00:00.000', true)}, ${commit('cmt_e2', 2, 'usr_a', '2025-03-05 11:00:00.000', false)},
       ${commit('cmt_e3', 3, 'usr_b', '2025-03-04 12:00:00.000', false)}, ${commit('cmt_e4', 4, 'usr_c', '2025-03-06 09:00:00.000', false)}`,
  );
  await sequelize.query(
    `INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, source, sessions, lines_added) VALUES
       ('org_e', '2025-03-05', 'usr_a', 'claude_code', '', 'otlp', 1, 12), ('org_e', '2025-03-04', 'usr_b', 'claude_code', '', 'otlp', 1, 0),
       ('org_e', '2025-03-04', 'usr_b', 'cursor', '', 'vendor', 0, 0), ('org_e', '2025-03-06', 'usr_c', 'cursor', '', 'vendor', 0, 30)`,
  );
  await sequelize.query(
    `INSERT INTO ai_vendor_days (app_id, day, account, organization_id, tool, user_key, active, chat_requests, lines_added) VALUES
       ('app_e', '2025-03-04', 'b@acme.test', 'org_e', 'cursor', 'usr_b', 1, 7, 0), ('app_e', '2025-03-06', 'c@acme.test', 'org_e', 'cursor', 'usr_c', 1, 0, 30)`,
  );
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, created_at, merged_at, head_sha, has_ai_commit) VALUES
       ('pr_e1', 'repo_e', 'gapp_e', 'org_e', 1, 'Chat', 'merged', '2025-03-04 12:30:00.000', '2025-03-04 14:30:00.000', '${sha(3)}', 1)`,
  );
  await sequelize.query(
    `INSERT INTO deployments (id, repository_id, git_app_id, organization_id, external_id, environment, status, sha, created_at, finished_at, shipped_ai) VALUES
       ('dep_e0', 'repo_e', 'gapp_e', 'org_e', 'd0', 'production', 'success', '${sha(3)}', '2025-03-04 12:50:00.000', '2025-03-04 13:00:00.000', 1),
       ('dep_e1', 'repo_e', 'gapp_e', 'org_e', 'd1', 'production', 'success', '${sha(2)}', '2025-03-05 12:50:00.000', '2025-03-05 13:00:00.000', 1)`,
  );
  // As the writers kept them under the old rule.
  await sequelize.query("INSERT INTO commit_days (scope_id, day, commits, ai_commits) VALUES ('org_e', '2025-03-04', 1, 1), ('org_e', '2025-03-05', 2, 2), ('org_e', '2025-03-06', 1, 1)");
  await sequelize.query(
    "INSERT INTO pull_request_samples (pull_request_id, measure, repository_id, organization_id, merged_at, ai, band, value) VALUES ('pr_e1', 0, 'repo_e', 'org_e', '2025-03-04 14:30:00.000', 1, 0, 7200000)",
  );

  expect((await migrator.up({ to: '0053-ai-evidence' })).map((m) => m.name)).toEqual(['0053-ai-evidence']);
  const evidence = async () => (await select<{ id: string; ai_evidence: string | null }>("SELECT id, ai_evidence FROM commits WHERE organization_id = 'org_e' ORDER BY id")).map((r) => [r.id, r.ai_evidence]);
  expect(await evidence()).toEqual([
    ['cmt_e1', 'trailer'],
    ['cmt_e2', 'telemetry'],
    ['cmt_e3', null],
    ['cmt_e4', 'vendor_lines'],
  ]);
  const byEvidence = await select<{ day: unknown; trailer_commits: number; telemetry_commits: number; vendor_lines_commits: number }>(
    "SELECT day, trailer_commits, telemetry_commits, vendor_lines_commits FROM commit_days WHERE scope_id = 'repo_e' ORDER BY day",
  );
  expect(byEvidence.map((d) => [dayOf(d.day), Number(d.trailer_commits), Number(d.telemetry_commits), Number(d.vendor_lines_commits)])).toEqual([
    ['2025-03-04', 0, 0, 0],
    ['2025-03-05', 1, 1, 0],
    ['2025-03-06', 0, 0, 1],
  ]);
  const evidenceRule = {
    pullRequest: false,
    samples: [false],
    deployments: [
      ['dep_e0', false],
      ['dep_e1', true],
    ],
    days: [
      ['2025-03-04', 1, 0],
      ['2025-03-05', 2, 2],
      ['2025-03-06', 1, 1],
    ],
  };
  expect(await built()).toEqual(evidenceRule);
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('commits'))).not.toContain('author_ai_active');

  await migrator.down({ to: '0053-ai-evidence' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('commits'))).not.toContain('ai_evidence');
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('commit_days'))).not.toContain('trailer_commits');
  const active = await select<{ id: string; author_ai_active: number | boolean }>("SELECT id, author_ai_active FROM commits WHERE organization_id = 'org_e' ORDER BY id");
  expect(active.map((r) => Boolean(r.author_ai_active))).toEqual([true, true, true, true]);
  expect(await built()).toEqual({
    pullRequest: true,
    samples: [true],
    deployments: [
      ['dep_e0', true],
      ['dep_e1', true],
    ],
    days: [
      ['2025-03-04', 1, 1],
      ['2025-03-05', 2, 2],
      ['2025-03-06', 1, 1],
    ],
  });

  await migrator.up({ to: '0053-ai-evidence' });
  expect(await built()).toEqual(evidenceRule);
  await migrator.up();
});
