import type { ChangeSql } from '../../persistence/changes/changeSql';
import { ALL_DAYS, dayBit } from '../activity/dayBits';
import { addAiDays, clearAiDay } from '../activity/memberActiveYears';
import { addAiActiveYears, keepAiActiveYearBits } from '../activity/aiActiveYears';

/**
 * Makes the day's bit again in the months of a tool and of any tool (`''`) for these members (ai_active_years), from
 * the daily rows of either source that the day holds now: after a vendor's rows of the day were made again, or taken
 * out.
 */
export async function refreshActiveDay(sql: ChangeSql, organizationId: string, day: string, tool: string, members: string[]): Promise<void> {
  if (members.length === 0) return;
  const month = day.slice(0, 7);
  const of = { organizationId, month, members, keep: ALL_DAYS - dayBit(day) };
  await keepAiActiveYearBits(sql, { ...of, tools: [tool, ''] });
  await clearAiDay(sql, organizationId, day, members);
  const active = await sql.select<{ user_key: string; tool: string }>(
    'SELECT DISTINCT user_key, tool FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND user_key IN (:members)',
    { organizationId, day, members },
  );
  const bits = new Map<string, { user_key: string; tool: string }>();
  for (const r of active) for (const t of r.tool === tool ? [tool, ''] : ['']) bits.set(`${r.user_key}\u0000${t}`, { user_key: r.user_key, tool: t });
  const rows = [...bits].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => ({ organization_id: organizationId, user_key: r.user_key, month, tool: r.tool, days: dayBit(day) }));
  await addAiActiveYears(sql, rows);
  await addAiDays(sql, rows.filter((r) => r.tool === ''));
}
