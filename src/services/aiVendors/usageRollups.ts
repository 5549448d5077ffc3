import type { ChangeSql } from '../../persistence/changes/changeSql';
import { dayBit } from '../telemetry/rollups';
import { markCommitsOfActiveDays } from '../git/rollups/authorAiActivity';
import { Day, VENDOR_MEASURES } from './vendorDay';

/** Every day bit of a month's `days` (ai_active_months): 31 bits. */
const ALL_DAYS = 2 ** 31 - 1;
const sums = VENDOR_MEASURES.map((m) => `SUM(v.${m})`).join(', ');
const measures = VENDOR_MEASURES.join(', ');

/**
 * What `ai-usage` reads (the rollups OTLP telemetry keeps, docs/metrics.md#ai-review-and-cost-figures), made again for
 * one organization, day and vendor tool from the vendors' rows of that day, after a pull stored or replaced them
 * (docs/ai-vendors.md#what-the-figures-count): each member's daily sums, the organization's (members' and unmatched
 * accounts' apart), and the day's bit in each member's active months, for the tool and for any tool (OTLP's
 * activity kept). A day of a tool reads only that day's rows: a fixed number of statements, whatever the history.
 * The commits of members the vendor shows active that day are marked AI-assisted, as OTLP's activity marks them.
 */
export async function refreshVendorRollups(sql: ChangeSql, organizationId: string, day: Day, tool: string, before: string[]): Promise<void> {
  const of = { organizationId, day, tool };
  await sql.run('DELETE FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND tool = :tool', of);
  await sql.run(
    `INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, ${measures})
      SELECT v.organization_id, v.day, v.user_key, v.tool, '', ${sums} FROM ai_vendor_days v
      WHERE v.organization_id = :organizationId AND v.day = :day AND v.tool = :tool AND v.user_key <> '' AND v.active = :active
      GROUP BY v.organization_id, v.day, v.user_key, v.tool`,
    { ...of, active: true },
  );
  await sql.run('DELETE FROM ai_usage_org_days WHERE organization_id = :organizationId AND day = :day AND tool = :tool', of);
  await sql.run(
    `INSERT INTO ai_usage_org_days (organization_id, day, tool, model, attributed, ${measures})
      SELECT v.organization_id, v.day, v.tool, '', CASE WHEN v.user_key <> '' THEN 1 ELSE 0 END, ${sums} FROM ai_vendor_days v
      WHERE v.organization_id = :organizationId AND v.day = :day AND v.tool = :tool AND v.active = :active
      GROUP BY v.organization_id, v.day, v.tool, CASE WHEN v.user_key <> '' THEN 1 ELSE 0 END`,
    { ...of, active: true },
  );
  const active = (await sql.select<{ user_key: string }>("SELECT DISTINCT user_key FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND tool = :tool", of)).map((r) => r.user_key);
  await refreshActiveDay(sql, organizationId, day, tool, [...new Set([...before, ...active])], active);
  await markCommitsOfActiveDays(sql.transaction, organizationId, active.map((userId) => ({ userId, day })));
}

/**
 * The day's bit in the month rows of the tool (set for the members active in it) and of any tool (set for the
 * members with any usage that day: OTLP's, or a vendor's), for the members the pull may have changed.
 */
async function refreshActiveDay(sql: ChangeSql, organizationId: string, day: Day, tool: string, members: string[], activeInTool: string[]): Promise<void> {
  if (members.length === 0) return;
  const month = day.slice(0, 7);
  const keep = ALL_DAYS - dayBit(day);
  const of = { organizationId, month, members, keep };
  await sql.run('UPDATE ai_active_months SET days = days & :keep WHERE organization_id = :organizationId AND month = :month AND tool IN (:tools) AND user_key IN (:members)', { ...of, tools: [tool, ''] });
  const anyTool = (await sql.select<{ user_key: string }>('SELECT DISTINCT user_key FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND user_key IN (:members)', { organizationId, day, members })).map((r) => r.user_key);
  const rows = [...activeInTool.map((user_key) => ({ user_key, tool })), ...anyTool.map((user_key) => ({ user_key, tool: '' }))]
    .sort((a, b) => (a.user_key + a.tool < b.user_key + b.tool ? -1 : 1))
    .map((r) => ({ organization_id: organizationId, user_key: r.user_key, month, tool: r.tool, days: dayBit(day) }));
  if (rows.length) await sql.addTo('ai_active_months', ['organization_id', 'user_key', 'month', 'tool'], ['days'], rows, '|');
}
