import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import { createSequelize } from '../../db/connection';
import { durationBands, sizeBands } from '../../db/rollups/bands';
import { createMigrator, MIGRATION_NAMES } from '../../db/migrator';
import { SERVICES } from '../support/harness';

/**
 * Migrations applied to a database that already holds data, on the backend this run uses: 0002 copies each
 * member's user fields onto their membership rows.
 */

/** The migrations from `first` on, in the order they apply: what `up()` applies after going down to just before it. */
const from = (first: string): string[] => MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf(first));

/** The migrations after 0012, applied again by each test below that goes down past them. */
const LATER = from('0013-cost-rates');

let sequelize: Sequelize;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  if (SERVICES.databaseUrl) {
    const admin = new Sequelize(SERVICES.databaseUrl, { logging: false });
    const name = `${new URL(SERVICES.databaseUrl).pathname.slice(1)}_mig_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE \`${name}\``);
    const url = new URL(SERVICES.databaseUrl);
    url.pathname = `/${name}`;
    sequelize = createSequelize({ url: url.toString(), sqlitePath: '' });
    cleanup = async () => {
      await sequelize.close();
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.close();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-migrations-'));
    sequelize = createSequelize({ sqlitePath: path.join(dir, 'db.sqlite') });
    cleanup = async () => {
      await sequelize.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
});
afterAll(async () => cleanup());

test('0002 fills the member sort fields of existing memberships from their users', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: '0001-initial-schema' });
  const at = '2024-02-03 04:05:06.789';
  await sequelize.query(
    `INSERT INTO users (id, name, email, is_active, created_at) VALUES ('usr_a', 'Ann Lee', 'ann@x.test', 1, '${at}'), ('usr_b', 'Bo Diaz', 'bo@x.test', 1, '${at}')`,
  );
  await sequelize.query(`INSERT INTO organizations (id, name, created_at) VALUES ('org_x', 'X', '${at}')`);
  await sequelize.query(`INSERT INTO teams (id, organization_id, name, created_at) VALUES ('team_x', 'org_x', 'T', '${at}')`);
  await sequelize.query(
    `INSERT INTO organization_memberships (organization_id, user_id, role, created_at) VALUES ('org_x', 'usr_a', 'admin', '${at}'), ('org_x', 'usr_b', 'collaborator', '${at}')`,
  );
  await sequelize.query(`INSERT INTO team_memberships (team_id, user_id, title, role, created_at) VALUES ('team_x', 'usr_b', 'Dev', 'member', '${at}')`);

  expect((await migrator.up({ to: '0002-member-sort-columns' })).map((m) => m.name)).toEqual(['0002-member-sort-columns']);

  const rows = await sequelize.query<Record<string, unknown>>(
    `SELECT user_id, user_name, user_email FROM organization_memberships UNION ALL SELECT user_id, user_name, user_email FROM team_memberships ORDER BY user_id`,
    { type: QueryTypes.SELECT },
  );
  expect(rows).toEqual([
    { user_id: 'usr_a', user_name: 'Ann Lee', user_email: 'ann@x.test' },
    { user_id: 'usr_b', user_name: 'Bo Diaz', user_email: 'bo@x.test' },
    { user_id: 'usr_b', user_name: 'Bo Diaz', user_email: 'bo@x.test' },
  ]);
  const [{ filled }] = await sequelize.query<{ filled: number | string }>(
    'SELECT COUNT(*) AS filled FROM organization_memberships m JOIN users u ON u.id = m.user_id WHERE m.user_created_at = u.created_at',
    { type: QueryTypes.SELECT },
  );
  expect(Number(filled)).toBe(2);
});

test('0004 makes every existing membership active, and goes down and up again cleanly', async () => {
  const migrator = createMigrator(sequelize);
  expect((await migrator.up({ to: '0004-write-path' })).map((m) => m.name)).toEqual(['0003-data-versions', '0004-write-path']);
  const states = await sequelize.query<{ status: string }>(
    'SELECT status FROM organization_memberships UNION ALL SELECT status FROM team_memberships',
    { type: QueryTypes.SELECT },
  );
  expect(states.map((s) => s.status)).toEqual(['active', 'active', 'active']);
  const indexes = async (table: string) =>
    ((await sequelize.getQueryInterface().showIndex(table)) as { name: string }[]).map((i) => i.name).sort();
  expect(await indexes('organization_memberships')).toEqual(
    expect.arrayContaining(['org_members_by_status_user_name', 'organization_memberships_organization_id_external_id_unique']),
  );

  await migrator.down({ to: '0004-write-path' });
  expect(await indexes('organization_memberships')).toContain('organization_memberships_organization_id_user_name_user_id');
  expect(await indexes('organization_memberships')).not.toContain('org_members_by_status_user_name');
  await migrator.up();
  expect(await indexes('team_memberships')).toContain('team_members_by_status_user_email');
});

