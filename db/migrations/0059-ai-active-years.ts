import { DataTypes, QueryInterface } from 'sequelize';
import { MONTH_COLUMNS, fillAiActiveYears } from '../rollups/aiActiveYears';

/**
 * `ai_active_years` (db/rollups/aiActiveYears.ts): `ai_active_months`'s day bits, a row per member, tool and year
 * with a column a month. The organization's `ai-usage` and `financial` figures count who used a tool in the window,
 * and on how many days, from one or two rows a member instead of twelve or thirteen. Keyed like `ai_active_months`
 * (organization, tool, member, then year), so each tool's members are one range of the key, in member order.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const id = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false, primaryKey: true };
  const months = Object.fromEntries(MONTH_COLUMNS.map((c) => [c, { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 }]));
  // A composite key's columns are in the order they are defined: organization, tool, member, year.
  await qi.createTable('ai_active_years', {
    organization_id: id,
    tool: { type: DataTypes.STRING(40), allowNull: false, primaryKey: true },
    user_key: id,
    year: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
    ...months,
  });
  await fillAiActiveYears(qi);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('ai_active_years');
}
