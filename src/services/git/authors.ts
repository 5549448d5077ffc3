import { Op, Transaction } from 'sequelize';
import { GitApp, MEMBERSHIP_STATUSES, OrganizationMembership, UserEmail, UserGitApp } from '../../../db/models';
import { normalizeEmail } from '../people/members';

/** Finds the organization's member behind an author: by e-mail, else by their user name bound to the git app. */
export interface AuthorDirectory {
  find(email: string | null, username: string | null): string | null;
}

/**
 * A few queries per kind of key for a whole delivery or import batch, not one per commit. An e-mail matches a
 * member of the git app's organization, suspended ones included (who wrote a commit does not change when they
 * leave), by their userName or by any other address their identity provider sent (`user_emails`).
 */
export async function authorDirectory(
  gitApp: GitApp,
  keys: { emails: (string | null)[]; usernames: (string | null)[] },
  transaction: Transaction,
): Promise<AuthorDirectory> {
  const emails = [...new Set(keys.emails.filter((e): e is string => !!e).map(normalizeEmail))];
  const usernames = [...new Set(keys.usernames.filter((u): u is string => !!u))];
  const byEmail = new Map<string, string>();
  const byUsername = new Map<string, string>();
  for (const chunk of chunks(emails)) {
    const rows = await OrganizationMembership.findAll({
      where: { organization_id: gitApp.organization_id, status: { [Op.in]: [...MEMBERSHIP_STATUSES] }, user_email: chunk },
      attributes: ['user_id', 'user_email'],
      transaction,
    });
    for (const r of rows) byEmail.set(r.user_email, r.user_id);
    await matchOtherAddresses(gitApp.organization_id, chunk.filter((e) => !byEmail.has(e)), byEmail, transaction);
  }
  for (const chunk of chunks(usernames)) {
    const rows = await UserGitApp.findAll({ where: { git_app_id: gitApp.id, username: chunk }, attributes: ['user_id', 'username'], transaction });
    for (const r of rows) byUsername.set(r.username, r.user_id);
  }
  return {
    find: (email, username) => (email && byEmail.get(normalizeEmail(email))) || (username && byUsername.get(username)) || null,
  };
}

/** Addresses that are no member's userName: a user's other addresses, kept when the user is a member here. */
async function matchOtherAddresses(organizationId: string, emails: string[], byEmail: Map<string, string>, transaction: Transaction): Promise<void> {
  if (emails.length === 0) return;
  const owners = await UserEmail.findAll({ where: { email: { [Op.in]: emails } }, attributes: ['user_id', 'email'], transaction });
  if (owners.length === 0) return;
  const members = await OrganizationMembership.findAll({
    where: { organization_id: organizationId, user_id: { [Op.in]: [...new Set(owners.map((o) => o.user_id))] } },
    attributes: ['user_id'],
    transaction,
  });
  const memberIds = new Set(members.map((m) => m.user_id));
  for (const o of owners) if (memberIds.has(o.user_id)) byEmail.set(o.email, o.user_id);
}

export function* chunks<T>(items: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
