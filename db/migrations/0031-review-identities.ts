import { DataTypes, QueryInterface } from 'sequelize';
import { fillPullRequestMonths, fillPullRequestSamples } from '../rollups/pullRequests';
import { dropColumn } from './0004-write-path';

/**
 * "Someone other than the author" (docs/metrics.md#ai-review-and-cost-figures) decided by who the provider says both people are: the pull request
 * keeps the provider's id of its author (`author_provider_id`: GitHub's or GitLab's user id), each activity the id
 * of who acted (`actor_provider_id`). Before, an activity was a peer review whenever the author or the actor was no
 * matched member, so an unmatched author's own comments and approvals counted as review.
 *
 * Rows stored before this carry no provider id (deliveries are not kept), so here they are judged by the member
 * match alone, as the review writer now judges them (src/services/git/pullRequests/peerReviews.ts, whose rule is written out
 * again below so that this migration keeps meaning what it meant when it ran), and everything built on that is
 * computed again: which activity is a peer review and whose pull request it reviewed, each pull request's first
 * review and approval and its sole reviewer, and the merged pull requests' samples with their daily and monthly
 * counts. A later delivery on a pull request stored before names its author, and its activity is judged again then.
 * Every step recomputes from the stored rows: run again after failing halfway, it ends where one run does.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const providerId = { type: DataTypes.STRING(100), allowNull: true };
  await qi.addColumn('pull_requests', 'author_provider_id', providerId);
  await qi.addColumn('pull_request_activities', 'actor_provider_id', providerId);
  await judgePeerReviews(qi);
}

const bothAndEqual = (x: string, y: string) => `(${x} IS NOT NULL AND ${y} IS NOT NULL AND ${x} = ${y})`;

/** From the stored pull requests and activity. */
export async function judgePeerReviews(qi: QueryInterface): Promise<void> {
  const a = 'pull_request_activities';
  const theAuthors = `${bothAndEqual(`${a}.actor_provider_id`, 'p.author_provider_id')} OR ${bothAndEqual(`${a}.actor_id`, 'p.author_id')}`;
  await qi.sequelize.query(
    `UPDATE ${a} SET
       pull_request_author_id = (SELECT p.author_id FROM pull_requests p WHERE p.id = ${a}.pull_request_id),
       peer_review = CASE WHEN ${a}.kind <> 'commit' AND NOT EXISTS (SELECT 1 FROM pull_requests p WHERE p.id = ${a}.pull_request_id AND (${theAuthors})) THEN 1 ELSE 0 END`,
  );
  const first = (kinds: string) => `(SELECT MIN(a.created_at) FROM ${a} a WHERE a.pull_request_id = pull_requests.id AND a.peer_review = 1${kinds})`;
  await qi.sequelize.query(
    `UPDATE pull_requests SET
       first_review_at = ${first('')},
       first_approval_at = ${first(" AND a.kind = 'approved'")},
       sole_reviewer_id = (SELECT CASE WHEN COUNT(DISTINCT a.actor_id) = 1 THEN MIN(a.actor_id) END FROM ${a} a WHERE a.pull_request_id = pull_requests.id AND a.peer_review = 1 AND a.actor_id IS NOT NULL)
     WHERE EXISTS (SELECT 1 FROM ${a} a WHERE a.pull_request_id = pull_requests.id)`,
  );
  await fillPullRequestSamples(qi);
  await fillPullRequestMonths(qi);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'pull_request_activities', 'actor_provider_id');
  await dropColumn(qi, 'pull_requests', 'author_provider_id');
}