test('0005 keeps existing commits (line counts known) and git apps (no secret yet), and goes down and up again cleanly', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0005-git-activity' });
  const at = '2024-02-03 04:05:06.789';
  await sequelize.query(`INSERT INTO git_apps (id, organization_id, provider, name, is_active, created_at) VALUES ('gapp_x', 'org_x', 'github', 'GitHub', 1, '${at}')`);
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at) ` +
      `VALUES ('cmt_x', 'repo_x', 'gapp_x', 'org_x', '${'a'.repeat(40)}', 'm', NULL, 'A', 3, 1, '${at}')`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0005-git-activity'));
  const [commit] = await sequelize.query<{ stats_known: number | boolean }>('SELECT stats_known FROM commits', { type: QueryTypes.SELECT });
  expect(Boolean(commit.stats_known)).toBe(true);
  const [app] = await sequelize.query<{ webhook_secret: string | null }>('SELECT webhook_secret FROM git_apps', { type: QueryTypes.SELECT });
  expect(app.webhook_secret).toBeNull();
  const indexes = async (table: string) => ((await sequelize.getQueryInterface().showIndex(table)) as { name: string }[]).map((i) => i.name);
  expect(await indexes('commits')).toContain('commits_repository_id_sha_unique');
  expect(await indexes('deployments')).toEqual(expect.arrayContaining(['deployments_repository_id_external_id_unique', 'deployments_organization_id_created_at_id']));

  await migrator.down({ to: '0005-git-activity' });
  expect(await indexes('commits')).not.toContain('commits_repository_id_sha_unique');
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('git_apps'))).not.toContain('webhook_secret');
  await migrator.up();
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('incidents'))).toContain('cause_sha');
});

test('0006 adds the webhook tables with their queue indexes, and goes down and up again cleanly', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0006-webhooks' });
  const tables = async () => (await sequelize.getQueryInterface().showAllTables()).map(String);
  expect(await tables()).not.toContain('webhook_endpoints');
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0006-webhooks'));
  expect(await tables()).toEqual(expect.arrayContaining(['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts']));
  const indexes = ((await sequelize.getQueryInterface().showIndex('webhook_deliveries')) as { name: string }[]).map((i) => i.name);
  expect(indexes).toEqual(expect.arrayContaining(['webhook_deliveries_status_next_attempt_at', 'webhook_deliveries_endpoint_id_status_next_attempt_at']));
});

test('0007 adds the indexes the metrics read, in place of the plain author index, and goes down and up again cleanly (0038 put id in its author indexes since)', async () => {
  const migrator = createMigrator(sequelize);
  const indexes = async (table: string) => ((await sequelize.getQueryInterface().showIndex(table)) as { name: string }[]).map((i) => i.name);
  expect(await indexes('commits')).toEqual(expect.arrayContaining(['commits_author_id_repository_id', 'commits_organization_id_created_at_id_author_id']));
  expect(await indexes('commits')).not.toContain('commits_author_id');
  expect(await indexes('deployments')).toEqual(expect.arrayContaining(['deployments_organization_id_finished_at', 'deployments_repository_id_finished_at']));
  await migrator.down({ to: '0007-metrics' });
  expect(await indexes('commits')).toContain('commits_author_id');
  expect(await indexes('tasks')).not.toContain('tasks_team_id_completed_at');
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0007-metrics'));
  expect(await indexes('tasks')).toEqual(expect.arrayContaining(['tasks_team_id_completed_at', 'tasks_team_id_status']));
});

test('0008 derives the name parts of existing users, adds user_emails and access_changes, and goes down and up again cleanly', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0008-scim-profile' });
  const at = '2024-02-03 04:05:06.789';
  await sequelize.query(
    `INSERT INTO users (id, name, email, is_active, created_at) VALUES ('usr_p1', ' Grace  Brewster Hopper ', 'p1@x.test', 1, '${at}'), ('usr_p2', 'Plato', 'p2@x.test', 1, '${at}')`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0008-scim-profile'));
  const rows = await sequelize.query<{ id: string; given_name: string; family_name: string; formatted_name: string }>(
    "SELECT id, given_name, family_name, formatted_name FROM users WHERE id IN ('usr_p1', 'usr_p2') ORDER BY id",
    { type: QueryTypes.SELECT },
  );
  expect(rows).toEqual([
    { id: 'usr_p1', given_name: 'Grace', family_name: 'Brewster Hopper', formatted_name: 'Grace  Brewster Hopper' },
    { id: 'usr_p2', given_name: 'Plato', family_name: '', formatted_name: 'Plato' },
  ]);
  const tables = async () => (await sequelize.getQueryInterface().showAllTables()).map(String);
  expect(await tables()).toEqual(expect.arrayContaining(['user_emails', 'access_changes']));
  await migrator.down({ to: '0008-scim-profile' });
  expect(await tables()).not.toContain('user_emails');
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('users'))).not.toContain('given_name');
  await migrator.up();
});

test('0009 adds the telemetry tables, unique where a retried batch, point or event must write nothing, and goes down and up again cleanly', async () => {
  const migrator = createMigrator(sequelize);
  const tables = async () => (await sequelize.getQueryInterface().showAllTables()).map(String);
  // 0009's ai_active_months has been ai_active_years since 0059.
  const TELEMETRY = ['otlp_tokens', 'telemetry_batches', 'telemetry_series', 'telemetry_points', 'telemetry_events', 'telemetry_accounts', 'ai_usage_days', 'ai_usage_org_days', 'ai_active_years'];
  expect(await tables()).toEqual(expect.arrayContaining(TELEMETRY));
  const unique = async (table: string) =>
    ((await sequelize.getQueryInterface().showIndex(table)) as { name: string; unique: boolean }[]).filter((i) => i.unique).map((i) => i.name);
  expect(await unique('telemetry_batches')).toContain('telemetry_batches_organization_id_body_hash');
  expect(await unique('telemetry_events')).toContain('telemetry_events_organization_id_event_key');
  await migrator.down({ to: '0009-telemetry' });
  for (const table of TELEMETRY) expect(await tables()).not.toContain(table);
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0009-telemetry'));
});

test('0010 keys ai_active_months by tool before member, keeping every row, and goes down and up again with them', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0010-active-months-by-tool' });
  await sequelize.query(
    `INSERT INTO ai_active_months (organization_id, user_key, month, tool, days) VALUES
       ('org_x', 'usr_a', '2026-10', '', 5), ('org_x', 'usr_a', '2026-10', 'claude_code', 4), ('org_x', 'usr_b', '2026-09', '', 1)`,
  );
  const rows = () => sequelize.query('SELECT organization_id, tool, user_key, month, days FROM ai_active_months ORDER BY user_key, month, tool', { type: QueryTypes.SELECT });
  const before = await rows();
  // The key's columns in order, as each database reports them.
  const key = async () =>
    sequelize.getDialect() === 'mysql'
      ? (await sequelize.query<{ Column_name: string }>("SHOW INDEX FROM ai_active_months WHERE Key_name = 'PRIMARY'", { type: QueryTypes.SELECT })).map((r) => r.Column_name)
      : (await sequelize.query<{ name: string; pk: number }>('PRAGMA table_info(ai_active_months)', { type: QueryTypes.SELECT })).filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  expect(await key()).toEqual(['organization_id', 'user_key', 'month', 'tool']);
  // Up to 0010 only: 0059 puts the monthly rows into ai_active_years.
  expect((await migrator.up({ to: '0010-active-months-by-tool' })).map((m) => m.name)).toEqual(['0010-active-months-by-tool']);
  expect(await key()).toEqual(['organization_id', 'tool', 'user_key', 'month']);
  expect(await rows()).toEqual(before);
  await expect(sequelize.query("INSERT INTO ai_active_months (organization_id, user_key, month, tool, days) VALUES ('org_x', 'usr_a', '2026-10', '', 1)")).rejects.toThrow();
  await migrator.down({ to: '0010-active-months-by-tool' });
  expect(await key()).toEqual(['organization_id', 'user_key', 'month', 'tool']);
  expect(await rows()).toEqual(before);
  await migrator.up();
  await sequelize.query('DELETE FROM ai_active_years');
});

test('0011 marks the commits already stored whose messages carry an AI tool’s mark, and adds pull requests’ size', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0011-ai-markers' });
  const at = '2024-02-03 04:05:06.789';
  const commit = (id: string, message: string) => `('${id}', 'repo_x', 'gapp_x', 'org_x', '${id.padEnd(40, '0')}', '${message}', 'A', 1, 0, '${at}')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_name, additions, deletions, created_at) VALUES
       ${commit('cmt_m1', 'Fix\n\nCo-Authored-By: Claude <noreply@anthropic.com>')}, ${commit('cmt_m2', 'Pair\n\nCo-authored-by: Jane <jane@x.test>')},
       ${commit('cmt_m3', 'Plain')}`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0011-ai-markers'));
  const rows = await sequelize.query<{ id: string; ai_assisted: number | boolean }>("SELECT id, ai_assisted FROM commits WHERE id LIKE 'cmt_m%' ORDER BY id", { type: QueryTypes.SELECT });
  expect(rows.map((r) => [r.id, Boolean(r.ai_assisted)])).toEqual([
    ['cmt_m1', true],
    ['cmt_m2', false],
    ['cmt_m3', false],
  ]);
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('pull_requests'))).toEqual(expect.arrayContaining(['additions', 'deletions', 'ai_assisted']));
  await migrator.down({ to: '0011-ai-markers' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('commits'))).not.toContain('ai_assisted');
  await migrator.up();
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_m%'");
});

test("0015 marks the commits already stored whose author used an AI tool that UTC day, and goes down and up again", async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0015-author-ai-activity' });
  const commit = (id: string, author: string | null, at: string) => `('${id}', 'repo_x', 'gapp_x', 'org_x', '${id.padEnd(40, '0')}', 'm', ${author ? `'${author}'` : 'NULL'}, 'A', 1, 0, '${at}')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at) VALUES
       ${commit('cmt_d1', 'usr_a', '2025-03-05 23:59:59.999')}, ${commit('cmt_d2', 'usr_a', '2025-03-06 00:00:00.000')},
       ${commit('cmt_d3', 'usr_b', '2025-03-05 10:00:00.000')}, ${commit('cmt_d4', null, '2025-03-05 10:00:00.000')}`,
  );
  // usr_a used a tool on March 5 (the last millisecond of it counts, the next day does not); usr_b's row is another organization's.
  await sequelize.query("INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, sessions) VALUES ('org_x', '2025-03-05', 'usr_a', 'claude_code', '', 1), ('org_y', '2025-03-05', 'usr_b', 'claude_code', '', 1)");
  // Up to it alone: from 0053 on, a commit is AI-assisted on evidence, not its author's activity.
  expect((await migrator.up({ to: '0015-author-ai-activity' })).map((m) => m.name)).toEqual(['0015-author-ai-activity']);
  const rows = await sequelize.query<{ id: string; author_ai_active: number | boolean }>("SELECT id, author_ai_active FROM commits WHERE id LIKE 'cmt_d%' ORDER BY id", { type: QueryTypes.SELECT });
  expect(rows.map((r) => [r.id, Boolean(r.author_ai_active)])).toEqual([
    ['cmt_d1', true],
    ['cmt_d2', false],
    ['cmt_d3', false],
    ['cmt_d4', false],
  ]);
  await migrator.down({ to: '0015-author-ai-activity' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('commits'))).not.toContain('author_ai_active');
  await migrator.up();
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_d%'");
  await sequelize.query("DELETE FROM ai_usage_days WHERE organization_id IN ('org_x', 'org_y')");
});

test('0016 dates each pull request’s first review and first approval by someone other than its author from its stored activity', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0016-pull-request-review-times' });
  const at = (h: number) => `'2025-03-05 ${String(h).padStart(2, '0')}:00:00.000'`;
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, author_id, created_at) VALUES
       ('pr_r1', 'repo_x', 'gapp_x', 'org_x', 901, 'r1', 'open', 'usr_a', ${at(8)}), ('pr_r2', 'repo_x', 'gapp_x', 'org_x', 902, 'r2', 'open', 'usr_a', ${at(8)})`,
  );
  const activity = (id: string, pr: string, kind: string, actor: string, h: number) => `('${id}', '${pr}', 'repo_x', 'gapp_x', 'org_x', '${kind}', '${actor}', '${id}', ${at(h)})`;
  await sequelize.query(
    `INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, actor_id, external_id, created_at) VALUES
       ${activity('pra_1', 'pr_r1', 'approved', 'usr_a', 9)}, ${activity('pra_2', 'pr_r1', 'commit', 'usr_b', 10)},
       ${activity('pra_3', 'pr_r1', 'comment', 'usr_b', 11)}, ${activity('pra_4', 'pr_r1', 'approved', 'usr_b', 12)}`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0016-pull-request-review-times'));
  const text = (v: unknown) => (v instanceof Date ? v.toISOString().slice(11, 16) : v === null ? null : String(v).slice(11, 16));
  const rows = await sequelize.query<{ id: string; first_review_at: unknown; first_approval_at: unknown }>("SELECT id, first_review_at, first_approval_at FROM pull_requests WHERE id LIKE 'pr_r%' ORDER BY id", { type: QueryTypes.SELECT });
  // The author's approval and the pushed commit are no review; pr_r2 has none.
  expect(rows.map((r) => [r.id, text(r.first_review_at), text(r.first_approval_at)])).toEqual([
    ['pr_r1', '11:00', '12:00'],
    ['pr_r2', null, null],
  ]);
  await migrator.down({ to: '0016-pull-request-review-times' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('pull_requests'))).not.toContain('first_review_at');
  await migrator.up();
  await sequelize.query("DELETE FROM pull_request_activities WHERE id LIKE 'pra_%' AND organization_id = 'org_x'");
  await sequelize.query("DELETE FROM pull_requests WHERE id LIKE 'pr_r%'");
});

