import { DataTypes, QueryInterface } from 'sequelize';
import { aiActiveMonthsOfYearsSql, fillAiActiveYears, MONTH_COLUMNS } from '../rollups/aiActiveYears';
import { emptied } from '../rollups/emptied';

/**
 * `ai_active_years` (db/rollups/aiActiveYears.ts) in place of `ai_active_months`: the same day bits, a row per member,
 * tool and year with a column a month. The organization's `ai-usage` and `financial` figures count who used a tool
 * in the window, and on how many days, from one or two rows a member instead of twelve or thirteen. Keyed as
 * `ai_active_months` was (organization, tool, member, then year), so each tool's members are one range of the key, in
 * member order. Down makes the monthly rows again from the years.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

const idOf = (qi: QueryInterface) => ({ type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false, primaryKey: true });
const tool = { type: DataTypes.STRING(40), allowNull: false, primaryKey: true };

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const months = Object.fromEntries(MONTH_COLUMNS.map((c) => [c, { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 }]));
  // A composite key's columns are in the order they are defined.
  await qi.createTable('ai_active_years', {
    organization_id: idOf(qi),
    tool,
    user_key: idOf(qi),
    year: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
    ...months,
  });
  // Run again after the monthly table went, the years are already whole.
  if ((await qi.showAllTables()).map(String).includes('ai_active_months')) {
    await fillAiActiveYears(qi);
    await qi.dropTable('ai_active_months');
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('ai_active_months', {
    organization_id: idOf(qi),
    tool,
    user_key: idOf(qi),
    month: { type: DataTypes.CHAR(7), allowNull: false, primaryKey: true },
    days: { type: DataTypes.INTEGER, allowNull: false },
  });
  if ((await qi.showAllTables()).map(String).includes('ai_active_years')) {
    await emptied(qi, 'ai_active_months');
    const mysql = qi.sequelize.getDialect() === 'mysql';
    await qi.sequelize.query(`INSERT INTO ai_active_months (organization_id, user_key, tool, month, days) SELECT m.organization_id, m.user_key, m.tool, m.month, m.days FROM (${aiActiveMonthsOfYearsSql(mysql, '1 = 1')}) m`);
    await qi.dropTable('ai_active_years');
  }
}
