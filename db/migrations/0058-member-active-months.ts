import { DataTypes, QueryInterface } from 'sequelize';
import { fillMemberActiveMonths } from '../rollups/memberActiveMonths';

/**
 * `member_active_months`: per organization, member and month, the days they worked and the days they used an AI
 * coding tool, as bit sets (db/rollups/memberActiveMonths.ts). The AI adoption tiers read a member's year there, a
 * dozen rows, where they read and grouped the commits' author days, the pull requests, their activity and the AI
 * tools' daily usage (3.7 million rows a year at the large organization: over 15 s, docs/performance.md). Keyed by
 * member first, so a window's months are summed per member in key order, with no temporary table.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

/** The table as this migration made it: 0061's down makes it again. */
export async function createMemberActiveMonths(qi: QueryInterface): Promise<void> {
  const id = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const bits = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
  await qi.createTable('member_active_months', {
    organization_id: { ...id, primaryKey: true },
    user_id: { ...id, primaryKey: true },
    month: { type: DataTypes.STRING(7), allowNull: false, primaryKey: true },
    work_days: bits,
    ai_days: bits,
  });
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await createMemberActiveMonths(qi);
  await fillMemberActiveMonths(qi, 'ai_active_months');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('member_active_months');
}
