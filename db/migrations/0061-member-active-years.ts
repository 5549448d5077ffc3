import { DataTypes, QueryInterface } from 'sequelize';
import { AI_COLUMNS, fillMemberActiveYears, memberActiveMonthsOfYearsSql, WORK_COLUMNS } from '../rollups/memberActiveYears';
import { emptied } from '../rollups/emptied';
import { createMemberActiveMonths } from './0058-member-active-months';

/**
 * `member_active_years` (db/rollups/memberActiveYears.ts) in place of `member_active_months`: the same day bits, a
 * row per member and calendar year with a column a month for each kind. The AI adoption tiers sum a member's window
 * from one or two rows instead of twelve or thirteen (415k rows a year at the large organization). Keyed by member
 * first, as the months were, so a window is summed per member in key order. Down makes the monthly rows again from
 * the years; run again after the monthly table went, the years are already whole.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

const idOf = (qi: QueryInterface) => ({ type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false, primaryKey: true });
const bits = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };

const tables = async (qi: QueryInterface) => (await qi.showAllTables()).map(String);

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  // A composite key's columns are in the order they are defined.
  await qi.createTable('member_active_years', {
    organization_id: idOf(qi),
    user_id: idOf(qi),
    year: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
    ...Object.fromEntries([...WORK_COLUMNS, ...AI_COLUMNS].map((c) => [c, bits])),
  });
  if ((await tables(qi)).includes('member_active_months')) {
    await fillMemberActiveYears(qi, 'member_active_months');
    await qi.dropTable('member_active_months');
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await createMemberActiveMonths(qi);
  if ((await tables(qi)).includes('member_active_years')) {
    await emptied(qi, 'member_active_months');
    const months = memberActiveMonthsOfYearsSql(qi.sequelize.getDialect() === 'mysql');
    await qi.sequelize.query(`INSERT INTO member_active_months (organization_id, user_id, month, work_days, ai_days) ${months}`);
    await qi.dropTable('member_active_years');
  }
}
