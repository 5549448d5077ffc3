import { DataTypes, QueryInterface } from 'sequelize';

/**
 * `team_repositories`: the repositories a team owns, as its organization's admins set them (docs/metrics.md#what-a-team-covers).
 * A team with rows covers exactly those in its git figures; a team without covers, as before, the repositories its
 * members authored commits in. `organization_id` lets the organization's deletion find the rows
 * (src/services/organizations/ownedRows.ts); the team's deletion and the repository's erasure remove theirs, the
 * latter by the index on `repository_id`.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const ref = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('team_repositories', {
    team_id: { ...ref, primaryKey: true },
    repository_id: { ...ref, primaryKey: true },
    organization_id: ref,
    created_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('team_repositories', ['repository_id'], { name: 'team_repositories_repository_id' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('team_repositories');
}
