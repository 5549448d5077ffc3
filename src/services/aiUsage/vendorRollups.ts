import type { ChangeSql } from '../../persistence/changes/changeSql';
import { VENDOR_MEASURES } from '../aiVendors/vendorDay';
import { refreshActiveDay } from './activeDays';

/**
 * The vendors' share of the rollups `ai-usage` reads (docs/ai-vendors.md#what-the-figures-count): rows of source
 * `vendor`, beside OTLP's (`otlp`) under the same keys. One member's day of one tool counts once: a vendor's row
 * counts (`ai_vendor_days.counted`) when the vendor shows the account active and OTLP reports nothing of that
 * member's day of the tool; an account matched to no member counts for the organization only.
 */
const sums = VENDOR_MEASURES.map((m) => `SUM(v.${m})`).join(', ');
const measures = VENDOR_MEASURES.join(', ');

/**
 * Of these members, those OTLP reports using the tool that day: a locking read, so OTLP's rows a concurrent
 * request is writing are waited for (and its own check, made after its rows are written, sees ours).
 */
export async function membersReportedByOtlp(sql: ChangeSql, organizationId: string, day: string, tool: string, members: string[]): Promise<Set<string>> {
  if (members.length === 0) return new Set();
  const rows = await sql.select<{ user_key: string }>(
    `SELECT DISTINCT user_key FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND user_key IN (:members) AND tool = :tool AND source = 'otlp'${sql.forUpdate}`,
    { organizationId, day, members, tool },
  );
  return new Set(rows.map((r) => r.user_key));
}

/**
 * Makes the vendor rows of one organization, day and tool again from the vendors' counted rows of that day, after a
 * pull stored or replaced them or OTLP took a member's day over: a fixed number of statements, whatever the
 * history. The day's active bits are made again for the members whose rows may have changed (activity alone makes no
 * commit AI-assisted: the vendor writer weighs its days' commits on their lines, git/rollups/aiEvidence.ts).
 */
export async function refreshVendorRollups(sql: ChangeSql, organizationId: string, day: string, tool: string, members: string[]): Promise<void> {
  const of = { organizationId, day, tool, counted: true };
  await sql.run("DELETE FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND tool = :tool AND source = 'vendor'", of);
  await sql.run(
    `INSERT INTO ai_usage_days (organization_id, day, user_key, tool, model, source, ${measures})
      SELECT v.organization_id, v.day, v.user_key, v.tool, '', 'vendor', ${sums} FROM ai_vendor_days v
      WHERE v.organization_id = :organizationId AND v.day = :day AND v.tool = :tool AND v.user_key <> '' AND v.counted = :counted
      GROUP BY v.organization_id, v.day, v.user_key, v.tool`,
    of,
  );
  await sql.run("DELETE FROM ai_usage_org_days WHERE organization_id = :organizationId AND day = :day AND tool = :tool AND source = 'vendor'", of);
  await sql.run(
    `INSERT INTO ai_usage_org_days (organization_id, day, tool, model, attributed, source, ${measures})
      SELECT v.organization_id, v.day, v.tool, '', CASE WHEN v.user_key <> '' THEN 1 ELSE 0 END, 'vendor', ${sums} FROM ai_vendor_days v
      WHERE v.organization_id = :organizationId AND v.day = :day AND v.tool = :tool AND v.counted = :counted
      GROUP BY v.organization_id, v.day, v.tool, CASE WHEN v.user_key <> '' THEN 1 ELSE 0 END`,
    of,
  );
  const counted = (await sql.select<{ user_key: string }>("SELECT DISTINCT user_key FROM ai_usage_days WHERE organization_id = :organizationId AND day = :day AND tool = :tool AND source = 'vendor'", of)).map((r) => r.user_key);
  await refreshActiveDay(sql, organizationId, day, tool, [...new Set([...members, ...counted])]);
}

/**
 * OTLP reported these members' days of these tools (in the change that wrote its rows): a vendor's row of the same
 * member, day and tool stops counting, and the vendor rows of each such day are made again without it.
 */
export async function yieldVendorDaysToOtlp(sql: ChangeSql, organizationId: string, memberDays: { userId: string; day: string; tool: string }[]): Promise<void> {
  if (memberDays.length === 0) return;
  const counted = await sql.select<{ day: string | Date; user_key: string; tool: string }>(
    `SELECT day, user_key, tool FROM ai_vendor_days
      WHERE organization_id = :organizationId AND user_key IN (:members) AND day IN (:days) AND tool IN (:tools) AND counted = :counted${sql.forUpdate}`,
    {
      organizationId,
      members: [...new Set(memberDays.map((d) => d.userId))],
      days: [...new Set(memberDays.map((d) => d.day))],
      tools: [...new Set(memberDays.map((d) => d.tool))],
      counted: true,
    },
  );
  const reported = new Set(memberDays.map((d) => `${d.userId}\u0000${d.day}\u0000${d.tool}`));
  const yielded = counted.map((r) => ({ ...r, day: dayText(r.day) })).filter((r) => reported.has(`${r.user_key}\u0000${r.day}\u0000${r.tool}`));
  const days = new Map<string, { day: string; tool: string; members: string[] }>();
  for (const r of yielded) {
    const at = `${r.day}\u0000${r.tool}`;
    const known = days.get(at);
    if (known) known.members.push(r.user_key);
    else days.set(at, { day: r.day, tool: r.tool, members: [r.user_key] });
  }
  for (const d of [...days.values()].sort((a, b) => (a.day + a.tool < b.day + b.tool ? -1 : 1))) {
    await sql.run(
      'UPDATE ai_vendor_days SET counted = :uncounted WHERE organization_id = :organizationId AND day = :day AND tool = :tool AND user_key IN (:members)',
      { organizationId, day: d.day, tool: d.tool, members: d.members, uncounted: false },
    );
    await refreshVendorRollups(sql, organizationId, d.day, d.tool, d.members);
  }
}

const dayText = (day: string | Date) => (typeof day === 'string' ? day.slice(0, 10) : day.toISOString().slice(0, 10));
