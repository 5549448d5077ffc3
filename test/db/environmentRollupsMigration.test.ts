import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator } from '../../db/migrator';
import { rerunnable } from '../../db/rerunnable';
import * as environmentRollups from '../../db/migrations/0048-environment-rollups';
import { durationBands } from '../../db/rollups/bands';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0048 on a database that already holds deployments to several environments, on the backend this run uses: the
 * lead times and flags are kept for every environment apart, each deployment's changes counted from the previous
 * success of its own environment (compared lowercased); down keeps production's alone again. Worked by hand, minutes
 * after 10:00 on March 5, 2025 (commit e4 AI-assisted; incident i1 open 155–165):
 *
 *   e1 0, e2 30, e3 90, e4 150
 *   dep_e1 Production     success  60  ships e1 (60), e2 (30)
 *   dep_e2 production-eu  success 100  ships e1 (100), e2 (70), e3 (10): its environment's first success
 *   dep_e3 production     success 120  ships e3 (30): production's previous success is dep_e1, not dep_e2
 *   dep_e4 PRODUCTION-EU  failure 160  would have shipped e4 (AI-assisted); rework: i1 open
 *   dep_e5 staging        success 170  ships e1 (170), e2 (140), e3 (80), e4 (20): AI-assisted
 */

let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig48'));
});
afterAll(async () => drop());

const MINUTE = 60_000;
const at = (minutes: number) => new Date(Date.parse('2025-03-05T10:00:00Z') + minutes * MINUTE).toISOString().replace('T', ' ').slice(0, 23);
const rows = <T extends object>(sql: string) => sequelize.query<T>(sql, { type: QueryTypes.SELECT });

const shipped = async () =>
  (await rows<{ deployment_id: string; commit_id: string; environment?: string; lead_ms: number; band: number }>('SELECT * FROM shipped_changes ORDER BY deployment_id, commit_id')).map((c) => [
    c.deployment_id,
    c.commit_id,
    ...(c.environment === undefined ? [] : [c.environment]),
    Number(c.lead_ms) / MINUTE,
    Number(c.band),
  ]);
const days = async (keyed = true) =>
  (await rows<{ scope_id: string; day: unknown; environment?: string; band: number; changes: number }>(`SELECT * FROM lead_time_days ORDER BY scope_id, ${keyed ? 'environment, ' : ''}band`)).map((d) => [
    d.scope_id,
    ...(d.environment === undefined ? [] : [d.environment]),
    Number(d.band),
    Number(d.changes),
  ]);
const flags = async () =>
  (await rows<{ id: string; shipped_ai: number; blamed: number; rework: number }>('SELECT id, shipped_ai, blamed, rework FROM deployments ORDER BY id')).map((d) => [d.id, Number(d.shipped_ai), Number(d.blamed), Number(d.rework)]);

const band = (minutes: number) => durationBands.of(minutes * MINUTE);
const change = (deployment: string, commit: string, environment: string, minutes: number): (string | number)[] => [deployment, commit, environment, minutes, band(minutes)];
const EACH = [
  change('dep_e1', 'cmt_e1', 'production', 60),
  change('dep_e1', 'cmt_e2', 'production', 30),
  change('dep_e2', 'cmt_e1', 'production-eu', 100),
  change('dep_e2', 'cmt_e2', 'production-eu', 70),
  change('dep_e2', 'cmt_e3', 'production-eu', 10),
  change('dep_e3', 'cmt_e3', 'production', 30),
  change('dep_e5', 'cmt_e1', 'staging', 170),
  change('dep_e5', 'cmt_e2', 'staging', 140),
  change('dep_e5', 'cmt_e3', 'staging', 80),
  change('dep_e5', 'cmt_e4', 'staging', 20),
];
/** The daily counts of those changes (all on March 5), per scope, environment (`keyed`) and band, in key order. */
const daysOf = (changes: (string | number)[][], keyed: boolean) => {
  const counts = new Map<string, { scope: string; environment: string; band: number; changes: number }>();
  for (const scope of ['org_e', 'repo_e']) {
    for (const [, , environment, , b] of changes) {
      const row = { scope, environment: keyed ? String(environment) : '', band: Number(b), changes: 0 };
      const kept = counts.get(`${row.scope} ${row.environment} ${row.band}`) ?? row;
      kept.changes += 1;
      counts.set(`${row.scope} ${row.environment} ${row.band}`, kept);
    }
  }
  return [...counts.values()]
    .sort((a, b) => a.scope.localeCompare(b.scope) || a.environment.localeCompare(b.environment) || a.band - b.band)
    .map((r) => [r.scope, ...(keyed ? [r.environment] : []), r.band, r.changes]);
};
const EACH_FLAGS = [
  ['dep_e1', 0, 0, 0],
  ['dep_e2', 0, 0, 0],
  ['dep_e3', 0, 0, 0],
  ['dep_e4', 1, 0, 1],
  ['dep_e5', 1, 0, 0],
];

