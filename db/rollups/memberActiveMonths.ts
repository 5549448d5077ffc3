import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';
import { aiActiveMonthsOfYearsSql } from './aiActiveYears';

/**
 * `member_active_months`: per organization, member and month (`YYYY-MM`), the days they were at work as the AI
 * adoption tiers count it (docs/metrics.md#ai-impact), as bit sets (bit d - 1: day d, UTC): `work_days` when they
 * authored a commit, opened a pull request or acted on one; `ai_days` when they used any AI coding tool (the same
 * bits as `ai_active_years`' any-tool row). A member's active days in a window are then the bits of
 * `work_days | ai_days` in it, one row a month, where the pull requests, their activity and a year of AI usage
 * (3.7 million daily rows at the large organization) were read and grouped by member and day.
 *
 * The writers add bits as they store rows (src/services/activity/memberActiveMonths.ts) and count a member's months
 * again with this SQL when rows leave; migration 0058 and the demo seed build it whole.
 */

/** Each source's member, month and day-of-month bit, by dialect (SQLite stores timestamps as UTC text). */
function bitOf(mysql: boolean, column: string): { month: string; bit: string } {
  return mysql
    ? { month: `DATE_FORMAT(${column}, '%Y-%m')`, bit: `(1 << (DAYOFMONTH(${column}) - 1))` }
    : { month: `strftime('%Y-%m', ${column})`, bit: `(1 << (CAST(strftime('%d', ${column}) AS INTEGER) - 1))` };
}

/**
 * Where the days of AI use are read: `ai_active_years`, or the monthly rows it replaced, for migration 0058, which ran
 * before 0059 made the years.
 */
type AiDaysTable = 'ai_active_years' | 'ai_active_months';

function aiMonths(mysql: boolean, table: AiDaysTable, where: string): string {
  return table === 'ai_active_years' ? aiActiveMonthsOfYearsSql(mysql, where) : `SELECT a.organization_id, a.user_key, a.month, a.days FROM ai_active_months a WHERE ${where}`;
}

/**
 * Rows of member_active_months from the stored rows; `forMembers` keeps those of `:organization_id`'s members
 * `:users`. Each work day's bit is one power of two, so the distinct ones summed are their OR (SQLite has no
 * BIT_OR); a member's month has one any-tool row of AI days.
 */
export function memberActiveMonthsSql(mysql: boolean, forMembers = false, aiDaysFrom: AiDaysTable = 'ai_active_years'): string {
  const of = (organization: string, user: string) => (forMembers ? ` AND ${organization} = :organization_id AND ${user} IN (:users)` : '');
  const commits = bitOf(mysql, 'ad.day');
  const opened = bitOf(mysql, 'p.created_at');
  const acted = bitOf(mysql, 'pa.created_at');
  return `SELECT x.organization_id, x.user_id, x.month, SUM(DISTINCT x.work) AS work_days, MAX(x.ai) AS ai_days FROM (
      SELECT ad.organization_id, ad.user_id, ${commits.month} AS month, ${commits.bit} AS work, 0 AS ai FROM author_days ad WHERE 1 = 1${of('ad.organization_id', 'ad.user_id')}
      UNION ALL
      SELECT p.organization_id, p.author_id, ${opened.month}, ${opened.bit}, 0 FROM pull_requests p WHERE p.author_id IS NOT NULL${of('p.organization_id', 'p.author_id')}
      UNION ALL
      SELECT pa.organization_id, pa.actor_id, ${acted.month}, ${acted.bit}, 0 FROM pull_request_activities pa WHERE pa.actor_id IS NOT NULL${of('pa.organization_id', 'pa.actor_id')}
      UNION ALL
      SELECT ai.organization_id, ai.user_key, ai.month, 0, ai.days FROM (${aiMonths(mysql, aiDaysFrom, `a.tool = '' AND a.user_key <> ''${of('a.organization_id', 'a.user_key')}`)}) ai
    ) x GROUP BY x.organization_id, x.user_id, x.month`;
}

export const MEMBER_ACTIVE_MONTHS_COLUMNS = '(organization_id, user_id, month, work_days, ai_days)';

/** From the stored rows (after author_days and the days of AI use are built). */
export async function fillMemberActiveMonths(qi: QueryInterface, aiDaysFrom: AiDaysTable): Promise<void> {
  await emptied(qi, 'member_active_months');
  await qi.sequelize.query(`INSERT INTO member_active_months ${MEMBER_ACTIVE_MONTHS_COLUMNS} ${memberActiveMonthsSql(qi.sequelize.getDialect() === 'mysql', false, aiDaysFrom)}`);
}
