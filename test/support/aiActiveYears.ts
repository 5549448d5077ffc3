import { QueryTypes, Sequelize } from 'sequelize';
import { AiActiveMonth, aiActiveYearRows, MONTH_COLUMNS } from '../../db/rollups/aiActiveYears';

/**
 * ai_active_years as stored, and as ai_active_months' rows gathered by year (db/rollups/aiActiveYears.ts): the
 * writers keep both in the same change, so after any change the two must be equal.
 */
type YearRow = Record<string, string | number>;
const numbers = (row: YearRow) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'year' || MONTH_COLUMNS.includes(k) ? Number(v) : v]));
const ordered = (rows: YearRow[]) =>
  rows.map(numbers).sort((a, b) => {
    const key = (r: YearRow) => [r.organization_id, r.tool, r.user_key, r.year].join('\u0000');
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  });

export async function storedAiActiveYears(sequelize: Sequelize, organizationId?: string): Promise<YearRow[]> {
  const where = organizationId ? 'WHERE organization_id = :organizationId' : '';
  return ordered(await sequelize.query<YearRow>(`SELECT * FROM ai_active_years ${where}`, { replacements: { organizationId }, type: QueryTypes.SELECT }));
}

export async function aiActiveYearsOfMonths(sequelize: Sequelize, organizationId?: string): Promise<YearRow[]> {
  const where = organizationId ? 'WHERE organization_id = :organizationId' : '';
  const months = await sequelize.query<AiActiveMonth>(`SELECT organization_id, user_key, month, tool, days FROM ai_active_months ${where}`, { replacements: { organizationId }, type: QueryTypes.SELECT });
  return ordered(aiActiveYearRows(months.map((m) => ({ ...m, days: Number(m.days) }))));
}
