import { Transaction } from 'sequelize';
import { GitApp, UserGitApp } from '../../../db/models';
import { normalizeEmail } from '../people/members';
import { chunks, membersByEmail } from '../people/memberEmails';

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
  const byUsername = new Map<string, string>();
  const byEmail = await membersByEmail(gitApp.organization_id, emails, transaction);
  for (const chunk of chunks(usernames)) {
    const rows = await UserGitApp.findAll({ where: { git_app_id: gitApp.id, username: chunk }, attributes: ['user_id', 'username'], transaction });
    for (const r of rows) byUsername.set(r.username, r.user_id);
  }
  return {
    find: (email, username) => (email && byEmail.get(normalizeEmail(email))) || (username && byUsername.get(username)) || null,
  };
}