test('0048 keeps the lead times and flags of the deployments already stored for every environment apart, each from its own previous success; run again it changes nothing, half done it finishes; down keeps production alone again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: '0046-gitlab-approval-ids' });
  const commit = (id: string, minutes: number, ai: number) => `('${id}', 'repo_e', 'gapp_e', 'org_e', '${id.padEnd(40, '0')}', 'm', NULL, 'A', 1, 0, ${ai}, '${at(minutes)}')`;
  await sequelize.query(
    `INSERT INTO commits (id, repository_id, git_app_id, organization_id, sha, message, author_id, author_name, additions, deletions, ai_assisted, created_at) VALUES
       ${commit('cmt_e1', 0, 0)}, ${commit('cmt_e2', 30, 0)}, ${commit('cmt_e3', 90, 0)}, ${commit('cmt_e4', 150, 1)}`,
  );
  const deployment = (id: string, environment: string, status: string, minutes: number) =>
    `('${id}', 'repo_e', 'gapp_e', 'org_e', '${id}', '${environment}', '${status}', '${'a'.repeat(40)}', '${at(minutes - 1)}', '${at(minutes)}')`;
  await sequelize.query(
    `INSERT INTO deployments (id, repository_id, git_app_id, organization_id, external_id, environment, status, sha, created_at, finished_at) VALUES
       ${deployment('dep_e1', 'Production', 'success', 60)}, ${deployment('dep_e2', 'production-eu', 'success', 100)}, ${deployment('dep_e3', 'production', 'success', 120)},
       ${deployment('dep_e4', 'PRODUCTION-EU', 'failure', 160)}, ${deployment('dep_e5', 'staging', 'success', 170)}`,
  );
  await sequelize.query(
    `INSERT INTO incidents (id, repository_id, git_app_id, organization_id, external_id, title, created_at, resolved_at) VALUES ('inc_e1', 'repo_e', 'gapp_e', 'org_e', 'i1', 'Down', '${at(155)}', '${at(165)}')`,
  );
  // As the writers kept them before: production's alone.
  await sequelize.query("UPDATE deployments SET shipped_ai = 0, rework = 0");
  const PRODUCTION: (string | number)[][] = [
    ['dep_e1', 'cmt_e1', 60, band(60)],
    ['dep_e1', 'cmt_e2', 30, band(30)],
    ['dep_e3', 'cmt_e3', 30, band(30)],
  ];
  await sequelize.query('DELETE FROM shipped_changes');
  await sequelize.query('DELETE FROM lead_time_days');
  await sequelize.query(
    `INSERT INTO shipped_changes (deployment_id, commit_id, repository_id, organization_id, finished_at, band, lead_ms) VALUES
       ${PRODUCTION.map(([d, c, minutes, b]) => `('${d}', '${c}', 'repo_e', 'org_e', '${at(d === 'dep_e1' ? 60 : 120)}', ${b}, ${Number(minutes) * MINUTE})`).join(', ')}`,
  );

  await migrator.up({ to: '0048-environment-rollups' });
  expect(await shipped()).toEqual(EACH);
  expect(await days()).toEqual(daysOf(EACH, true));
  expect(await flags()).toEqual(EACH_FLAGS);

  // Run again: nothing to do. Half done (its tables filled in part, its last index not built): it finishes.
  const qi = rerunnable(sequelize.getQueryInterface());
  await environmentRollups.up({ context: qi });
  expect(await shipped()).toEqual(EACH);
  await sequelize.getQueryInterface().removeIndex('shipped_changes', 'shipped_changes_organization_id_band_finished_at_environment');
  await sequelize.query("DELETE FROM shipped_changes WHERE environment = 'staging'");
  await sequelize.query("DELETE FROM lead_time_days WHERE environment = 'production'");
  await environmentRollups.up({ context: qi });
  expect(await shipped()).toEqual(EACH);
  expect(await days()).toEqual(daysOf(EACH, true));
  expect(await flags()).toEqual(EACH_FLAGS);

  await migrator.down({ to: '0048-environment-rollups' });
  expect(await shipped()).toEqual(PRODUCTION);
  expect(await days(false)).toEqual(daysOf(PRODUCTION.map((c) => [c[0], c[1], 'production', c[2], c[3]]), false));
  expect(await flags()).toEqual(EACH_FLAGS.map(([id, , blamed]) => [id, 0, blamed, 0]));
  await migrator.up();
  expect(await shipped()).toEqual(EACH);
  expect(await flags()).toEqual(EACH_FLAGS);
});
