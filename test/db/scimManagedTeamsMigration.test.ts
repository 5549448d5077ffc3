import { QueryTypes, Sequelize } from 'sequelize';
import { createMigrator } from '../../db/migrator';
import { emptyDatabase } from '../support/emptyDatabase';

/**
 * 0043 on a database that already holds teams, on the backend this run uses: the teams an identity provider made
 * before it are marked as its own (docs/settings.md#teams), the others stay the admins'.
 */

let sequelize: Sequelize;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ sequelize, drop } = await emptyDatabase('mig43'));
});
afterAll(async () => drop());

test('0043 marks the teams with an externalId, or of an organization that had a SCIM token, as the identity provider’s; down and up again', async () => {
  const migrator = createMigrator(sequelize);
  await migrator.up({ to: '0039-repository-deletion-grace' });
  const at = '2026-01-02 03:04:05.678';
  await sequelize.query(`INSERT INTO organizations (id, name, created_at) VALUES ('org_scim', 'Provisioned', '${at}'), ('org_hand', 'By hand', '${at}')`);
  await sequelize.query(
    `INSERT INTO teams (id, organization_id, name, external_id, created_at) VALUES
       ('team_okta', 'org_scim', 'Pushed without externalId', NULL, '${at}'),
       ('team_entra', 'org_hand', 'Entra group', 'ext-1', '${at}'),
       ('team_seed', 'org_hand', 'Seeded', NULL, '${at}')`,
  );
  // A revoked token still says where the teams came from.
  await sequelize.query(
    `INSERT INTO scim_tokens (id, organization_id, name, token_hash, preview, is_active, created_at) VALUES ('stok_x', 'org_scim', 'Okta', '${'a'.repeat(64)}', 'scim_…', 0, '${at}')`,
  );
  await migrator.up({ to: '0043-scim-managed-teams' });
  const marked = async () =>
    (await sequelize.query<{ id: string; scim_managed: number | boolean }>('SELECT id, scim_managed FROM teams ORDER BY id', { type: QueryTypes.SELECT })).map((r) => [r.id, Boolean(r.scim_managed)]);
  expect(await marked()).toEqual([
    ['team_entra', true],
    ['team_okta', true],
    ['team_seed', false],
  ]);
  await sequelize.query(`INSERT INTO teams (id, organization_id, name, created_at) VALUES ('team_new', 'org_hand', 'New', '${at}')`);
  expect((await marked()).find(([id]) => id === 'team_new')).toEqual(['team_new', false]);

  await migrator.down({ to: '0043-scim-managed-teams' });
  expect(Object.keys(await sequelize.getQueryInterface().describeTable('teams'))).not.toContain('scim_managed');
  await migrator.up({ to: '0043-scim-managed-teams' });
  expect(await marked()).toEqual([
    ['team_entra', true],
    ['team_new', false],
    ['team_okta', true],
    ['team_seed', false],
  ]);
});
