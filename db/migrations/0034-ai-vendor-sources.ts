import { DataTypes, QueryInterface } from 'sequelize';

/**
 * An AI vendor's app (GitHub Copilot, Cursor, Claude Code: docs/ai-vendors.md) is read by the service with a
 * credential the vendor issued, not sent to: the credential is kept sealed, with what the vendor's API needs besides
 * (Copilot's GitHub organization or enterprise, a base URL for GitHub Enterprise Server or a test's fake), and what
 * the last pull did: when, its result, whether the app is failing (an expired credential), and the lease that lets
 * one worker pull an app at a time across instances.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const id = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const optionalTs = { type: DataTypes.DATE(3), allowNull: true };
  await qi.createTable('ai_vendor_sources', {
    app_id: { ...id, primaryKey: true },
    organization_id: id,
    credential: { type: DataTypes.TEXT, allowNull: false },
    account_kind: { type: DataTypes.STRING(20), allowNull: true },
    account: { type: DataTypes.STRING(200), allowNull: true },
    base_url: { type: DataTypes.STRING(500), allowNull: true },
    pulled_at: optionalTs,
    // The last day a pull stored a report of: the daily pull starts a few days before it (late reports, corrections).
    pulled_through: { type: DataTypes.DATEONLY, allowNull: true },
    pull_result: { type: DataTypes.STRING(500), allowNull: true },
    failing: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    lease_owner: { type: DataTypes.STRING(40), allowNull: true },
    lease_until: optionalTs,
    updated_at: { type: DataTypes.DATE(3), allowNull: false },
  });
  await qi.addIndex('ai_vendor_sources', ['organization_id'], { name: 'ai_vendor_sources_organization_id' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('ai_vendor_sources');
}