test('0017 marks the pull requests already stored that carry an AI-assisted commit (head, merge or pushed), and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0017-pull-request-ai-commits' });
  const sha = (n: number) => String(n).padStart(40, 'a');
  const commit = (id: string, n: number, marked: boolean, active: boolean) =>
    `('${id}', 'repo_x', 'gapp_x', 'org_x', '${sha(n)}', 'm', NULL, 'A', 1, 0, '2025-03-05 10:00:00.000', ${marked ? 1 : 0}, ${active ? 1 : 0})`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at, ai_assisted, author_ai_active) VALUES
       ${commit('cmt_p1', 1, true, false)}, ${commit('cmt_p2', 2, false, true)}, ${commit('cmt_p3', 3, false, false)}, ${commit('cmt_p4', 4, true, false)}`,
  );
  const pr = (id: string, n: number, head: number | null, merge: number | null) =>
    `('${id}', 'repo_x', 'gapp_x', 'org_x', ${n}, '${id}', 'open', '2025-03-05 08:00:00.000', ${head ? `'${sha(head)}'` : 'NULL'}, ${merge ? `'${sha(merge)}'` : 'NULL'})`;
  // pr_a1: AI head; pr_a2: AI merge commit; pr_a3: a plain head, an AI commit pushed; pr_a4: plain only; pr_a5: an AI commit of another repository's sha space.
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, created_at, head_sha, merge_commit_sha) VALUES
       ${pr('pr_a1', 911, 1, null)}, ${pr('pr_a2', 912, 3, 2)}, ${pr('pr_a3', 913, 3, null)}, ${pr('pr_a4', 914, 3, 3)}, ${pr('pr_a5', 915, null, null)}`,
  );
  await sequelize.query(
    `INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, actor_id, external_id, created_at) VALUES
       ('pra_a1', 'pr_a3', 'repo_x', 'gapp_x', 'org_x', 'commit', NULL, 'commit:${sha(4)}', '2025-03-05 09:00:00.000'),
       ('pra_a2', 'pr_a4', 'repo_x', 'gapp_x', 'org_x', 'comment', NULL, 'commit:${sha(4)}', '2025-03-05 09:00:00.000'),
       ('pra_a3', 'pr_a5', 'repo_x', 'gapp_x', 'org_x', 'commit', NULL, 'commit:${sha(9)}', '2025-03-05 09:00:00.000')`,
  );
  // Up to it alone: from 0053 on, a commit is AI-assisted on evidence, not its author's activity.
  expect((await migrator.up({ to: '0017-pull-request-ai-commits' })).map((m) => m.name)).toEqual(['0017-pull-request-ai-commits']);
  const rows = await sequelize.query<{ id: string; has_ai_commit: number | boolean }>("SELECT id, has_ai_commit FROM pull_requests WHERE id LIKE 'pr_a%' ORDER BY id", { type: QueryTypes.SELECT });
  // pr_a4's activity is a comment whose id happens to look like a commit's: no pushed commit.
  expect(rows.map((r) => [r.id, Boolean(r.has_ai_commit)])).toEqual([
    ['pr_a1', true],
    ['pr_a2', true],
    ['pr_a3', true],
    ['pr_a4', false],
    ['pr_a5', false],
  ]);
  await migrator.down({ to: '0017-pull-request-ai-commits' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('pull_requests'))).not.toContain('has_ai_commit');
  await migrator.up();
  await sequelize.query("DELETE FROM pull_request_activities WHERE id LIKE 'pra_a%'");
  await sequelize.query("DELETE FROM pull_requests WHERE id LIKE 'pr_a%'");
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_p%'");
});

test('0018 lists each author of the commits already stored once per repository, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0018-author-repositories' });
  const commit = (id: string, repo: string, author: string | null) => `('${id}', '${repo}', 'gapp_x', 'org_x', '${id.padEnd(40, '0')}', 'm', ${author ? `'${author}'` : 'NULL'}, 'A', 1, 0, '2025-03-05 10:00:00.000')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at) VALUES
       ${commit('cmt_w1', 'repo_w1', 'usr_a')}, ${commit('cmt_w2', 'repo_w1', 'usr_a')}, ${commit('cmt_w3', 'repo_w2', 'usr_a')}, ${commit('cmt_w4', 'repo_w2', 'usr_b')}, ${commit('cmt_w5', 'repo_w2', null)}`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0018-author-repositories'));
  const rows = await sequelize.query<{ user_id: string; repository_id: string }>("SELECT user_id, repository_id, organization_id FROM author_repositories WHERE repository_id LIKE 'repo_w%' ORDER BY repository_id, user_id", { type: QueryTypes.SELECT });
  expect(rows).toEqual([
    { user_id: 'usr_a', repository_id: 'repo_w1', organization_id: 'org_x' },
    { user_id: 'usr_a', repository_id: 'repo_w2', organization_id: 'org_x' },
    { user_id: 'usr_b', repository_id: 'repo_w2', organization_id: 'org_x' },
  ]);
  await migrator.down({ to: '0018-author-repositories' });
  expect(await sequelize.getQueryInterface().showAllTables()).not.toContain('author_repositories');
  await migrator.up();
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_w%'");
});

