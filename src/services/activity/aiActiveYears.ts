import { AI_ACTIVE_YEARS_KEYS, AiActiveMonth, MONTH_COLUMNS, aiActiveYearRows, monthColumn } from '../../../db/rollups/aiActiveYears';
import type { ChangeSql } from '../../persistence/changes/changeSql';

/**
 * Keeps ai_active_years (db/rollups/aiActiveYears.ts) beside ai_active_months, in the same change and with the same
 * bits: the writers of the monthly rows call these with what they wrote there.
 */
/** The bits just ORed into ai_active_months, ORed into their year's month column (the other months add 0). */
export async function addAiActiveYears(sql: ChangeSql, months: AiActiveMonth[]): Promise<void> {
  const years = aiActiveYearRows(months);
  if (years.length) await sql.addTo('ai_active_years', AI_ACTIVE_YEARS_KEYS, MONTH_COLUMNS, years, '|');
}

/** Keeps only the bits of `keep` in these members' month of these tools, as done to their ai_active_months rows. */
export async function keepAiActiveYearBits(sql: ChangeSql, of: { organizationId: string; month: string; tools: string[]; members: string[]; keep: number }): Promise<void> {
  const column = monthColumn(of.month);
  await sql.run(`UPDATE ai_active_years SET ${column} = ${column} & :keep WHERE organization_id = :organizationId AND year = :year AND tool IN (:tools) AND user_key IN (:members)`, {
    ...of,
    year: Number(of.month.slice(0, 4)),
  });
}
