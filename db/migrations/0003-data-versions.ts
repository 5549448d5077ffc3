import { DataTypes, QueryInterface } from 'sequelize';

/**
 * One version per table, raised by every writer in the transaction of its change: cached list totals are kept
 * per version, so a total never outlives the data it counted (docs/architecture.md#writers).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('data_versions', {
    name: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
    version: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('data_versions');
}
