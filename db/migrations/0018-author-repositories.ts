import { DataTypes, QueryInterface } from 'sequelize';
import { fillAuthorRepositories } from '../rollups/commits';

/**
 * `author_repositories`: each member who authored commits in a repository, once (docs/metrics.md: a team's repositories
 * are those its members authored commits in), kept by the commit writer and gone with the repository. Reading a
 * team's scope from the commits' author index cost seconds cold on the large data, for every team figure. Filled
 * here from the commits already stored.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const ref = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('author_repositories', {
    user_id: { ...ref, primaryKey: true },
    repository_id: { ...ref, primaryKey: true },
    organization_id: ref,
  });
  await qi.addIndex('author_repositories', ['repository_id'], { name: 'author_repositories_repository_id' });
  await fillAuthorRepositories(qi);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('author_repositories');
}
