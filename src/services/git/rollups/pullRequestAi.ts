import { QueryTypes, Transaction } from 'sequelize';
import { PullRequest } from '../../../../db/models';
import { refreshPullRequestSamples } from './pullRequestSamples';
import { aiCommitRuleSql } from '../../../../db/rollups/aiEvidence';

/**
 * Whether one of a pull request's commits is AI-assisted (it has evidence: aiEvidence.ts; docs/metrics.md#ai-review-and-cost-figures: its head, the commit that merged it, or one
 * pushed while it was open), kept on the pull request (`has_ai_commit`) so that AI impact and financial figures
 * read a year of merged pull requests without a lookup of their commits each (seconds a year on the large data).
 * Recomputed, not only raised, for the pull requests a change may concern: a moved head may leave none.
 */
export const aiCommitSql = (c: string) => aiCommitRuleSql('evidence', c);

/** The commit activity's id names the pushed commit: `commit:<sha>`. */
export const COMMIT_ACTIVITY_PREFIX = 'commit:';

const hasAiCommitSql = (p: string) => `(EXISTS (SELECT 1 FROM commits c WHERE c.repository_id = ${p}.repository_id AND c.sha IN (${p}.head_sha, ${p}.merge_commit_sha) AND ${aiCommitSql('c')})
    OR EXISTS (SELECT 1 FROM pull_request_activities a JOIN commits c ON c.repository_id = a.repository_id AND c.sha = SUBSTR(a.external_id, ${COMMIT_ACTIVITY_PREFIX.length + 1})
      WHERE a.pull_request_id = ${p}.id AND a.kind = 'commit' AND ${aiCommitSql('c')}))`;

/** Sets the flag of the pull requests `where` picks (alias `p`) from their commits as stored; all of them without one. */
export async function refreshAiCommits(transaction: Transaction | null, where = '1 = 1', replacements: Record<string, unknown> = {}): Promise<void> {
  await PullRequest.sequelize!.query(`UPDATE pull_requests AS p SET has_ai_commit = CASE WHEN ${hasAiCommitSql('p')} THEN 1 ELSE 0 END WHERE ${where}`, {
    replacements,
    transaction,
    type: QueryTypes.UPDATE,
  });
}

/** The repository's pull requests that carry one of these commits, found on their indexes. */
export async function pullRequestsOfCommits(transaction: Transaction, repositoryId: string, shas: string[]): Promise<string[]> {
  if (shas.length === 0) return [];
  const rows = await PullRequest.sequelize!.query<{ id: string }>(
    `SELECT id FROM pull_requests WHERE repository_id = :repositoryId AND head_sha IN (:shas)
     UNION SELECT id FROM pull_requests WHERE repository_id = :repositoryId AND merge_commit_sha IN (:shas)
     UNION SELECT pull_request_id AS id FROM pull_request_activities WHERE repository_id = :repositoryId AND external_id IN (:activityIds) AND kind = 'commit'`,
    { replacements: { repositoryId, shas, activityIds: shas.map((sha) => COMMIT_ACTIVITY_PREFIX + sha) }, transaction, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}

/** The pull requests that carry one of these commits (become AI-assisted, or no longer), and what is measured on them split by it. */
export async function refreshPullRequestsOfCommits(transaction: Transaction, repositoryId: string, shas: string[]): Promise<void> {
  const ids = await pullRequestsOfCommits(transaction, repositoryId, shas);
  if (ids.length === 0) return;
  await refreshAiCommits(transaction, 'p.id IN (:ids)', { ids });
  await refreshPullRequestSamples(transaction, ids);
}
