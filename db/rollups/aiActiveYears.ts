import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';

/**
 * `ai_active_years`: the days each member used an AI coding tool, per organization, tool (`''`: any tool), member and
 * calendar year, one bit set a month in a column of its own (`m01` … `m12`; bit d - 1: day d of the month, UTC). Who
 * used a tool in a window, and on how many days, is then one or two rows a member for a year's window, where a row
 * a month made it twelve or thirteen: at the large organization's 28k AI users, 56k rows read instead of 300k
 * (docs/performance.md).
 *
 * The telemetry and vendor writers OR in the bits of the days they store, and take a vendor's day off when they make
 * it again (src/services/activity/aiActiveYears.ts); migration 0059 built it from the monthly rows it replaced
 * (`ai_active_months`), and the demo seed builds it whole.
 */
export const AI_ACTIVE_YEARS_KEYS = ['organization_id', 'tool', 'user_key', 'year'] as const;

/** `m01` … `m12`: the column of each month's bits, the only names a month's number can become. */
export const MONTH_COLUMNS = Array.from({ length: 12 }, (_, i) => `m${String(i + 1).padStart(2, '0')}`);

/** The column of a `YYYY-MM` month. */
export function monthColumn(month: string): string {
  const column = MONTH_COLUMNS[Number(month.slice(5, 7)) - 1];
  if (!column) throw new Error(`not a month: ${month}`);
  return column;
}

/** A member's days of a tool in a month (bit d - 1: day d), as the writers gather them before they are stored by year. */
export type AiActiveMonth = { organization_id: string; user_key: string; month: string; tool: string; days: number };
export type AiActiveYear = { organization_id: string; tool: string; user_key: string; year: number } & Record<string, string | number>;

/** Month rows gathered into year rows (each month's bits ORed into its column; the other months 0), in key order. */
export function aiActiveYearRows(months: Iterable<AiActiveMonth>): AiActiveYear[] {
  const years = new Map<string, AiActiveYear>();
  for (const m of months) {
    const year = Number(m.month.slice(0, 4));
    const key = [m.organization_id, m.tool, m.user_key, year].join('\u0000');
    let row = years.get(key);
    if (!row) {
      row = { organization_id: m.organization_id, tool: m.tool, user_key: m.user_key, year };
      for (const column of MONTH_COLUMNS) row[column] = 0;
      years.set(key, row);
    }
    const column = monthColumn(m.month);
    row[column] = Number(row[column]) | m.days;
  }
  return [...years].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** From `ai_active_months`, which it replaces (migration 0059; `SUBSTR` and `CASE` read the same on MariaDB and SQLite). */
export async function fillAiActiveYears(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'ai_active_years');
  await qi.sequelize.query(
    `INSERT INTO ai_active_years (${AI_ACTIVE_YEARS_KEYS.join(', ')}, ${MONTH_COLUMNS.join(', ')})
      SELECT a.organization_id, a.tool, a.user_key, SUBSTR(a.month, 1, 4), ${monthColumnSums('a.month', 'a.days').join(', ')}
      FROM ai_active_months a GROUP BY a.organization_id, a.tool, a.user_key, SUBSTR(a.month, 1, 4)`,
  );
}

/**
 * A year's twelve columns summed from monthly rows, in column order: for each month, `SUM` of `value` over the rows
 * whose `month` (a `YYYY-MM` column) is that month, named `name(column)`. `SUBSTR` and `CASE` read the same on
 * MariaDB and SQLite. Monthly rows gathered into years: migrations 0059 and 0061.
 */
export function monthColumnSums(month: string, value: string, name: (column: string) => string = (column) => column): string[] {
  return MONTH_COLUMNS.map((column, i) => `SUM(CASE WHEN SUBSTR(${month}, 6, 2) = '${String(i + 1).padStart(2, '0')}' THEN ${value} ELSE 0 END) AS ${name(column)}`);
}

/**
 * A year's columns read back as a row a month: `months`, a derived table of the month numbers to cross join as `mo`;
 * `month`, the row's `YYYY-MM` from `year`; `valueOf`, the month's value from its column's name (`m01` … `m12`).
 */
export function monthsOfYearSql(mysql: boolean, year: string): { months: string; month: string; valueOf: (column: (month: string) => string) => string } {
  return {
    months: MONTH_COLUMNS.map((_, i) => `SELECT ${i + 1} AS n`).join(' UNION ALL '),
    month: mysql ? `CONCAT(${year}, '-', LPAD(mo.n, 2, '0'))` : `${year} || '-' || substr('0' || mo.n, -2)`,
    valueOf: (column) => `CASE mo.n ${MONTH_COLUMNS.map((m, i) => `WHEN ${i + 1} THEN ${column(m)}`).join(' ')} END`,
  };
}

/**
 * The rows of ai_active_years (alias `a`, already filtered by `where`) as a row a month with any day (`month`
 * YYYY-MM, `days` its bits): the twelve columns read as rows, for what counts by month (member_active_years).
 */
export function aiActiveMonthsOfYearsSql(mysql: boolean, where: string): string {
  const { months, month, valueOf } = monthsOfYearSql(mysql, 'a.year');
  const days = valueOf((m) => `a.${m}`);
  return `SELECT a.organization_id, a.user_key, a.tool, ${month} AS month, ${days} AS days FROM ai_active_years a CROSS JOIN (${months}) mo
    WHERE ${where} AND ${days} <> 0`;
}