test('0020 counts the commits already stored per repository and organization and UTC day, the AI-assisted apart, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0020-commit-days' });
  const commit = (id: string, repo: string, at: string, marked: boolean, active: boolean) =>
    `('${id}', '${repo}', 'gapp_x', 'org_z', '${id.padEnd(40, '0')}', 'm', NULL, 'A', 1, 0, '${at}', ${marked ? 1 : 0}, ${active ? 1 : 0})`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at, ai_assisted, author_ai_active) VALUES
       ${commit('cmt_y1', 'repo_y1', '2025-03-05 23:59:59.999', true, true)}, ${commit('cmt_y2', 'repo_y1', '2025-03-06 00:00:00.000', false, false)},
       ${commit('cmt_y3', 'repo_y2', '2025-03-05 10:00:00.000', false, true)}, ${commit('cmt_y4', 'repo_y2', '2025-03-05 11:00:00.000', false, false)}`,
  );
  // Up to it alone: from 0053 on, a commit is AI-assisted on evidence, not its author's activity.
  expect((await migrator.up({ to: '0020-commit-days' })).map((m) => m.name)).toEqual(['0020-commit-days']);
  const rows = await sequelize.query<{ scope_id: string; day: unknown; commits: number; ai_commits: number }>(
    "SELECT scope_id, day, commits, ai_commits FROM commit_days WHERE scope_id IN ('repo_y1', 'repo_y2', 'org_z') ORDER BY scope_id, day",
    { type: QueryTypes.SELECT },
  );
  expect(rows.map((r) => [r.scope_id, String(r.day instanceof Date ? r.day.toISOString() : r.day).slice(0, 10), Number(r.commits), Number(r.ai_commits)])).toEqual([
    ['org_z', '2025-03-05', 3, 2],
    ['org_z', '2025-03-06', 1, 0],
    ['repo_y1', '2025-03-05', 1, 1],
    ['repo_y1', '2025-03-06', 1, 0],
    ['repo_y2', '2025-03-05', 2, 1],
  ]);
  await migrator.down({ to: '0020-commit-days' });
  expect(await sequelize.getQueryInterface().showAllTables()).not.toContain('commit_days');
  await migrator.up();
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_y%'");
});

test('0021 keeps the lead time of each change the successful production deployments already stored shipped, with its band and daily counts, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0021-lead-times' });
  const at = (minutes: number) => new Date(Date.parse('2025-03-05T10:00:00Z') + minutes * 60_000).toISOString().replace('T', ' ').slice(0, 23);
  const commit = (id: string, minutes: number) => `('${id}', 'repo_v', 'gapp_x', 'org_v', '${id.padEnd(40, '0')}', 'm', NULL, 'A', 1, 0, '${at(minutes)}')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at) VALUES
       ${commit('cmt_v1', 0)}, ${commit('cmt_v2', 30)}, ${commit('cmt_v3', 90)}`,
  );
  const deployment = (id: string, environment: string, status: string, minutes: number) => `('${id}', 'repo_v', 'gapp_x', 'org_v', '${id}', '${environment}', '${status}', '${'a'.repeat(40)}', '${at(minutes - 1)}', '${at(minutes)}')`;
  // dep_v1 ships v1 and v2; dep_v2 failed; dep_v3 ships v3; dep_v4 is staging.
  await sequelize.query(
    `INSERT INTO deployments (id, repository_id, git_app_id, organization_id, external_id, environment, status, sha, created_at, finished_at) VALUES
       ${deployment('dep_v1', 'Production', 'success', 60)}, ${deployment('dep_v2', 'production', 'failure', 100)},
       ${deployment('dep_v3', 'production', 'success', 120)}, ${deployment('dep_v4', 'staging', 'success', 130)}`,
  );
  // Its own shape, production's alone (0048 keeps every environment apart since).
  expect((await migrator.up({ to: '0021-lead-times' })).map((m) => m.name)).toEqual(['0021-lead-times']);
  const changes = await sequelize.query<{ deployment_id: string; commit_id: string; lead_ms: number; band: number }>(
    "SELECT deployment_id, commit_id, lead_ms, band FROM shipped_changes WHERE repository_id = 'repo_v' ORDER BY commit_id",
    { type: QueryTypes.SELECT },
  );
  expect(changes.map((c) => [c.deployment_id, c.commit_id, Number(c.lead_ms), Number(c.band)])).toEqual([
    ['dep_v1', 'cmt_v1', 3_600_000, durationBands.of(3_600_000)],
    ['dep_v1', 'cmt_v2', 1_800_000, durationBands.of(1_800_000)],
    ['dep_v3', 'cmt_v3', 1_800_000, durationBands.of(1_800_000)],
  ]);
  const days = await sequelize.query<{ scope_id: string; band: number; changes: number }>(
    "SELECT scope_id, band, changes FROM lead_time_days WHERE scope_id IN ('repo_v', 'org_v') ORDER BY scope_id, band",
    { type: QueryTypes.SELECT },
  );
  const counts = [[durationBands.of(1_800_000), 2], [durationBands.of(3_600_000), 1]];
  expect(days.map((d) => [d.scope_id, Number(d.band), Number(d.changes)])).toEqual([...counts.map(([b, n]) => ['org_v', b, n]), ...counts.map(([b, n]) => ['repo_v', b, n])]);
  await migrator.down({ to: '0021-lead-times' });
  expect(await sequelize.getQueryInterface().showAllTables()).not.toContain('shipped_changes');
  await migrator.up();
  await sequelize.query("DELETE FROM deployments WHERE id LIKE 'dep_v%'");
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_v%'");
});

test('0022, 0023 and 0028 keep what is measured on each merged pull request already stored (by day and by month), who alone reviewed it, and which activity is a peer review, and go down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0022-pull-request-samples' });
  const at = (hours: number) => new Date(Date.parse('2025-04-01T10:00:00Z') + hours * 3_600_000).toISOString().replace('T', ' ').slice(0, 23);
  // pr_s1: Ann's, merged at 10 h, reviewed by Bo at 2 h and approved by him at 4 h, a commit pushed at 1 h, 120 lines, AI-marked.
  // pr_s2: Bo's, merged at 3 h, only his own approval (no review), size unknown. pr_s3: open.
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, author_id, created_at, merged_at, additions, deletions, ai_assisted) VALUES
       ('pr_s1', 'repo_s', 'gapp_x', 'org_s', 1, 'a', 'merged', 'usr_a', '${at(0)}', '${at(10)}', 100, 20, 1),
       ('pr_s2', 'repo_s', 'gapp_x', 'org_s', 2, 'b', 'merged', 'usr_b', '${at(0)}', '${at(3)}', NULL, NULL, 0),
       ('pr_s3', 'repo_s', 'gapp_x', 'org_s', 3, 'c', 'open', 'usr_a', '${at(0)}', NULL, 5, 5, 0)`,
  );
  const activity = (id: string, pr: string, kind: string, actor: string, hours: number) => `('${id}', '${pr}', 'repo_s', 'gapp_x', 'org_s', '${kind}', '${actor}', '${id}', '${at(hours)}')`;
  await sequelize.query(
    `INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, actor_id, external_id, created_at) VALUES
       ${activity('pra_s1', 'pr_s1', 'comment', 'usr_b', 2)}, ${activity('pra_s2', 'pr_s1', 'approved', 'usr_b', 4)}, ${activity('pra_s3', 'pr_s1', 'commit', 'usr_a', 1)},
       ${activity('pra_s4', 'pr_s2', 'approved', 'usr_b', 1)}`,
  );
  await sequelize.query(`UPDATE pull_requests SET first_review_at = '${at(2)}', first_approval_at = '${at(4)}' WHERE id = 'pr_s1'`);
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0022-pull-request-samples'));
  const reviewers = await sequelize.query<{ id: string; iterated: unknown; sole_reviewer_id: string | null }>("SELECT id, iterated, sole_reviewer_id FROM pull_requests WHERE repository_id = 'repo_s' ORDER BY id", { type: QueryTypes.SELECT });
  expect(reviewers.map((r) => [r.id, Number(r.iterated), r.sole_reviewer_id])).toEqual([['pr_s1', 1, 'usr_b'], ['pr_s2', 0, null], ['pr_s3', 0, null]]);
  const samples = await sequelize.query<{ pull_request_id: string; measure: number; ai: unknown; band: number; value: unknown }>(
    "SELECT pull_request_id, measure, ai, band, value FROM pull_request_samples WHERE repository_id = 'repo_s' ORDER BY pull_request_id, measure",
    { type: QueryTypes.SELECT },
  );
  const hours = (h: number) => [durationBands.of(h * 3_600_000), h * 3_600_000];
  expect(samples.map((r) => [r.pull_request_id, Number(r.measure), Number(r.ai), Number(r.band), Number(r.value)])).toEqual([
    ['pr_s1', 0, 1, ...hours(10)],
    ['pr_s1', 1, 1, ...hours(2)],
    ['pr_s1', 2, 1, ...hours(4)],
    ['pr_s1', 3, 1, ...hours(8)],
    ['pr_s1', 4, 1, sizeBands.of(120), 120],
    ['pr_s1', 5, 1, sizeBands.of(0), 0],
    // 0055: the same from ready for review, none having been a draft.
    ['pr_s1', 6, 1, ...hours(10)],
    ['pr_s1', 7, 1, ...hours(2)],
    ['pr_s1', 8, 1, ...hours(4)],
    ['pr_s2', 0, 0, ...hours(3)],
    ['pr_s2', 6, 0, ...hours(3)],
  ]);
  const days = await sequelize.query<{ scope_id: string; measure: number; pull_requests: number }>(
    "SELECT scope_id, measure, SUM(pull_requests) AS pull_requests FROM pull_request_days WHERE scope_id IN ('repo_s', 'org_s') GROUP BY scope_id, measure ORDER BY scope_id, measure",
    { type: QueryTypes.SELECT },
  );
  const counts = [[0, 2], [1, 1], [2, 1], [3, 1], [4, 1], [5, 1], [6, 2], [7, 1], [8, 1]];
  expect(days.map((d) => [d.scope_id, Number(d.measure), Number(d.pull_requests)])).toEqual([...counts.map(([m, n]) => ['org_s', m, n]), ...counts.map(([m, n]) => ['repo_s', m, n])]);
  // 0028: the same per month (all in April 2025).
  const months = await sequelize.query<{ scope_id: string; month: string; measure: number; pull_requests: number }>(
    "SELECT scope_id, month, measure, SUM(pull_requests) AS pull_requests FROM pull_request_months WHERE scope_id IN ('repo_s', 'org_s') GROUP BY scope_id, month, measure ORDER BY scope_id, measure",
    { type: QueryTypes.SELECT },
  );
  expect(months.map((d) => [d.scope_id, d.month, Number(d.measure), Number(d.pull_requests)])).toEqual([...counts.map(([m, n]) => ['org_s', '2025-04', m, n]), ...counts.map(([m, n]) => ['repo_s', '2025-04', m, n])]);
  const peer = await sequelize.query<{ id: string; pull_request_author_id: string; peer_review: unknown }>(
    "SELECT id, pull_request_author_id, peer_review FROM pull_request_activities WHERE repository_id = 'repo_s' ORDER BY id",
    { type: QueryTypes.SELECT },
  );
  // Bo's approval of his own pull request is no peer review; a pushed commit none either.
  expect(peer.map((a) => [a.id, a.pull_request_author_id, Number(a.peer_review)])).toEqual([['pra_s1', 'usr_a', 1], ['pra_s2', 'usr_a', 1], ['pra_s3', 'usr_a', 0], ['pra_s4', 'usr_b', 0]]);
  await migrator.down({ to: '0022-pull-request-samples' });
  expect(await sequelize.getQueryInterface().showAllTables()).not.toContain('pull_request_samples');
  await migrator.up();
  await sequelize.query("DELETE FROM pull_request_activities WHERE id LIKE 'pra_s%'");
  await sequelize.query("DELETE FROM pull_requests WHERE id LIKE 'pr_s%'");
});

