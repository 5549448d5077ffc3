import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';
import { MONTH_COLUMNS, monthColumnSums, monthsOfYearSql } from './aiActiveYears';
import { memberActiveMonthsSql } from './memberActiveMonths';

/**
 * `member_active_years`: per organization, member and calendar year, the days they were at work as the AI adoption
 * tiers count it (docs/metrics.md#ai-impact), as bit sets a month in columns of their own (bit d - 1: day d, UTC):
 * `work_m01` … `work_m12` the days they authored a commit, opened a pull request or acted on one; `ai_m01` …
 * `ai_m12` the days they used any AI coding tool (the bits of `ai_active_years`' any-tool row). A member's active
 * days in a window are the bits of `work | ai` in it: one or two rows a member for a year's window, where a row a
 * month (`member_active_months`, which this replaced in 0061) made it twelve or thirteen.
 *
 * The writers OR in bits as they store rows (src/services/activity/memberActiveYears.ts) and count a member's years
 * again with this SQL when rows leave; migration 0061 and the demo seed build it whole.
 */
export const MEMBER_ACTIVE_YEARS_KEYS = ['organization_id', 'user_id', 'year'] as const;

/** The two sets of a month: the days at work, and the days of AI use. */
export type DaysOf = 'work' | 'ai';

/** The column of a month's (`m01` … `m12`, aiActiveYears.ts) days of a kind: `work_m05`, `ai_m05`. */
export const daysColumn = (of: DaysOf, month: string): string => `${of}_${month}`;

export const WORK_COLUMNS = MONTH_COLUMNS.map((m) => daysColumn('work', m));
export const AI_COLUMNS = MONTH_COLUMNS.map((m) => daysColumn('ai', m));
export const MEMBER_ACTIVE_YEARS_COLUMNS = `(${[...MEMBER_ACTIVE_YEARS_KEYS, ...WORK_COLUMNS, ...AI_COLUMNS].join(', ')})`;

/**
 * Rows of member_active_years from monthly rows (`months`: organization_id, user_id, month `YYYY-MM`, work_days,
 * ai_days; one row per member and month, so each column's sum is that month's bits).
 */
function yearsOfMonthsSql(mysql: boolean, months: string): string {
  // A number, as the table's column is: read from a derived table, SQLite compares text with no number equal.
  const year = `CAST(SUBSTR(x.month, 1, 4) AS ${mysql ? 'UNSIGNED' : 'INTEGER'})`;
  const columns = [...monthColumnSums('x.month', 'x.work_days', (m) => daysColumn('work', m)), ...monthColumnSums('x.month', 'x.ai_days', (m) => daysColumn('ai', m))];
  return `SELECT x.organization_id, x.user_id, ${year} AS year, ${columns.join(', ')}
    FROM (${months}) x GROUP BY x.organization_id, x.user_id, SUBSTR(x.month, 1, 4)`;
}

/** From the stored rows; `forMembers` keeps those of `:organization_id`'s members `:users` (memberActiveMonths.ts). */
export function memberActiveYearsSql(mysql: boolean, forMembers = false): string {
  return yearsOfMonthsSql(mysql, memberActiveMonthsSql(mysql, forMembers, 'ai_active_years'));
}

/** From the stored rows, or from the monthly table it replaces (migration 0061). */
export async function fillMemberActiveYears(qi: QueryInterface, from: 'stored rows' | 'member_active_months'): Promise<void> {
  await emptied(qi, 'member_active_years');
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const select =
    from === 'stored rows' ? memberActiveYearsSql(mysql) : yearsOfMonthsSql(mysql, 'SELECT m.organization_id, m.user_id, m.month, m.work_days, m.ai_days FROM member_active_months m');
  await qi.sequelize.query(`INSERT INTO member_active_years ${MEMBER_ACTIVE_YEARS_COLUMNS} ${select}`);
}

/** The years read back as a row per member and month with any day (`month` YYYY-MM): migration 0061's down. */
export function memberActiveMonthsOfYearsSql(mysql: boolean): string {
  const { months, month, valueOf } = monthsOfYearSql(mysql, 'y.year');
  const of = (kind: DaysOf) => valueOf((m) => `y.${daysColumn(kind, m)}`);
  return `SELECT y.organization_id, y.user_id, ${month} AS month, ${of('work')} AS work_days, ${of('ai')} AS ai_days
    FROM member_active_years y CROSS JOIN (${months}) mo WHERE ${of('work')} <> 0 OR ${of('ai')} <> 0`;
}
