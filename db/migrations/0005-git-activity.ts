import { DataTypes, QueryInterface } from 'sequelize';
// SQLite drops a column in place there (Sequelize's table copy breaks on composite keys).
import { dropColumn } from './0004-write-path';

/**
 * What git activity ingest needs (docs/ingest.md):
 * - A git app's webhook secret, sealed with SECRETS_KEY (src/secrets/secretBox.ts), and the secret it replaced,
 *   accepted until `previous_secret_expires_at` so a rotation does not drop deliveries signed meanwhile.
 * - A repository's id at its provider, so a renamed repository stays one row; found by full name otherwise.
 * - Idempotence: commits unique per (repository, sha), pull requests per (repository, number), deployments and
 *   incidents per (repository, provider id), deliveries per (git app, delivery id).
 * - `stats_known`: push payloads carry no line counts; a commit first seen there has 0/0 until the importer
 *   fills them from the clone.
 * - `provider_updated_at`: the provider's time of the state a row shows, so a delivery older than it (GitHub
 *   and GitLab do not promise order) does not undo a newer one.
 * - Deployments and incidents, scoped like commits: by repository, git app and organization.
 */
const ID_TYPE = DataTypes.STRING(40);
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const idType = mysql ? MYSQL_ID_TYPE : ID_TYPE;
  // Providers' ids and delivery ids are compared exactly.
  const externalType = mysql ? 'VARCHAR(100) BINARY' : DataTypes.STRING(100);
  const id = { type: idType, allowNull: false, primaryKey: true };
  const ref = { type: idType, allowNull: false };
  const ts = { type: DataTypes.DATE(3), allowNull: false };
  const optionalTs = { type: DataTypes.DATE(3), allowNull: true };

  await qi.addColumn('git_apps', 'webhook_secret', { type: DataTypes.TEXT, allowNull: true });
  await qi.addColumn('git_apps', 'previous_webhook_secret', { type: DataTypes.TEXT, allowNull: true });
  await qi.addColumn('git_apps', 'previous_secret_expires_at', optionalTs);

  await qi.addColumn('repositories', 'provider_id', { type: externalType, allowNull: true });
  await qi.addIndex('repositories', ['git_app_id', 'provider_id'], { name: 'repositories_git_app_id_provider_id_unique', unique: true });
  await qi.addIndex('repositories', ['git_app_id', 'full_name'], { name: 'repositories_git_app_id_full_name' });

  await qi.addColumn('commits', 'stats_known', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true });
  await qi.addIndex('commits', ['repository_id', 'sha'], { name: 'commits_repository_id_sha_unique', unique: true });

  await qi.addColumn('pull_requests', 'provider_updated_at', optionalTs);
  await qi.addIndex('pull_requests', ['repository_id', 'number'], { name: 'pull_requests_repository_id_number_unique', unique: true });

  // One after another: DDL run at once would only queue on MySQL's metadata locks, and a failure among them would
  // leave the others still running when the migration is run again.
  const indexScoped = async (table: string) => {
    await qi.addIndex(table, ['repository_id', 'external_id'], { name: `${table}_repository_id_external_id_unique`, unique: true });
    await qi.addIndex(table, ['repository_id', 'created_at', 'id'], { name: `${table}_repository_id_created_at_id` });
    await qi.addIndex(table, ['git_app_id', 'created_at', 'id'], { name: `${table}_git_app_id_created_at_id` });
    await qi.addIndex(table, ['organization_id', 'created_at', 'id'], { name: `${table}_organization_id_created_at_id` });
  };
  const placement = { id, repository_id: ref, git_app_id: ref, organization_id: ref, external_id: { type: externalType, allowNull: false } };

  await qi.createTable('deployments', {
    ...placement,
    environment: { type: DataTypes.STRING(200), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    sha: { type: DataTypes.STRING(40), allowNull: false },
    created_at: ts,
    finished_at: ts,
  });
  await indexScoped('deployments');

  await qi.createTable('incidents', {
    ...placement,
    title: { type: DataTypes.STRING(300), allowNull: false },
    cause_sha: { type: DataTypes.STRING(40), allowNull: true },
    created_at: ts,
    resolved_at: optionalTs,
    provider_updated_at: optionalTs,
  });
  await indexScoped('incidents');

  await qi.createTable('ingest_deliveries', {
    git_app_id: { ...ref, primaryKey: true },
    delivery_id: { type: externalType, allowNull: false, primaryKey: true },
    event: { type: DataTypes.STRING(64), allowNull: false },
    received_at: ts,
  });
  await qi.addIndex('ingest_deliveries', ['received_at'], { name: 'ingest_deliveries_received_at' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('ingest_deliveries');
  await qi.dropTable('incidents');
  await qi.dropTable('deployments');
  await qi.removeIndex('pull_requests', 'pull_requests_repository_id_number_unique');
  await dropColumn(qi, 'pull_requests', 'provider_updated_at');
  await qi.removeIndex('commits', 'commits_repository_id_sha_unique');
  await dropColumn(qi, 'commits', 'stats_known');
  await qi.removeIndex('repositories', 'repositories_git_app_id_full_name');
  await qi.removeIndex('repositories', 'repositories_git_app_id_provider_id_unique');
  await dropColumn(qi, 'repositories', 'provider_id');
  await dropColumn(qi, 'git_apps', 'previous_secret_expires_at');
  await dropColumn(qi, 'git_apps', 'previous_webhook_secret');
  await dropColumn(qi, 'git_apps', 'webhook_secret');
}
