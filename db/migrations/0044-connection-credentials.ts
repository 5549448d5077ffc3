import { DataTypes, QueryInterface } from 'sequelize';

/**
 * What the service reads a connection's provider API with (docs/ingest.md#credentials-for-reading-the-providers-api):
 * one row per app or git app, its credential sealed as webhook secrets are. `kind` says what `sealed_secret` holds:
 * a token (`token`), or a GitHub App's PEM private key (`github_app`), then with the App's id and the installation
 * the key acts for; both are GitHub's numbers, kept as their digits. The AI vendors' apps keep theirs in
 * ai_vendor_sources, as before. `organization_id` lets an organization's deletion find the rows.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('connection_credentials', {
    connection_id: { ...ref, primaryKey: true },
    organization_id: ref,
    kind: { type: DataTypes.STRING(20), allowNull: false },
    sealed_secret: { type: DataTypes.TEXT, allowNull: false },
    github_app_id: { type: DataTypes.STRING(20), allowNull: true },
    installation_id: { type: DataTypes.STRING(20), allowNull: true },
    created_at: { type: DataTypes.DATE(3), allowNull: false },
    updated_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('connection_credentials', ['organization_id'], { name: 'connection_credentials_organization_id' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('connection_credentials');
}
