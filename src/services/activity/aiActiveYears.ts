import { AI_ACTIVE_YEARS_KEYS, AiActiveMonth, MONTH_COLUMNS, aiActiveYearRows, monthColumn } from '../../../db/rollups/aiActiveYears';
import type { ChangeSql } from '../../persistence/changes/changeSql';

/**
 * Keeps ai_active_years (db/rollups/aiActiveYears.ts): the telemetry and vendor writers add the days they store, in
 * the change that stores them; a vendor's day made again is taken off first.
 */

/**
 * Members' days of a tool by month, ORed into their year's month column, in one statement in key order (concurrent
 * changes lock rows in one order). Only the months the change has days in are named: a request's points are mostly of
 * one month, and a column ORed with 0 would be written for nothing.
 */
export async function addAiActiveYears(sql: ChangeSql, months: AiActiveMonth[]): Promise<void> {
  const years = aiActiveYearRows(months);
  const touched = MONTH_COLUMNS.filter((column) => years.some((row) => row[column] !== 0));
  if (years.length) await sql.addTo('ai_active_years', AI_ACTIVE_YEARS_KEYS, touched, years, '|');
}

/** Keeps only the bits of `keep` in these members' month of these tools. */
export async function keepAiActiveYearBits(sql: ChangeSql, of: { organizationId: string; month: string; tools: string[]; members: string[]; keep: number }): Promise<void> {
  const column = monthColumn(of.month);
  await sql.run(`UPDATE ai_active_years SET ${column} = ${column} & :keep WHERE organization_id = :organizationId AND year = :year AND tool IN (:tools) AND user_key IN (:members)`, {
    ...of,
    year: Number(of.month.slice(0, 4)),
  });
}
