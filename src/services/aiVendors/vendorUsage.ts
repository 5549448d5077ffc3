import type { Transaction } from 'sequelize';
import type { ChangeRunner } from '../../persistence/changes/change';
import { ChangeSql, SqlRow } from '../../persistence/changes/changeSql';
import { chunks, membersByEmail } from '../people/memberEmails';
import { normalizeEmail } from '../people/members';
import { AccountKind, Day, OpenedSource, VENDOR_MEASURES, VendorAccountDay } from './vendorDay';
import { membersReportedByOtlp, refreshVendorRollups } from '../aiUsage/vendorRollups';
import { weighCommitsOfDays } from '../git/rollups/aiEvidence';

const COLUMNS = ['app_id', 'day', 'account', 'organization_id', 'tool', 'user_key', 'active', 'counted', ...VENDOR_MEASURES] as const;

export interface StoredDay {
  day: Day;
  accounts: number;
  /** Of those, the accounts matched to a member; the others count for the organization only. */
  matched: number;
}

/**
 * Stores what a vendor reported for an app's day (docs/ai-vendors.md#what-is-read), in place of what an earlier pull
 * of that day stored: a day pulled again, or corrected by the vendor since, is never counted twice. Each account is
 * matched to the organization's member it belongs to; an account the vendor lists twice in a day (two report files)
 * is one row with the sums. Where OTLP reports a member's day of the tool too, OTLP's figures count and the
 * vendor's row is kept uncounted (docs/ai-vendors.md#what-the-figures-count).
 */
export class VendorUsageWriter {
  constructor(private readonly changes: ChangeRunner) {}

  /** `kind` is how the vendor names its accounts (its puller's accountKind, src/integrations/<vendor>/index.ts). */
  replaceDay(source: OpenedSource, day: Day, accounts: VendorAccountDay[], kind: AccountKind): Promise<StoredDay> {
    return this.changes.run(async (change) => {
      const sql = new ChangeSql(change.transaction);
      const merged = mergeAccounts(accounts, kind);
      const members = await membersOf(source.organizationId, kind, [...merged.keys()], change.transaction);
      const before = (await sql.select<{ user_key: string }>("SELECT DISTINCT user_key FROM ai_vendor_days WHERE app_id = :appId AND day = :day AND user_key <> ''", { appId: source.appId, day })).map((r) => r.user_key);
      await sql.run('DELETE FROM ai_vendor_days WHERE app_id = :appId AND day = :day', { appId: source.appId, day });
      const byOtlp = await membersReportedByOtlp(sql, source.organizationId, day, source.vendor, [...new Set(members.values())]);
      const rows: SqlRow[] = [...merged].map(([account, a]) => {
        const userKey = members.get(account) ?? '';
        return {
          app_id: source.appId,
          day,
          account,
          organization_id: source.organizationId,
          tool: source.vendor,
          user_key: userKey,
          active: a.active,
          counted: a.active && !byOtlp.has(userKey),
          ...Object.fromEntries(VENDOR_MEASURES.map((m) => [m, a.measures[m] ?? 0])),
        };
      });
      if (rows.length) await sql.insert('ai_vendor_days', COLUMNS, rows);
      await refreshVendorRollups(sql, source.organizationId, day, source.vendor, before);
      // Lines found or gone for the members of the day as it was and as it is.
      const weighed = new Set([...before, ...rows.flatMap((r) => (r.user_key ? [String(r.user_key)] : []))]);
      await weighCommitsOfDays(change.transaction, source.organizationId, [...weighed].map((userId) => ({ userId, day })));
      change.wrote('ai_vendor_days');
      return { day, accounts: rows.length, matched: rows.filter((r) => r.user_key !== '').length };
    });
  }
}

/** One entry per account as stored (lower-cased: GitHub logins and e-mail addresses are case-insensitive). */
function mergeAccounts(accounts: VendorAccountDay[], kind: AccountKind): Map<string, VendorAccountDay> {
  const merged = new Map<string, VendorAccountDay>();
  for (const a of accounts) {
    const key = kind === 'email' ? normalizeEmail(a.account) : a.account.trim().toLowerCase();
    const known = merged.get(key);
    if (!known) {
      merged.set(key, { account: key, active: a.active, measures: { ...a.measures } });
      continue;
    }
    known.active ||= a.active;
    for (const m of VENDOR_MEASURES) if (a.measures[m] !== undefined) known.measures[m] = (known.measures[m] ?? 0) + (a.measures[m] ?? 0);
  }
  return merged;
}

/**
 * The members behind the accounts: by e-mail, or by the logins of their accounts on the organization's git apps of
 * provider github (a `github_login` is a GitHub account's, whichever vendor reports it).
 */
async function membersOf(organizationId: string, kind: AccountKind, accounts: string[], transaction: Transaction): Promise<Map<string, string>> {
  if (accounts.length === 0) return new Map();
  if (kind === 'email') return membersByEmail(organizationId, accounts, transaction);
  const sql = new ChangeSql(transaction);
  const byLogin = new Map<string, string>();
  for (const logins of chunks(accounts)) {
    const rows = await sql.select<{ login: string; user_id: string }>(
      `SELECT LOWER(ug.username) AS login, ug.user_id FROM git_apps g
        JOIN user_git_apps ug ON ug.git_app_id = g.id
        JOIN organization_memberships m ON m.organization_id = g.organization_id AND m.user_id = ug.user_id
        WHERE g.organization_id = :organizationId AND g.provider = 'github' AND LOWER(ug.username) IN (:logins)
        ORDER BY ug.user_id`,
      { organizationId, logins },
    );
    for (const r of rows) if (!byLogin.has(r.login)) byLogin.set(r.login, r.user_id);
  }
  return byLogin;
}
