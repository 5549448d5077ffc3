import { Attributes, columnText as text } from './batch';
import type { ChangeSql } from '../../persistence/changes/changeSql';
import { conditions } from '../../access/conditions';

/** Who a point or record says sent it, before it is matched to a member. */
export interface Subject {
  email: string | undefined;
  accountId: string | undefined;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/**
 * docs/telemetry.md's order: `user.email` (on the record, else on its resource), else a resource `enduser.id` that is an
 * e-mail; and the AI vendor's account id (Claude Code's `user.account_uuid`, Codex's `user.account_id`).
 */
export function subjectOf(attributes: Attributes, resource: Attributes): Subject {
  const enduser = text(resource['enduser.id']);
  const email = text(attributes['user.email']) ?? text(resource['user.email']) ?? (enduser && EMAIL.test(enduser) ? enduser : undefined);
  const accountId = text(attributes['user.account_uuid']) ?? text(resource['user.account_uuid']) ?? text(attributes['user.account_id']);
  return { email: email?.toLowerCase(), accountId: accountId?.slice(0, 100) };
}

/**
 * Matches a batch's subjects to the organization's active members, in two reads: their e-mails (a user's own
 * or any address an identity provider gave them), then account ids seen before with a matched e-mail. An
 * account id seen now with a matched e-mail is remembered. Unmatched subjects are unattributed (null).
 */
export async function resolveActors(
  sql: ChangeSql,
  organizationId: string,
  subjects: Subject[],
  now: Date,
): Promise<(subject: Subject) => string | null> {
  const emails = [...new Set(subjects.flatMap((s) => (s.email ? [s.email] : [])))];
  const byEmail = new Map<string, string>();
  if (emails.length) {
    const rows = await sql.select<{ user_id: string; email: string }>(
      `SELECT u.id AS user_id, u.email AS email FROM users u
         JOIN organization_memberships m ON m.user_id = u.id AND m.organization_id = :organizationId AND ${conditions.activeMembershipSql('m')}
        WHERE u.email IN (:emails)
       UNION
       SELECT ue.user_id AS user_id, ue.email AS email FROM user_emails ue
         JOIN organization_memberships m ON m.user_id = ue.user_id AND m.organization_id = :organizationId AND ${conditions.activeMembershipSql('m')}
        WHERE ue.email IN (:emails)`,
      { organizationId, emails },
    );
    for (const row of rows) byEmail.set(row.email, row.user_id);
  }

  const seen = new Map<string, string>();
  for (const s of subjects) {
    const userId = s.email ? byEmail.get(s.email) : undefined;
    if (userId && s.accountId) seen.set(s.accountId, userId);
  }
  if (seen.size) {
    const rows = [...seen].map(([account_id, user_id]) => ({ organization_id: organizationId, account_id, user_id, created_at: now }));
    await sql.insertIgnore('telemetry_accounts', ['organization_id', 'account_id', 'user_id', 'created_at'], rows);
  }

  const accounts = [...new Set(subjects.flatMap((s) => (s.accountId && !(s.email && byEmail.has(s.email)) && !seen.has(s.accountId) ? [s.accountId] : [])))];
  const byAccount = new Map(seen);
  if (accounts.length) {
    const rows = await sql.select<{ account_id: string; user_id: string }>(
      `SELECT a.account_id, a.user_id FROM telemetry_accounts a
         JOIN organization_memberships m ON m.user_id = a.user_id AND m.organization_id = a.organization_id AND ${conditions.activeMembershipSql('m')}
        WHERE a.organization_id = :organizationId AND a.account_id IN (:accounts)`,
      { organizationId, accounts },
    );
    for (const row of rows) byAccount.set(row.account_id, row.user_id);
  }
  return (s) => (s.email ? byEmail.get(s.email) : undefined) ?? (s.accountId ? byAccount.get(s.accountId) : undefined) ?? null;
}