test('0024 keeps the days each member committed on with their previous day, and the interactions per organization, team, day and type already stored; 0025 indexes completed tasks; both go down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0024-activity-rollups' });
  const commit = (id: string, author: string | null, at: string) =>
    `('${id}', 'repo_u${id.slice(-1) === '9' ? 2 : 1}', 'gapp_x', 'org_u', '${id.padEnd(40, '0')}', 'm', ${author ? `'${author}'` : 'NULL'}, 'A', 1, 0, '${at}')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, created_at) VALUES
       ${commit('cmt_u1', 'usr_a', '2025-03-05 23:59:59.999')}, ${commit('cmt_u2', 'usr_a', '2025-03-05 08:00:00.000')},
       ${commit('cmt_u3', 'usr_a', '2025-03-09 00:00:00.000')}, ${commit('cmt_u9', 'usr_a', '2025-03-07 10:00:00.000')},
       ${commit('cmt_u4', 'usr_b', '2025-03-06 10:00:00.000')}, ${commit('cmt_u5', null, '2025-03-06 11:00:00.000')}`,
  );
  const interaction = (id: string, team: string | null, type: string, at: string) => `('${id}', 'org_u', '${type}', 'slack', 'usr_a', NULL, ${team ? `'${team}'` : 'NULL'}, '${at}')`;
  await sequelize.query(
    `INSERT INTO interactions (id, organization_id, type, source, user_id, counterpart_id, team_id, created_at) VALUES
       ${interaction('int_u1', 'team_u', 'meeting', '2025-03-05 09:00:00.000')}, ${interaction('int_u2', null, 'meeting', '2025-03-05 23:59:59.999')},
       ${interaction('int_u3', 'team_u', 'code_review', '2025-03-06 00:00:00.000')}`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0024-activity-rollups'));
  const day = (d: unknown) => (d === null ? null : (d instanceof Date ? d.toISOString() : String(d)).slice(0, 10));
  const authorDays = await sequelize.query<{ user_id: string; day: unknown; previous_day: unknown }>(
    "SELECT user_id, day, previous_day FROM author_days WHERE organization_id = 'org_u' ORDER BY user_id, day",
    { type: QueryTypes.SELECT },
  );
  // Commits of another repository count for the organization too; one without a known author for nobody.
  expect(authorDays.map((r) => [r.user_id, day(r.day), day(r.previous_day)])).toEqual([
    ['usr_a', '2025-03-05', null],
    ['usr_a', '2025-03-07', '2025-03-05'],
    ['usr_a', '2025-03-09', '2025-03-07'],
    ['usr_b', '2025-03-06', null],
  ]);
  const interactionDays = await sequelize.query<{ scope_id: string; day: unknown; type: string; interactions: number }>(
    "SELECT scope_id, day, type, interactions FROM interaction_days WHERE scope_id IN ('org_u', 'team_u') ORDER BY scope_id, day, type",
    { type: QueryTypes.SELECT },
  );
  expect(interactionDays.map((r) => [r.scope_id, day(r.day), r.type, Number(r.interactions)])).toEqual([
    ['org_u', '2025-03-05', 'meeting', 2],
    ['org_u', '2025-03-06', 'code_review', 1],
    ['team_u', '2025-03-05', 'meeting', 1],
    ['team_u', '2025-03-06', 'code_review', 1],
  ]);
  const taskIndexes = async () => ((await sequelize.getQueryInterface().showIndex('tasks')) as { name: string }[]).map((i) => i.name);
  expect(await taskIndexes()).toContain('tasks_team_id_completed');
  await migrator.down({ to: '0024-activity-rollups' });
  expect(await taskIndexes()).not.toContain('tasks_team_id_completed');
  const tables = (await sequelize.getQueryInterface().showAllTables()).map(String);
  expect(tables).not.toContain('author_days');
  expect(tables).not.toContain('interaction_days');
  await migrator.up();
  await sequelize.query("DELETE FROM interactions WHERE id LIKE 'int_u%'");
  await sequelize.query("DELETE FROM commits WHERE id LIKE 'cmt_u%'");
});

