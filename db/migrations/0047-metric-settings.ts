import { DataTypes, QueryInterface } from 'sequelize';

/**
 * What counts in an organization's figures (docs/metrics.md#what-counts): one row per organization that changed
 * them, absent for one that never did (the defaults). `version` rises with each change and every metric answer
 * names the one it was computed under (`meta.settings_version`); `document` is the settings as JSON, in the shape
 * src/services/metrics/settings/document.ts checks.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await qi.createTable('metric_settings', {
    organization_id: { type: mysql ? 'VARCHAR(40) BINARY' : DataTypes.STRING(40), allowNull: false, primaryKey: true },
    version: { type: DataTypes.INTEGER, allowNull: false },
    document: { type: DataTypes.TEXT, allowNull: false },
    updated_at: { type: DataTypes.DATE(3), allowNull: false },
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('metric_settings');
}
