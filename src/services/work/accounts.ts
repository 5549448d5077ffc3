import type { Transaction } from 'sequelize';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { membersByEmail } from '../people/memberEmails';
import { normalizeEmail } from '../people/members';
import type { TaskSource, TrackerAccount } from './taskInput';

/** The member behind a tracker account, or null: never guessed (docs/trackers.md#identity). */
export interface AccountDirectory {
  find(account: TrackerAccount | null | undefined): string | null;
  /** What a link of this source takes of an account: its id (apps), its user name (git apps). */
  keyOf(account: TrackerAccount): string | null;
}

/**
 * One lookup per kind of key for a whole delivery or import page. An account is its member by the e-mail the
 * payload carries (the tracker verified it), else by the account id (apps) or user name (git apps) linked before,
 * by an earlier match or by `apps link-user`; otherwise it stays unmatched and counts for the organization only.
 * A match by e-mail links the account, so `/v1/users/{id}/apps` shows it and later payloads without the e-mail
 * (Jira's, under its privacy settings) still find the member.
 */
export async function accountDirectory(source: TaskSource, accounts: (TrackerAccount | null | undefined)[], transaction: Transaction, now: Date): Promise<AccountDirectory> {
  const known = accounts.filter((a): a is TrackerAccount => !!a);
  const byEmail = await membersByEmail(source.organizationId, known.flatMap((a) => (a.email ? [a.email] : [])), transaction);
  const byLink = new Map<string, string>();
  const keyOf = (a: TrackerAccount) => (source.accounts === 'app' ? a.externalId : (a.username ?? null));
  const keys = [...new Set(known.map(keyOf).filter((k): k is string => !!k))];
  const sql = new ChangeSql(transaction);
  if (keys.length) {
    const linked =
      source.accounts === 'app'
        ? 'SELECT external_user_id AS account, user_id FROM user_apps WHERE app_id = :appId AND external_user_id IN (:keys)'
        : 'SELECT username AS account, user_id FROM user_git_apps WHERE git_app_id = :appId AND username IN (:keys)';
    for (const r of await sql.select<{ account: string; user_id: string }>(linked, { appId: source.appId, keys })) byLink.set(r.account, r.user_id);
  }
  const find = (a: TrackerAccount | null | undefined) => {
    if (!a) return null;
    const key = keyOf(a);
    return (a.email ? byEmail.get(normalizeEmail(a.email)) : undefined) ?? (key ? byLink.get(key) : undefined) ?? null;
  };
  if (source.accounts === 'app') await linkMatched(sql, source, known, find, byLink, now);
  return { find, keyOf };
}

/** Accounts matched by e-mail and not linked yet are linked now (a member has one account per app). */
async function linkMatched(sql: ChangeSql, source: TaskSource, accounts: TrackerAccount[], find: (a: TrackerAccount) => string | null, linked: Map<string, string>, now: Date): Promise<void> {
  const rows = new Map<string, { user_id: string; app_id: string; external_user_id: string; created_at: Date }>();
  for (const a of accounts) {
    const userId = find(a);
    if (!userId || !a.externalId || linked.has(a.externalId)) continue;
    rows.set(userId, { user_id: userId, app_id: source.appId, external_user_id: a.externalId, created_at: now });
  }
  if (rows.size) await sql.insertIgnore('user_apps', ['user_id', 'app_id', 'external_user_id', 'created_at'], [...rows.values()]);
}