test('0026 names each task already stored with its team’s organization and indexes them by organization; 0027 indexes pull requests by state and time; both go down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0026-task-organizations' });
  await sequelize.query("INSERT INTO organizations (id, name, created_at) VALUES ('org_t', 'T', '2025-01-01 00:00:00.000')");
  await sequelize.query("INSERT INTO teams (id, organization_id, name, created_at) VALUES ('team_t', 'org_t', 'T', '2025-01-01 00:00:00.000')");
  const task = (id: string, team: string) => `('${id}', '${team}', 't', 'story', 'done', NULL, NULL, 3, '2025-02-01 00:00:00.000', '2025-02-02 00:00:00.000')`;
  await sequelize.query(
    `INSERT INTO tasks (id, team_id, title, type, status, assignee_id, parent_id, story_points, created_at, completed_at) VALUES ${task('task_t1', 'team_t')}, ${task('task_t2', 'team_x')}`,
  );
  expect((await migrator.up({ to: '0026-task-organizations' })).map((m) => m.name)).toEqual(['0026-task-organizations']);
  const organizations = await sequelize.query<{ id: string; organization_id: string }>("SELECT id, organization_id FROM tasks WHERE id IN ('task_t1', 'task_t2') ORDER BY id", { type: QueryTypes.SELECT });
  expect(organizations).toEqual([
    { id: 'task_t1', organization_id: 'org_t' },
    { id: 'task_t2', organization_id: 'org_x' },
  ]);
  const taskIndexes = async () => ((await sequelize.getQueryInterface().showIndex('tasks')) as { name: string }[]).map((i) => i.name);
  expect(await taskIndexes()).toContain('tasks_organization_id_completed');
  await migrator.down({ to: '0026-task-organizations' });
  expect(await taskIndexes()).not.toContain('tasks_organization_id_completed');
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('tasks'))).not.toContain('organization_id');
  const pullRequestIndexes = async () => ((await sequelize.getQueryInterface().showIndex('pull_requests')) as { name: string }[]).map((i) => i.name).sort();
  const before = await pullRequestIndexes();
  expect(before).toContain('pull_requests_organization_id_state');
  expect((await migrator.up({ to: '0027-pull-request-states' })).map((m) => m.name)).toEqual(['0026-task-organizations', '0027-pull-request-states']);
  // 0027: by state then time, per organization and per repository; the (organization, state) index is the first's prefix.
  const states = ['organization_id_state_created_at', 'organization_id_state_closed_at_merged_at', 'repository_id_state_created_at', 'repository_id_state_closed_at_merged_at'].map((n) => `pull_requests_${n}`);
  expect(await pullRequestIndexes()).toEqual(expect.arrayContaining(states));
  expect(await pullRequestIndexes()).not.toContain('pull_requests_organization_id_state');
  await migrator.down({ to: '0027-pull-request-states' });
  expect(await pullRequestIndexes()).toEqual(before);
  await migrator.up();
  await sequelize.query("DELETE FROM tasks WHERE id IN ('task_t1', 'task_t2')");
  await sequelize.query("DELETE FROM teams WHERE id = 'team_t'");
  await sequelize.query("DELETE FROM organizations WHERE id = 'org_t'");
});

test('0013 adds cost_rates (gone with their organization) and dates the suspensions already stored, and goes down and up again cleanly', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0013-cost-rates' });
  // usr_a: suspended, never updated (its created_at); usr_b: suspended at its last update, as is its team membership.
  const updated = '2025-05-06 07:08:09.123';
  await sequelize.query("UPDATE organization_memberships SET status = 'suspended', updated_at = NULL WHERE organization_id = 'org_x' AND user_id = 'usr_a'");
  await sequelize.query(`UPDATE organization_memberships SET status = 'suspended', updated_at = '${updated}' WHERE organization_id = 'org_x' AND user_id = 'usr_b'`);
  await sequelize.query("UPDATE team_memberships SET status = 'suspended' WHERE team_id = 'team_x' AND user_id = 'usr_b'");
  await sequelize.query("INSERT INTO organizations (id, name, created_at) VALUES ('org_c', 'C', '2024-02-03 04:05:06.789')");
  await sequelize.query("INSERT INTO organization_memberships (organization_id, user_id, role, created_at, user_name, user_email, user_created_at) VALUES ('org_c', 'usr_a', 'admin', '2024-02-03 04:05:06.789', 'Ann Lee', 'ann@x.test', '2024-02-03 04:05:06.789')");

  expect((await migrator.up()).map((m) => m.name)).toEqual(LATER);
  // MySQL answers a Date, SQLite the stored text: both as 'YYYY-MM-DD hh:mm:ss.sss'.
  const text = (v: unknown) => (v instanceof Date ? v.toISOString().replace('T', ' ').slice(0, 23) : v === null ? null : String(v).slice(0, 23));
  const suspensions = async (table: string, scope: string) =>
    (await sequelize.query<{ scope: string; user_id: string; suspended_at: unknown }>(`SELECT ${scope} AS scope, user_id, suspended_at FROM ${table} ORDER BY ${scope}, user_id`, { type: QueryTypes.SELECT })).map(
      (r) => [r.scope, r.user_id, text(r.suspended_at)],
    );
  expect(await suspensions('organization_memberships', 'organization_id')).toEqual([
    ['org_c', 'usr_a', null],
    ['org_x', 'usr_a', '2024-02-03 04:05:06.789'],
    ['org_x', 'usr_b', updated],
  ]);
  expect(await suspensions('team_memberships', 'team_id')).toEqual([['team_x', 'usr_b', updated]]);

  const at = '2024-02-03 04:05:06.789';
  const rate = (org: string, subject: string, subjectId: string) =>
    `INSERT INTO cost_rates (organization_id, subject, subject_id, amount, currency, created_at, updated_at) VALUES ('${org}', '${subject}', '${subjectId}', 1234.5678, 'EUR', '${at}', '${at}')`;
  await sequelize.query(rate('org_c', 'organization', ''));
  await sequelize.query(rate('org_c', 'user', 'usr_a'));
  await sequelize.query(rate('org_x', 'organization', ''));
  await expect(sequelize.query(rate('org_c', 'user', 'usr_a'))).rejects.toThrow();
  await expect(sequelize.query(rate('org_nope', 'organization', ''))).rejects.toThrow();
  const [{ amount }] = await sequelize.query<{ amount: number | string }>("SELECT amount FROM cost_rates WHERE organization_id = 'org_x'", { type: QueryTypes.SELECT });
  expect(Number(amount)).toBe(1234.5678);
  await sequelize.query("DELETE FROM organizations WHERE id = 'org_c'");
  const left = await sequelize.query<{ organization_id: string }>('SELECT organization_id FROM cost_rates', { type: QueryTypes.SELECT });
  expect(left.map((r) => r.organization_id)).toEqual(['org_x']);

  await migrator.down({ to: '0013-cost-rates' });
  expect((await sequelize.getQueryInterface().showAllTables()).map(String)).not.toContain('cost_rates');
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('team_memberships'))).not.toContain('suspended_at');
  await migrator.up();
  await sequelize.query("DELETE FROM organization_memberships WHERE organization_id = 'org_c'");
});

