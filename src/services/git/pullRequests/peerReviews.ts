import { QueryTypes } from 'sequelize';
import { PullRequest } from '../../../../db/models';
import type { Change } from '../../../persistence/changes/change';
import type { ReviewActivityKind } from '../activity';
import { refreshPullRequestBeforeCommit } from '../rollups/pullRequestRollups';
import { recordPullRequestCodeReviews } from './codeReviews';

/**
 * Who is "someone other than the author" (docs/metrics.md#ai-review-and-cost-figures), one rule for the review writer (in code) and for what it
 * recomputes (in SQL over an activity `a` and its pull request `p`). A person on a pull request is known by the
 * provider's own id of them (GitHub's user id, GitLab's user id: every delivery names both people by it) and, when
 * their provider user name is bound to the git app, as a member. The actor is the author when the provider names
 * both by the same id, or when both are members and the same one; a review action by anyone else is a peer
 * review. A pushed commit never is.
 */
export interface Person {
  memberId: string | null;
  providerId: string | null;
}

const samePerson = (actor: Person, author: Person) =>
  (actor.providerId !== null && actor.providerId === author.providerId) || (actor.memberId !== null && actor.memberId === author.memberId);

export const isPeerReview = (kind: ReviewActivityKind, actor: Person, author: Person) => kind !== 'commit' && !samePerson(actor, author);

const bothAndEqual = (x: string, y: string) => `(${x} IS NOT NULL AND ${y} IS NOT NULL AND ${x} = ${y})`;

export const peerReviewSql = (a: string, p: string) =>
  `(${a}.kind <> 'commit' AND NOT (${bothAndEqual(`${a}.actor_provider_id`, `${p}.author_provider_id`)} OR ${bothAndEqual(`${a}.actor_id`, `${p}.author_id`)}))`;

/**
 * After a pull request's author became known (a later delivery named them): each of its activities is judged again,
 * and what is kept from them follows, its first review and approval, its reviewers, its measures and its
 * `code_review` interactions. The review figures read the activity table, whose version this change raises.
 */
export async function rejudgePullRequestReviews(change: Change, pullRequestId: string): Promise<void> {
  const { transaction } = change;
  const run = (sql: string) => PullRequest.sequelize!.query(sql, { replacements: { id: pullRequestId }, transaction, type: QueryTypes.UPDATE });
  await run(
    `UPDATE pull_request_activities SET
       pull_request_author_id = (SELECT p.author_id FROM pull_requests p WHERE p.id = pull_request_activities.pull_request_id),
       peer_review = CASE WHEN EXISTS (SELECT 1 FROM pull_requests p WHERE p.id = pull_request_activities.pull_request_id AND ${peerReviewSql('pull_request_activities', 'p')}) THEN 1 ELSE 0 END
     WHERE pull_request_id = :id`,
  );
  await run(
    `UPDATE pull_requests SET
       first_review_at = (SELECT MIN(a.created_at) FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id AND a.peer_review = 1),
       first_approval_at = (SELECT MIN(a.created_at) FROM pull_request_activities a WHERE a.pull_request_id = pull_requests.id AND a.peer_review = 1 AND a.kind = 'approved')
     WHERE id = :id`,
  );
  change.wrote('pull_request_activities');
  refreshPullRequestBeforeCommit(change, pullRequestId, { activity: true, firstReviewsRecounted: true });
  // Peer reviews whose author is known only now become interactions; those recorded before are not again.
  await recordPullRequestCodeReviews(change, pullRequestId);
}
