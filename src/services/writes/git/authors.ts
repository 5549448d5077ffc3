import { Op, Transaction } from 'sequelize';
import { GitApp, MEMBERSHIP_STATUSES, OrganizationMembership, UserGitApp } from '../../../../db/models';
import { normalizeEmail } from '../members';

/** Finds the organization's member behind an author: by e-mail, else by their user name bound to the git app. */
export interface AuthorDirectory {
  find(email: string | null, username: string | null): string | null;
}

/**
 * One query per kind of key for a whole delivery or import batch, not one per commit. E-mail matches any
 * membership of the git app's organization, suspended ones included: who wrote a commit does not change when
 * they leave.
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
  }
  for (const chunk of chunks(usernames)) {
    const rows = await UserGitApp.findAll({ where: { git_app_id: gitApp.id, username: chunk }, attributes: ['user_id', 'username'], transaction });
    for (const r of rows) byUsername.set(r.username, r.user_id);
  }
  return {
    find: (email, username) => (email && byEmail.get(normalizeEmail(email))) || (username && byUsername.get(username)) || null,
  };
}

export function* chunks<T>(items: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