test('0031 judges the activity already stored again, by member where no provider id was kept, and everything built on it: first review and approval, sole reviewer, samples by day and month; it goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0031-review-identities' });
  const at = (hours: number) => new Date(Date.parse('2025-06-02T10:00:00Z') + hours * 3_600_000).toISOString().replace('T', ' ').slice(0, 23);
  // As the writer kept them before: pr_i1 by member Ann (iterated), pr_i2 by someone matched to no member. Their first
  // review times, reviewers and samples are left unset here (as after a refill that stopped halfway): 0031 computes them.
  await sequelize.query(
    `INSERT INTO pull_requests (id, repository_id, git_app_id, organization_id, number, title, state, author_id, created_at, merged_at, iterated) VALUES
       ('pr_i1', 'repo_i', 'gapp_x', 'org_i', 1, 'a', 'merged', 'usr_a', '${at(0)}', '${at(10)}', 1),
       ('pr_i2', 'repo_i', 'gapp_x', 'org_i', 2, 'b', 'merged', NULL, '${at(0)}', '${at(5)}', 0)`,
  );
  const activity = (id: string, pr: string, kind: string, actor: string | null, author: string | null, peer: number, hours: number) =>
    `('${id}', '${pr}', 'repo_i', 'gapp_x', 'org_i', '${kind}', ${actor ? `'${actor}'` : 'NULL'}, ${author ? `'${author}'` : 'NULL'}, ${peer}, '${id}', '${at(hours)}')`;
  await sequelize.query(
    `INSERT INTO pull_request_activities (id, pull_request_id, repository_id, git_app_id, organization_id, kind, actor_id, pull_request_author_id, peer_review, external_id, created_at) VALUES
       ${activity('pra_i1', 'pr_i1', 'comment', 'usr_a', 'usr_a', 0, 1)}, ${activity('pra_i2', 'pr_i1', 'comment', 'usr_b', 'usr_a', 1, 2)},
       ${activity('pra_i3', 'pr_i1', 'approved', 'usr_b', 'usr_a', 1, 4)}, ${activity('pra_i4', 'pr_i1', 'commit', 'usr_a', 'usr_a', 0, 3)},
       ${activity('pra_i5', 'pr_i2', 'comment', null, null, 1, 1)}, ${activity('pra_i6', 'pr_i2', 'approved', 'usr_b', null, 1, 3)}`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0031-review-identities'));
  const columns = async (table: string) => Object.keys(await sequelize.getQueryInterface().describeTable(table));
  expect(await columns('pull_requests')).toContain('author_provider_id');
  expect(await columns('pull_request_activities')).toContain('actor_provider_id');

  const peer = await sequelize.query<{ id: string; pull_request_author_id: string | null; peer_review: unknown }>(
    "SELECT id, pull_request_author_id, peer_review FROM pull_request_activities WHERE repository_id = 'repo_i' ORDER BY id",
    { type: QueryTypes.SELECT },
  );
  // Ann's own comment and a pushed commit are none; who made pra_i5 the old row cannot say: it stays a review.
  expect(peer.map((a) => [a.id, a.pull_request_author_id, Number(a.peer_review)])).toEqual([
    ['pra_i1', 'usr_a', 0],
    ['pra_i2', 'usr_a', 1],
    ['pra_i3', 'usr_a', 1],
    ['pra_i4', 'usr_a', 0],
    ['pra_i5', null, 1],
    ['pra_i6', null, 1],
  ]);
  const text = (v: unknown) => (v instanceof Date ? v.toISOString().replace('T', ' ').slice(0, 23) : v === null ? null : String(v).slice(0, 23));
  const pulls = await sequelize.query<{ id: string; first_review_at: unknown; first_approval_at: unknown; sole_reviewer_id: string | null }>(
    "SELECT id, first_review_at, first_approval_at, sole_reviewer_id FROM pull_requests WHERE repository_id = 'repo_i' ORDER BY id",
    { type: QueryTypes.SELECT },
  );
  expect(pulls.map((p) => [p.id, text(p.first_review_at), text(p.first_approval_at), p.sole_reviewer_id])).toEqual([
    ['pr_i1', at(2), at(4), 'usr_b'],
    ['pr_i2', at(1), at(3), 'usr_b'],
  ]);
  const hours = (h: number) => [durationBands.of(h * 3_600_000), h * 3_600_000];
  const samples = await sequelize.query<{ pull_request_id: string; measure: number; band: number; value: unknown }>(
    "SELECT pull_request_id, measure, band, value FROM pull_request_samples WHERE repository_id = 'repo_i' AND measure IN (1, 2, 3) ORDER BY pull_request_id, measure",
    { type: QueryTypes.SELECT },
  );
  expect(samples.map((s) => [s.pull_request_id, Number(s.measure), Number(s.band), Number(s.value)])).toEqual([
    ['pr_i1', 1, ...hours(2)],
    ['pr_i1', 2, ...hours(4)],
    ['pr_i1', 3, ...hours(8)],
    ['pr_i2', 1, ...hours(1)],
    ['pr_i2', 2, ...hours(3)],
    ['pr_i2', 3, ...hours(4)],
  ]);
  const counted = async (table: string) =>
    (await sequelize.query<{ measure: number; n: number }>(`SELECT measure, SUM(pull_requests) AS n FROM ${table} WHERE scope_id = 'org_i' GROUP BY measure ORDER BY measure`, { type: QueryTypes.SELECT })).map((r) => [Number(r.measure), Number(r.n)]);
  // Merged 2, picked up 2, approved 2, review → merge 2, iterated 1 (the commit after opening); no size known; the first three from ready for review too (0055).
  expect(await counted('pull_request_days')).toEqual([[0, 2], [1, 2], [2, 2], [3, 2], [5, 1], [6, 2], [7, 2], [8, 2]]);
  expect(await counted('pull_request_months')).toEqual(await counted('pull_request_days'));

  await migrator.down({ to: '0031-review-identities' });
  expect(await columns('pull_request_activities')).not.toContain('actor_provider_id');
  await migrator.up();
  await sequelize.query("DELETE FROM pull_request_activities WHERE id LIKE 'pra_i%'");
  await sequelize.query("DELETE FROM pull_requests WHERE id LIKE 'pr_i%'");
});

test('0032 lets a task have no team yet and keeps the tasks, indexes and delivery keys already stored; it goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.down({ to: '0032-tracker-apps' });
  const at = '2026-09-01 10:00:00.000';
  await sequelize.query(
    `INSERT INTO tasks (id, team_id, organization_id, title, type, status, assignee_id, parent_id, story_points, created_at, completed_at) VALUES
       ('task_m1', 'team_m', 'org_m', 'kept', 'story', 'done', NULL, NULL, 3, '${at}', '${at}')`,
  );
  await sequelize.query(`INSERT INTO ingest_deliveries (git_app_id, delivery_id, event, received_at) VALUES ('gapp_m', 'd1', 'push', '${at}'), ('gapp_m', 'd2', 'push', '${at}')`);
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0032-tracker-apps'));
  const [task] = await sequelize.query<{ team_id: string; status_changes: number }>("SELECT team_id, status_changes FROM tasks WHERE id = 'task_m1'", { type: QueryTypes.SELECT });
  expect([task.team_id, Number(task.status_changes)]).toEqual(['team_m', 0]);
  await sequelize.query(`INSERT INTO tasks (id, team_id, organization_id, title, type, status, created_at) VALUES ('task_m2', NULL, 'org_m', 'unplaced', 'task', 'backlog', '${at}')`);
  // The tasks' indexes survived the rebuild SQLite needs, and the deliveries keep their two-column key.
  const indexes = (await sequelize.getQueryInterface().showIndex('tasks')) as { name: string }[];
  expect(indexes.map((i) => i.name)).toEqual(expect.arrayContaining(['tasks_team_id_completed', 'tasks_organization_id_completed', 'tasks_organization_id_flow', 'tasks_app_id_external_id']));
  await expect(sequelize.query(`INSERT INTO ingest_deliveries (app_id, delivery_id, event, received_at) VALUES ('gapp_m', 'd1', 'push', '${at}')`)).rejects.toThrow();
  await sequelize.query(`INSERT INTO ingest_deliveries (app_id, delivery_id, event, received_at) VALUES ('app_m', 'd1', 'push', '${at}')`);

  await migrator.down({ to: '0032-tracker-apps' });
  const left = await sequelize.query<{ id: string }>("SELECT id FROM tasks WHERE organization_id = 'org_m' ORDER BY id", { type: QueryTypes.SELECT });
  expect(left.map((r) => r.id)).toEqual(['task_m1']);
  await expect(sequelize.query(`INSERT INTO tasks (id, team_id, organization_id, title, type, status, created_at) VALUES ('task_m3', NULL, 'org_m', 'x', 'task', 'backlog', '${at}')`)).rejects.toThrow();
  await migrator.up();
  await sequelize.query("DELETE FROM tasks WHERE organization_id = 'org_m'");
  await sequelize.query("DELETE FROM ingest_deliveries WHERE app_id IN ('gapp_m', 'app_m')");
});

