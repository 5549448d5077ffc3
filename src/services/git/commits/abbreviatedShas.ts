import { QueryTypes, Transaction } from 'sequelize';
import { Commit, PullRequest, PullRequestActivity } from '../../../../db/models';
import type { Change } from '../../../persistence/changes/change';
import { COMMIT_ACTIVITY_PREFIX } from '../rollups/pullRequestAi';
import { chunks } from '../../people/memberEmails';

/**
 * Bitbucket names a pull request's head and merge commits by their first 12 hex digits. Such a name is completed
 * from the repository's commits when one of them starts with it; until its commit arrives it is kept as given
 * (docs/ingest.md#bitbucket-cloud), and completed by the push that brings it (completeAbbreviatedShas).
 */
export const isAbbreviated = (sha: string) => sha.length < 40;

/** How long Bitbucket's names are: a stored name of that length is completed by a commit that starts with it. */
const BITBUCKET_ABBREVIATION = 12;

/** A commit's name as stored: completed where it was abbreviated and one commit starts with it, else as given. */
export type FullName = { (sha: string): string; (sha: string | null): string | null };

/**
 * How the repository's commits complete these names (a page's pull requests and pushed commits), read in one statement
 * per 100: each name's first two commits on a range of (repository_id, sha) (hex digits sort below 'g'); one is the
 * commit it names, two that it names none for sure.
 */
export async function fullNames(transaction: Transaction, repositoryId: string, shas: (string | null)[]): Promise<FullName> {
  const abbreviated = [...new Set(shas.filter((sha): sha is string => sha !== null && isAbbreviated(sha)))];
  const matches = new Map<string, string[]>();
  for (const names of chunks(abbreviated, 100)) {
    const replacements: Record<string, string> = { repositoryId };
    const selects = names.map((name, i) => {
      Object.assign(replacements, { [`from${i}`]: name, [`to${i}`]: `${name}g` });
      return `SELECT :from${i} AS name, sha FROM (SELECT sha FROM commits WHERE repository_id = :repositoryId AND sha >= :from${i} AND sha < :to${i} LIMIT 2) c${i}`;
    });
    const rows = await Commit.sequelize!.query<{ name: string; sha: string }>(selects.join(' UNION ALL '), { type: QueryTypes.SELECT, replacements, transaction });
    for (const { name, sha } of rows) matches.set(name, [...(matches.get(name) ?? []), sha]);
  }
  function full(sha: string): string;
  function full(sha: string | null): string | null;
  function full(sha: string | null): string | null {
    const found = sha === null ? undefined : matches.get(sha);
    return found?.length === 1 ? found[0] : sha;
  }
  return full;
}

/** Whether two names, either abbreviated, name the same commit. */
export const sameCommit = (a: string | null, b: string | null) => a !== null && b !== null && (a.startsWith(b) || b.startsWith(a));

/**
 * Pull requests and pushed-commit activity that name these new commits by Bitbucket's abbreviation now name them in
 * full, so that what reads them by sha (AI marks, lead times) finds them. Reads on the (repository, sha) indexes.
 */
export async function completeAbbreviatedShas(change: Change, repositoryId: string, shas: string[]): Promise<void> {
  const { transaction } = change;
  const full = new Map(shas.map((sha) => [sha.slice(0, BITBUCKET_ABBREVIATION), sha]));
  const prefixes = [...full.keys()];
  for (const column of ['head_sha', 'merge_commit_sha'] as const) {
    const rows = await PullRequest.findAll({ where: { repository_id: repositoryId, [column]: prefixes }, attributes: ['id', column], transaction });
    for (const row of rows) await PullRequest.update({ [column]: full.get(row[column]!) }, { where: { id: row.id }, transaction });
    // Not in the item, but AI impact reads them: the table's version moves like for any other change.
    if (rows.length) change.wrote('pull_requests');
  }
  const activityIds = prefixes.map((p) => COMMIT_ACTIVITY_PREFIX + p);
  const activities = await PullRequestActivity.findAll({ where: { repository_id: repositoryId, external_id: activityIds, kind: 'commit' }, attributes: ['id', 'external_id'], transaction });
  for (const a of activities) {
    const sha = full.get(a.external_id.slice(COMMIT_ACTIVITY_PREFIX.length))!;
    await PullRequestActivity.update({ external_id: COMMIT_ACTIVITY_PREFIX + sha }, { where: { id: a.id }, transaction });
  }
  if (activities.length) change.wrote('pull_request_activities');
}
