import { Op } from 'sequelize';
import { GitApp, PullRequestActivity } from '../../../../db/models';
import { Change, perChange } from '../../../persistence/changes/change';
import { InteractionInput, recordInteractions } from '../../activity/interactions';

type Judged = Pick<PullRequestActivity, 'id' | 'organization_id' | 'actor_id' | 'pull_request_author_id' | 'peer_review' | 'created_at'>;

const pendingOf = perChange((change) => {
  const reviews: InteractionInput[] = [];
  change.beforeCommit(async () => void (await recordInteractions(change, reviews)));
  return reviews;
});

/**
 * Each peer review (a review action by someone other than the author, peerReviews.ts) between two members is a
 * `code_review` interaction, reviewer → author (docs/metrics.md#pull-requests-flow-and-activity), at the activity's
 * time. Its ref names the activity, so an activity judged again (its author learnt later) is recorded once. No team:
 * a repository is mapped to none (a team's repositories are read from its members' commits at query time), so it
 * counts for the organization and is listed as the reviewer's. Recorded together when the change's steps are done
 * (nothing else in it reads them): a page of history with a hundred reviews records them in one go.
 */
export function recordCodeReviews(change: Change, provider: string, activities: Judged[]): void {
  const pending = pendingOf(change);
  for (const a of activities) {
    if (a.peer_review && a.actor_id && a.pull_request_author_id) {
      pending.push({ organizationId: a.organization_id, type: 'code_review', source: provider, userId: a.actor_id, counterpartId: a.pull_request_author_id, teamId: null, at: a.created_at, ref: `review:${a.id}` });
    }
  }
}

/** After a pull request's activity was judged again: the peer reviews between members it now holds. */
export async function recordPullRequestCodeReviews(change: Change, pullRequestId: string): Promise<void> {
  const { transaction } = change;
  const activities = await PullRequestActivity.findAll({
    where: { pull_request_id: pullRequestId, peer_review: true, actor_id: { [Op.ne]: null }, pull_request_author_id: { [Op.ne]: null } },
    attributes: ['id', 'git_app_id', 'organization_id', 'actor_id', 'pull_request_author_id', 'peer_review', 'created_at'],
    transaction,
  });
  if (activities.length === 0) return;
  const gitApp = await GitApp.findByPk(activities[0].git_app_id, { attributes: ['provider'], transaction });
  if (gitApp) recordCodeReviews(change, gitApp.provider, activities);
}
