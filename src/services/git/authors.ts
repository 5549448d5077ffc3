import { Op, Transaction } from 'sequelize';
import { GitApp, UserGitApp } from '../../../db/models';
import { Change, perChange } from '../../persistence/changes/change';
import { normalizeEmail } from '../people/members';
import { chunks, membersByEmail } from '../people/memberEmails';

/** Finds the organization's member behind an author: by e-mail, else by their user name bound to the git app. */
export interface AuthorDirectory {
  find(email: string | null, username: string | null): string | null;
  /** The member an e-mail alone names. */
  byEmail(email: string | null): string | null;
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
  const memberOf = (email: string | null) => (email && byEmail.get(normalizeEmail(email))) || null;
  return {
    find: (email, username) => memberOf(email) || (username && byUsername.get(username)) || null,
    byEmail: memberOf,
  };
}

const accountsOf = perChange(() => new Map<string, Promise<string | null>>());
const accountKey = (gitApp: GitApp, username: string) => `${gitApp.id}\u0000${username}`;

/**
 * The member an account of the git app is bound to, read once per change and account however many pull requests and
 * reviews of the change name it (a page of history names a few people hundreds of times). A binding the change's
 * own commits teach (learnAccounts) is read again after it.
 */
export function memberOfAccount(change: Change, gitApp: GitApp, username: string | null): Promise<string | null> {
  if (!username) return Promise.resolve(null);
  const known = accountsOf(change);
  const key = accountKey(gitApp, username);
  let member = known.get(key);
  if (!member) {
    // The name as given, as authorDirectory matches it: MariaDB's collation would also match it in another case.
    member = UserGitApp.findOne({ where: { git_app_id: gitApp.id, username }, attributes: ['user_id', 'username'], transaction: change.transaction }).then((row) => (row?.username === username ? row.user_id : null));
    known.set(key, member);
  }
  return member;
}

/**
 * The members behind the accounts a page names, read in one statement per 500 for those the change has not read yet,
 * so that memberOfAccount finds them all: a page of a hundred reviews by forty people reads them once, not forty times.
 */
export async function knowAccounts(change: Change, gitApp: GitApp, usernames: (string | null)[]): Promise<void> {
  const known = accountsOf(change);
  const unknown = [...new Set(usernames.filter((u): u is string => !!u && !known.has(accountKey(gitApp, u))))];
  for (const chunk of chunks(unknown)) {
    const found = new Map<string, string>();
    const rows = await UserGitApp.findAll({ where: { git_app_id: gitApp.id, username: chunk }, attributes: ['user_id', 'username'], transaction: change.transaction });
    // Matched as given, as memberOfAccount matches: the collation also returns a name in another case.
    for (const row of rows) found.set(row.username, row.user_id);
    for (const username of chunk) known.set(accountKey(gitApp, username), Promise.resolve(found.get(username) ?? null));
  }
}

/**
 * The provider's accounts of members, learnt from their commits: when a push names the account the provider matched
 * to a commit's e-mail (GitHub's `author.username`, Bitbucket's `author.user`) and that e-mail is a member's, the
 * account is theirs on this git app (`/v1/users/{id}/git/apps`), and finds them on pull requests and reviews, which
 * name accounts only. A member keeps the account first learnt, and an account bound to someone stays theirs.
 */
export async function learnAccounts(change: Change, gitApp: GitApp, commits: { email: string | null; username: string | null }[], authors: AuthorDirectory): Promise<void> {
  const { transaction } = change;
  const learnt = new Map<string, string>();
  const members = new Set<string>();
  for (const c of commits) {
    const userId = authors.byEmail(c.email);
    if (!userId || !c.username || learnt.has(c.username) || members.has(userId)) continue;
    learnt.set(c.username, userId);
    members.add(userId);
  }
  if (learnt.size === 0) return;
  for (const username of learnt.keys()) accountsOf(change).delete(accountKey(gitApp, username));
  const bound = await UserGitApp.findAll({
    where: { git_app_id: gitApp.id, [Op.or]: [{ username: [...learnt.keys()] }, { user_id: [...learnt.values()] }] },
    attributes: ['user_id', 'username'],
    transaction,
  });
  const taken = new Set(bound.flatMap((b) => [`u:${b.username}`, `m:${b.user_id}`]));
  const rows = [...learnt].filter(([username, userId]) => !taken.has(`u:${username}`) && !taken.has(`m:${userId}`));
  if (rows.length === 0) return;
  await UserGitApp.bulkCreate(rows.map(([username, user_id]) => ({ user_id, git_app_id: gitApp.id, username, created_at: new Date() })), { ignoreDuplicates: true, transaction });
  change.wrote('user_git_apps');
}
