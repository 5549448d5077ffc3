import { Op, Transaction } from 'sequelize';
import { UserApp, UserGitApp } from '../../../db/models';
import { membersByEmail } from '../people/memberEmails';
import { normalizeEmail } from '../people/members';
import type { TaskSource, TrackerAccount } from './taskInput';

/** The member behind a tracker account, or null: never guessed (docs/trackers.md#identity). */
export interface AccountDirectory {
  find(account: TrackerAccount | null | undefined): string | null;
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
  if (keys.length && source.accounts === 'app') {
    for (const r of await UserApp.findAll({ where: { app_id: source.appId, external_user_id: { [Op.in]: keys } }, attributes: ['user_id', 'external_user_id'], transaction })) {
      byLink.set(r.external_user_id, r.user_id);
    }
  } else if (keys.length) {
    for (const r of await UserGitApp.findAll({ where: { git_app_id: source.appId, username: { [Op.in]: keys } }, attributes: ['user_id', 'username'], transaction })) {
      byLink.set(r.username, r.user_id);
    }
  }
  const find = (a: TrackerAccount | null | undefined) => {
    if (!a) return null;
    const key = keyOf(a);
    return (a.email ? byEmail.get(normalizeEmail(a.email)) : undefined) ?? (key ? byLink.get(key) : undefined) ?? null;
  };
  if (source.accounts === 'app') await linkMatched(source, known, find, byLink, transaction, now);
  return { find };
}

/** Accounts matched by e-mail and not linked yet are linked now (a member has one account per app). */
async function linkMatched(
  source: TaskSource,
  accounts: TrackerAccount[],
  find: (a: TrackerAccount) => string | null,
  linked: Map<string, string>,
  transaction: Transaction,
  now: Date,
): Promise<void> {
  const rows = new Map<string, { user_id: string; app_id: string; external_user_id: string; created_at: Date }>();
  for (const a of accounts) {
    const userId = find(a);
    if (!userId || !a.externalId || linked.has(a.externalId)) continue;
    rows.set(userId, { user_id: userId, app_id: source.appId, external_user_id: a.externalId, created_at: now });
  }
  if (rows.size) await UserApp.bulkCreate([...rows.values()], { ignoreDuplicates: true, transaction });
}
