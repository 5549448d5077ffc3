import { createHash } from 'node:crypto';
import { GitApp, PullRequest, PullRequestActivity, Repository } from '../../../../db/models';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { PullRequestInput, ReviewActivityInput } from '../activity';
import { memberOfAccount } from '../authors';
import { noteUnmatched } from '../../people/unmatchedAccounts';
import { isPeerReview } from './peerReviews';
import { recordCodeReviews } from './codeReviews';
import { learnPullRequestAuthor, recordPullRequest } from './pullRequests';
import { COMMIT_ACTIVITY_PREFIX } from '../rollups/pullRequestAi';
import { completeSha, sameCommit } from '../commits/abbreviatedShas';
import type { Transaction } from 'sequelize';
import { refreshPullRequestBeforeCommit } from '../rollups/pullRequestRollups';
import type { Applied } from '../recordIfNewer';
import { storedLogin } from '../text';
import { botsOf } from './botRows';
import { addWorkDays } from '../../activity/memberActiveYears';

/** What `external_id` holds (VARCHAR(120)). */
const EXTERNAL_ID_LENGTH = 120;

/**
 * A provider's id as stored: itself, or, past what the column holds (a GitLab approval is named by the user's name,
 * which may be long), its SHA-256, which names it as exactly.
 */
const storedExternalId = (id: string) => (id.length <= EXTERNAL_ID_LENGTH ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`);

/**
 * A new head is pushed commits; a head unknown before (the pull request not stored, or stored without one) tells
 * nothing: an edit of a pull request whose commits were never seen is no push.
 */
const headMoved = (before: string | null, after: string | null) => before !== null && after !== null && !sameCommit(before, after);

/** A pushed commit's activity names it in full once its commit is stored (Bitbucket's names are abbreviated). */
async function completedCommitId(transaction: Transaction, repositoryId: string, input: ReviewActivityInput): Promise<string> {
  if (input.kind !== 'commit' || !input.externalId.startsWith(COMMIT_ACTIVITY_PREFIX)) return input.externalId;
  return COMMIT_ACTIVITY_PREFIX + (await completeSha(transaction, repositoryId, input.externalId.slice(COMMIT_ACTIVITY_PREFIX.length)));
}

export interface ReviewRecorded {
  pullRequest: Applied;
  activity: 'created' | 'unchanged';
}

/**
 * A review, approval, comment or pushed commit on a pull request (docs/metrics.md#ai-review-and-cost-figures): the pull request first, as the
 * delivery shows it (or, from a view that cannot tell its state, only when none is stored yet), then the activity,
 * once per provider id: a redelivery, or the same review brought by two events, adds nothing. A peer review between
 * members is also a `code_review` interaction (codeReviews.ts), in the same change.
 */
export async function recordReview(
  change: Change,
  gitApp: GitApp,
  repository: Repository,
  pullRequest: PullRequestInput,
  current: boolean,
  input: ReviewActivityInput,
): Promise<ReviewRecorded> {
  const { transaction } = change;
  const find = () => PullRequest.findOne({ where: { repository_id: repository.id, number: pullRequest.number }, transaction });
  const headBefore = input.onlyIfHeadMoved ? ((await find())?.head_sha ?? null) : null;
  const found = current ? null : await find();
  if (found) await learnPullRequestAuthor(change, gitApp, found, pullRequest);
  const { applied, row: stored }: { applied: Applied; row: PullRequest } = found ? { applied: 'unchanged', row: found } : await recordPullRequest(change, gitApp, repository, pullRequest);

  if (input.onlyIfHeadMoved && !headMoved(headBefore, pullRequest.commits.head)) return { pullRequest: applied, activity: 'unchanged' };
  const key = { pull_request_id: stored.id, external_id: storedExternalId(await completedCommitId(transaction, repository.id, input)) };
  if (await PullRequestActivity.findOne({ where: key, attributes: ['id'], transaction })) return { pullRequest: applied, activity: 'unchanged' };
  const actorId = await memberOfAccount(change, gitApp, input.actorUsername);
  const peerReview = isPeerReview(input.kind, { memberId: actorId, providerId: input.actorProviderId }, { memberId: stored.author_id, providerId: stored.author_provider_id });
  // A bot's review, or any on a bot's pull request, is a bot's (db/rollups/botAccounts.ts).
  const bot = (await botsOf(change, gitApp.organization_id)).of(input.actorUsername) | stored.bot;
  const activity = await PullRequestActivity.create(
    {
      id: newId('pra'),
      ...key,
      repository_id: repository.id,
      git_app_id: gitApp.id,
      organization_id: gitApp.organization_id,
      kind: input.kind,
      actor_id: actorId,
      actor_provider_id: input.actorProviderId,
      actor_login: storedLogin(input.actorUsername),
      bot,
      pull_request_author_id: stored.author_id,
      peer_review: peerReview,
      created_at: input.createdAt,
    },
    { transaction },
  );
  change.wrote('pull_request_activities');
  addWorkDays(change, gitApp.organization_id, [{ userId: actorId, at: input.createdAt }]);
  // A commit pushed to it counts with the commits; the rest is review.
  if (!actorId && input.kind !== 'commit') await noteUnmatched(transaction, { id: gitApp.id, organizationId: gitApp.organization_id }, 'review', [{ account: input.actorUsername, at: input.createdAt }]);
  // A review by someone other than the author (peerReviews.ts) moves its first review (an approval, its first approval) earlier.
  const firstReview = peerReview ? { at: input.createdAt, approval: input.kind === 'approved' } : undefined;
  refreshPullRequestBeforeCommit(change, stored.id, { activity: true, commits: input.kind === 'commit', firstReview });
  if (peerReview) recordCodeReviews(change, gitApp.provider, [activity]);
  return { pullRequest: applied, activity: 'created' };
}
