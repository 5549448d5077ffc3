import { QueryTypes, Transaction } from 'sequelize';
import { PullRequest } from '../../../../db/models';

/**
 * Who reviewed a pull request and whether it was iterated (docs/metrics.md#ai-review-and-cost-figures), kept on the pull request from its activity
 * by the review and pull request writers, so that the collaboration figures read merged pull requests without their
 * activity: `iterated`, a commit pushed after it opened; `sole_reviewer_id`, the one person other than its author
 * who reviewed it, when exactly one known person did (knowledge silos): the members among its peer reviews
 * (peerReviews.ts).
 */
/** The statement for the pull requests `where` picks (the table's own name qualifies its columns, as SQLite needs). */
const refreshReviewersSql = (where: string) => `UPDATE pull_requests SET
    iterated = CASE WHEN EXISTS (SELECT 1 FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id AND a.kind = 'commit' AND a.created_at > pull_requests.created_at) THEN 1 ELSE 0 END,
    sole_reviewer_id = (SELECT CASE WHEN COUNT(DISTINCT a.actor_id) = 1 THEN MIN(a.actor_id) END FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id AND a.peer_review = 1 AND a.actor_id IS NOT NULL)
  WHERE ${where}`;

/**
 * One statement, so the pull request's row stays locked from the read of its activity to the commit: a review
 * stored at the same time waits, then reads this one (its subqueries read what was committed, on MariaDB).
 */
export async function refreshPullRequestReviewers(transaction: Transaction, pullRequestIds: string[]): Promise<void> {
  await PullRequest.sequelize!.query(refreshReviewersSql('pull_requests.id IN (:ids)'), { replacements: { ids: pullRequestIds }, transaction, type: QueryTypes.UPDATE });
}
