import { QueryTypes, Transaction } from 'sequelize';
import { App } from '../../../db/models';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { normalizeEmail } from './members';
import type { LinkTable } from './linkTables';
import { connectionOf } from './accountLinks';
import type { ChangeAuthority } from '../audit/actor';

/** What an account did on its connection: the writers' kinds of activity, each counted apart. */
export const ACTIVITY_KINDS = ['commit', 'pull_request', 'review', 'task_assigned', 'message'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Where activity came from: an app or a git app, and its organization. */
export interface Connection {
  id: string;
  organizationId: string;
}

/** One piece of activity under an account that matched no member. */
export interface UnmatchedActivity {
  /** The key a link would take (an app's account id, a git user name), or, for a commit named by no user name, its author's e-mail. */
  account: string | null;
  at: Date;
}

/** How many accounts a listing shows at most: the busiest, which are the ones worth linking first. */
export const UNLINKED_LIMIT = 100;

/**
 * Counts activity that arrived under accounts no member is behind (docs/trackers.md#accounts), in the change that
 * stored it: the rows themselves keep only the member, so this is what `unlinked` reads. One statement per call.
 */
export async function noteUnmatched(transaction: Transaction, connection: Connection, kind: ActivityKind, activity: UnmatchedActivity[]): Promise<void> {
  const byAccount = new Map<string, { activity: number; last: Date }>();
  for (const a of activity) {
    const account = a.account?.includes('@') ? normalizeEmail(a.account) : a.account?.trim();
    if (!account || account.length > 320) continue;
    const known = byAccount.get(account);
    if (!known) byAccount.set(account, { activity: 1, last: a.at });
    else {
      known.activity++;
      if (a.at > known.last) known.last = a.at;
    }
  }
  if (byAccount.size === 0) return;
  const sql = new ChangeSql(transaction);
  const values = [...byAccount].map(
    ([account, seen]) => `(${[connection.id, account, kind, connection.organizationId, seen.activity, seen.last].map((v) => sql.literal(v)).join(', ')})`,
  );
  const tail = sql.mysql
    ? 'ON DUPLICATE KEY UPDATE activity = activity + VALUES(activity), last_seen_at = GREATEST(last_seen_at, VALUES(last_seen_at))'
    : 'ON CONFLICT (connection_id, account, kind) DO UPDATE SET activity = activity + excluded.activity, last_seen_at = MAX(last_seen_at, excluded.last_seen_at)';
  await sql.run(`INSERT INTO unmatched_accounts (connection_id, account, kind, organization_id, activity, last_seen_at) VALUES ${values.join(', ')} ${tail}`, {});
}

/** An account with activity on a connection and no member linked to it, with what it holds. */
export interface UnlinkedAccount {
  account: string;
  /** `email` for a commit author seen only by e-mail: no link takes it; the member needs that address (SCIM) instead. */
  account_kind: 'account' | 'email';
  activity: number;
  by_kind: Partial<Record<ActivityKind, number>>;
  last_seen_at: string;
}

export interface UnlinkedAccounts {
  connection_id: string;
  /** How many accounts have no member, of which `accounts` holds the busiest UNLINKED_LIMIT. */
  total: number;
  accounts: UnlinkedAccount[];
}

/**
 * A connection's accounts with activity and no link, busiest first (most activity, then the latest seen): one
 * grouped read of the connection's rows, at most UNLINKED_LIMIT, and one count.
 */
export async function unlinkedAccounts(links: LinkTable, id: string, by: ChangeAuthority = {}): Promise<UnlinkedAccounts> {
  const connectionId = (await connectionOf(links, id, by)).id;
  const sequelize = App.sequelize!;
  const unlinked = `FROM unmatched_accounts u WHERE u.connection_id = :connectionId
    AND NOT EXISTS (SELECT 1 FROM ${links.table} l WHERE l.${links.connectionColumn} = :connectionId AND l.${links.accountColumn} = u.account)`;
  const perKind = ACTIVITY_KINDS.map((k) => `SUM(CASE WHEN u.kind = '${k}' THEN u.activity ELSE 0 END) AS n_${k}`).join(', ');
  const rows = await sequelize.query<Record<`n_${ActivityKind}`, number | string> & { account: string; activity: number | string; last_seen_at: Date | string }>(
    `SELECT u.account, SUM(u.activity) AS activity, MAX(u.last_seen_at) AS last_seen_at, ${perKind} ${unlinked}
      GROUP BY u.account ORDER BY activity DESC, last_seen_at DESC, u.account ASC LIMIT ${UNLINKED_LIMIT}`,
    { replacements: { connectionId }, type: QueryTypes.SELECT },
  );
  const [{ total }] = await sequelize.query<{ total: number | string }>(`SELECT COUNT(DISTINCT u.account) AS total ${unlinked}`, { replacements: { connectionId }, type: QueryTypes.SELECT });
  return {
    connection_id: connectionId,
    total: Number(total),
    accounts: rows.map((r) => ({
      account: r.account,
      account_kind: r.account.includes('@') ? 'email' : 'account',
      activity: Number(r.activity),
      by_kind: Object.fromEntries(ACTIVITY_KINDS.flatMap((k) => (Number(r[`n_${k}`]) > 0 ? [[k, Number(r[`n_${k}`])]] : []))),
      last_seen_at: new Date(r.last_seen_at).toISOString(),
    })),
  };
}