test('0033 lets incidents and deployments come from apps without a repository yet, marks the rework already stored, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const columns = async (table: string) => Object.keys(await sequelize.getQueryInterface().describeTable(table));
  await migrator.down({ to: '0033-incident-apps' });
  const deployment = (id: string, finished: string) =>
    `('${id}', 'repo_w', 'gapp_w', 'org_w', '${id}', 'production', 'success', '${'a'.repeat(40)}', '2026-09-01 ${finished}:00.000', '2026-09-01 ${finished}:00.000')`;
  await sequelize.query(
    `INSERT INTO deployments (id, repository_id, git_app_id, organization_id, external_id, environment, status, sha, created_at, finished_at) VALUES
       ${[deployment('dep_w1', '09:00'), deployment('dep_w2', '11:00'), deployment('dep_w3', '13:00')].join(', ')}`,
  );
  await sequelize.query(
    `INSERT INTO incidents (id, repository_id, git_app_id, organization_id, external_id, title, created_at, resolved_at) VALUES
       ('inc_w1', 'repo_w', 'gapp_w', 'org_w', 'i1', 'Checkout down', '2026-09-01 10:00:00.000', '2026-09-01 12:00:00.000')`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0033-incident-apps'));
  // Only the deployment that finished while the incident was open is rework.
  const flags = await sequelize.query<{ id: string; rework: number }>("SELECT id, rework FROM deployments WHERE organization_id = 'org_w' ORDER BY id", { type: QueryTypes.SELECT });
  expect(flags.map((d) => [d.id, Number(d.rework)])).toEqual([['dep_w1', 0], ['dep_w2', 1], ['dep_w3', 0]]);
  const unplaced = (id: string) =>
    `INSERT INTO incidents (id, repository_id, git_app_id, organization_id, app_id, board_key, external_id, title, created_at) VALUES ('${id}', NULL, NULL, 'org_w', 'app_w', 'PSERVICE', 'Q1', 'Paged', '2026-09-01 10:00:00.000')`;
  await sequelize.query(unplaced('inc_w2'));
  // One incident per app and provider id.
  await expect(sequelize.query(unplaced('inc_w3'))).rejects.toThrow();

  await migrator.down({ to: '0033-incident-apps' });
  const left = await sequelize.query<{ id: string }>("SELECT id FROM incidents WHERE organization_id = 'org_w' ORDER BY id", { type: QueryTypes.SELECT });
  expect(left.map((r) => r.id)).toEqual(['inc_w1']);
  expect(await columns('incidents')).not.toContain('app_id');
  await expect(sequelize.query(`INSERT INTO incidents (id, repository_id, git_app_id, organization_id, external_id, title, created_at) VALUES ('inc_w4', NULL, 'gapp_w', 'org_w', 'i4', 'x', '2026-09-01 10:00:00.000')`)).rejects.toThrow();
  await migrator.up();
  expect(await columns('deployments')).toEqual(expect.arrayContaining(['app_id', 'board_key', 'rework']));
  for (const table of ['incidents', 'deployments']) await sequelize.query(`DELETE FROM ${table} WHERE organization_id = 'org_w'`);
});

test('0036 keys the AI usage rollups by source, Copilot’s and Cursor’s rows as the vendors’, counts their active vendor rows, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const rows = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
  await migrator.down({ to: '0036-ai-usage-sources' });
  await sequelize.query(
    `INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, sessions) VALUES
       ('org_s', '2026-09-01', 'usr_s', 'claude_code', '', 2), ('org_s', '2026-09-01', 'usr_s', 'copilot', '', 3)`,
  );
  await sequelize.query(
    `INSERT INTO ai_vendor_days (app_id, day, account, organization_id, tool, user_key, active, sessions) VALUES
       ('app_c', '2026-09-01', 'ada', 'org_s', 'copilot', 'usr_s', 1, 3), ('app_c', '2026-09-01', 'idle', 'org_s', 'copilot', '', 0, 0),
       ('app_a', '2026-09-01', 'ada@acme.test', 'org_s', 'claude_code', 'usr_s', 1, 5)`,
  );
  await migrator.up();
  expect(await rows("SELECT tool, source, sessions FROM ai_usage_days WHERE organization_id = 'org_s' ORDER BY tool")).toEqual([
    { tool: 'claude_code', source: 'otlp', sessions: 2 },
    { tool: 'copilot', source: 'vendor', sessions: 3 },
  ]);
  const counted = await rows<{ account: string; counted: number }>("SELECT account, counted FROM ai_vendor_days WHERE organization_id = 'org_s' ORDER BY account");
  // Claude Code's row waits for its next pull, which sees OTLP's.
  expect(counted.map((r) => [r.account, Number(r.counted)])).toEqual([['ada', 1], ['ada@acme.test', 0], ['idle', 0]]);
  // The vendor's row of a member's day OTLP reports too, under the same key but its own source.
  await sequelize.query("INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, source, sessions) VALUES ('org_s', '2026-09-01', 'usr_s', 'claude_code', '', 'vendor', 5)");

  await migrator.down({ to: '0036-ai-usage-sources' });
  expect(await rows("SELECT tool, sessions FROM ai_usage_days WHERE organization_id = 'org_s' ORDER BY tool")).toEqual([
    { tool: 'claude_code', sessions: 2 },
    { tool: 'copilot', sessions: 3 },
  ]);
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('ai_vendor_days'))).not.toContain('counted');
  await migrator.up();
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('ai_usage_org_days'))).toContain('source');
  for (const table of ['ai_usage_days', 'ai_vendor_days']) await sequelize.query(`DELETE FROM ${table} WHERE organization_id = 'org_s'`);
});

test('0037 writes the dashboard catalog to every database (the demo’s eight rows brought up to date, three added), and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const catalog = () => sequelize.query<{ key: string; description: string }>('SELECT `key`, description FROM dashboard_catalog ORDER BY `key`', { type: QueryTypes.SELECT });
  await migrator.down({ to: '0037-dashboard-catalog' });
  const before = await catalog();
  expect(before.map((r) => r.key)).toEqual(['collaboration', 'cost', 'dora', 'flow', 'investment', 'pull_requests', 'sprint', 'wellbeing']);
  expect(before.find((r) => r.key === 'wellbeing')?.description).toBe('Meeting load, focus time and after-hours activity, aggregated per team.');
  await migrator.up({ to: '0037-dashboard-catalog' });
  const after = await catalog();
  expect(after.map((r) => r.key)).toEqual(['activity', 'ai_impact', 'ai_usage', 'collaboration', 'cost', 'dora', 'flow', 'investment', 'pull_requests', 'sprint', 'wellbeing']);
  expect(after.find((r) => r.key === 'wellbeing')?.description).toBe('Commit activity and the interactions (reviews, messages, assignments, meetings) people carry, period by period.');
  await migrator.up();
});

test('0038 puts id after created_at in the commits’ author indexes, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const indexes = async () =>
    ((await sequelize.getQueryInterface().showIndex('commits')) as { name: string }[]).map((i) => i.name).filter((name) => name.includes('author_id') && name.includes('created_at')).sort();
  await migrator.down({ to: '0038-commit-author-indexes-in-order' });
  expect(await indexes()).toEqual(['commits_organization_id_created_at_author_id', 'commits_repository_id_created_at_author_id']);
  await migrator.up();
  expect(await indexes()).toEqual(['commits_organization_id_created_at_id_author_id', 'commits_repository_id_created_at_id_author_id']);
});

test('0039 adds when a repository was reported deleted (null for those in sight) and its index, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const qi = sequelize.getQueryInterface();
  const indexes = async () => ((await qi.showIndex('repositories')) as { name: string }[]).map((i) => i.name);
  await migrator.down({ to: '0039-repository-deletion-grace' });
  expect(Object.keys(await qi.describeTable('repositories'))).not.toContain('deleted_at');
  expect(await indexes()).not.toContain('repositories_deleted_at');
  const at = '2024-02-03 04:05:06.789';
  await sequelize.query(
    `INSERT INTO repositories (id, git_app_id, organization_id, name, full_name, default_branch, is_private, created_at) VALUES ('repo_m39', 'gapp_m39', 'org_m39', 'r', 'o/r', 'main', 0, '${at}')`,
  );
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0039-repository-deletion-grace'));
  expect(await indexes()).toContain('repositories_deleted_at');
  expect(await sequelize.query("SELECT id, deleted_at FROM repositories WHERE id = 'repo_m39'", { type: QueryTypes.SELECT })).toEqual([{ id: 'repo_m39', deleted_at: null }]);
  await sequelize.query("DELETE FROM repositories WHERE id = 'repo_m39'");
});

test('0060 puts the repository in the index of an organization’s lead times by band, before the value, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const bandIndexes = async () =>
    ((await sequelize.getQueryInterface().showIndex('shipped_changes')) as { name: string; fields: { attribute: string }[] }[])
      .filter((i) => i.name.startsWith('shipped_changes_organization'))
      .map((i) => [i.name, i.fields.map((f) => f.attribute)]);
  await migrator.up();
  expect(await bandIndexes()).toEqual([['shipped_changes_organization_band_finish_environment_repository', ['organization_id', 'band', 'finished_at', 'environment', 'repository_id', 'lead_ms']]]);
  await migrator.down({ to: '0060-lead-times-by-repository' });
  expect(await bandIndexes()).toEqual([['shipped_changes_organization_id_band_finished_at_environment', ['organization_id', 'band', 'finished_at', 'environment', 'lead_ms']]]);
  expect((await migrator.up()).map((m) => m.name)).toEqual(from('0060-lead-times-by-repository'));
  expect(await bandIndexes()).toHaveLength(1);
});
