import { QueryInterface } from 'sequelize';
import { emptied } from './emptied';

/**
 * `ai_active_years`: the bits of `ai_active_months` (bit d - 1: day d of the month, UTC), a row per organization, tool
 * (`''`: any tool), member and calendar year, one column a month (`m01` … `m12`). Who used a tool in a window, and
 * on how many days, is then one or two rows a member for a year's window, where the monthly rows are twelve or
 * thirteen: at the large organization's 28k AI users, 56k rows read instead of 300k (docs/performance.md).
 *
 * The writers that keep `ai_active_months` keep this table in the same change, with the same bits
 * (src/services/activity/aiActiveYears.ts); migration 0059 and the demo seed build it from the monthly rows.
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

/** A row of ai_active_months. */
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

/** From the stored monthly rows (`SUBSTR` and `CASE` read the same on MariaDB and SQLite; the year's text is stored as its number). */
export async function fillAiActiveYears(qi: QueryInterface): Promise<void> {
  await emptied(qi, 'ai_active_years');
  const columns = MONTH_COLUMNS.map((c, i) => `SUM(CASE WHEN SUBSTR(a.month, 6, 2) = '${String(i + 1).padStart(2, '0')}' THEN a.days ELSE 0 END)`);
  await qi.sequelize.query(
    `INSERT INTO ai_active_years (${AI_ACTIVE_YEARS_KEYS.join(', ')}, ${MONTH_COLUMNS.join(', ')})
      SELECT a.organization_id, a.tool, a.user_key, SUBSTR(a.month, 1, 4), ${columns.join(', ')}
      FROM ai_active_months a GROUP BY a.organization_id, a.tool, a.user_key, SUBSTR(a.month, 1, 4)`,
  );
}
