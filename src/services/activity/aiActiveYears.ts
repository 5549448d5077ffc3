import { AI_ACTIVE_YEARS_KEYS, AiActiveMonth, MONTH_COLUMNS, aiActiveYearRows, monthColumn } from '../../../db/rollups/aiActiveYears';
import type { ChangeSql } from '../../persistence/changes/changeSql';

/**
 * Keeps ai_active_years (db/rollups/aiActiveYears.ts): the telemetry and vendor writers add the days they store, in
 * the change that stores them; a vendor's day made again is taken off first.
 */

/** Members' days of a tool by month, ORed into their year's month column (the other months add 0), in key order. */
export async function addAiActiveYears(sql: ChangeSql, months: AiActiveMonth[]): Promise<void> {
  const years = aiActiveYearRows(months);
  if (years.length) await sql.addTo('ai_active_years', AI_ACTIVE_YEARS_KEYS, MONTH_COLUMNS, years, '|');
}

/** Keeps only the bits of `keep` in these members' month of these tools. */
export async function keepAiActiveYearBits(sql: ChangeSql, of: { organizationId: string; month: string; tools: string[]; members: string[]; keep: number }): Promise<void> {
  const column = monthColumn(of.month);
  await sql.run(`UPDATE ai_active_years SET ${column} = ${column} & :keep WHERE organization_id = :organizationId AND year = :year AND tool IN (:tools) AND user_key IN (:members)`, {
    ...of,
    year: Number(of.month.slice(0, 4)),
  });
}
