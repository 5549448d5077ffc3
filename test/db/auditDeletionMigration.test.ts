import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0042 on a database that already holds an audit log, on the backend this run uses: an entry may then belong to no
 * organization (an organization's deletion, docs/organizations.md#deleting-one), and the log keeps its entries and indexes.
 */

let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig42'));
});
afterAll(async () => drop());

test('0042 lets an audit entry belong to no organization, keeps every index of the log, and goes down and up again', async () => {
  const migrator = createMigrator(sequelize);
  const qi = sequelize.getQueryInterface();
  const indexes = async () => ((await qi.showIndex('audit_log')) as { name: string }[]).map((i) => i.name).filter((n) => n !== 'PRIMARY').sort();
  await migrator.up({ to: '0041-unmatched-accounts' });
  const before = await indexes();
  expect(before).toEqual(expect.arrayContaining(['audit_log_created_at', 'audit_log_organization_action', 'audit_log_organization_actor', 'audit_log_organization_created']));
  const at = '2026-11-01 10:00:00.000';
  await sequelize.query(
    `INSERT INTO audit_log (id, organization_id, actor_type, actor_user_id, action, target_type, target_id, details, created_at) VALUES ('aud_m42', 'org_m42', 'operator', NULL, 'app.created', 'app', 'app_m42', '{}', '${at}')`,
  );
  const deletion = `INSERT INTO audit_log (id, organization_id, actor_type, actor_user_id, action, target_type, target_id, details, created_at) VALUES ('aud_m42d', NULL, 'operator', NULL, 'organization.deleted', 'organization', 'org_gone', '{}', '${at}')`;
  await expect(sequelize.query(deletion)).rejects.toThrow();

  await migrator.up({ to: '0042-organization-deletion-audit' });
  expect(await indexes()).toEqual(before);
  await sequelize.query(deletion);
  const rows = async () => sequelize.query('SELECT id, organization_id FROM audit_log ORDER BY id', { type: QueryTypes.SELECT });
  expect(await rows()).toEqual([{ id: 'aud_m42', organization_id: 'org_m42' }, { id: 'aud_m42d', organization_id: null }]);

  // Down drops the entries of no organization (the column cannot hold them), and keeps the rest and the indexes.
  await migrator.down({ to: '0042-organization-deletion-audit' });
  expect(await rows()).toEqual([{ id: 'aud_m42', organization_id: 'org_m42' }]);
  expect(await indexes()).toEqual(before);
  await migrator.up();
  expect(await indexes()).toEqual(before);
});
