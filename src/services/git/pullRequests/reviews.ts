import { createHash } from 'node:crypto';
import { GitApp, PullRequest, PullRequestActivity, Repository } from '../../../../db/models';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { ReviewActivityInput } from '../activity';
import { memberOfAccount } from '../authors';
import { noteUnmatched } from '../../people/unmatchedAccounts';
import { isPeerReview } from './peerReviews';
import { recordCodeReviews } from './codeReviews';
import { placePullRequests, PullRequestView } from './pullRequests';
import { COMMIT_ACTIVITY_PREFIX } from '../rollups/pullRequestAi';
import { fullNames, sameCommit } from '../commits/abbreviatedShas';
import type { InferCreationAttributes, Transaction } from 'sequelize';
import { refreshPullRequestBeforeCommit } from '../rollups/pullRequestRollups';
import type { Applied } from '../recordIfNewer';
import { storedLogin } from '../text';
import { botsOf } from './botRows';
import { addWorkDays } from '../../activity/memberActiveYears';
import { chunks } from '../../people/memberEmails';
import { ChangeSql } from '../../../persistence/changes/changeSql';

/** A new activity's columns, as activityRow makes them. */
const ACTIVITY_COLUMNS = [
  'id', 'pull_request_id', 'external_id', 'repository_id', 'git_app_id', 'organization_id', 'kind', 'actor_id', 'actor_provider_id', 'actor_login', 'bot', 'pull_request_author_id', 'peer_review', 'created_at',
] as const satisfies readonly (keyof InferCreationAttributes<PullRequestActivity>)[];
/** A new activity's row: a column activityRow fills and the list leaves out is a compile error, not a value dropped. */
type ActivityRow = Pick<InferCreationAttributes<PullRequestActivity>, (typeof ACTIVITY_COLUMNS)[number]>;

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
const commitNamed = (input: ReviewActivityInput): string | null => (input.kind === 'commit' && input.externalId.startsWith(COMMIT_ACTIVITY_PREFIX) ? input.externalId.slice(COMMIT_ACTIVITY_PREFIX.length) : null);

/** What an item changed: its pull request, and its review when it brings one. */
export interface PullRequestItemRecorded {
  pullRequest: Applied;
  review?: 'created' | 'unchanged';
}

/** A pull request as a delivery or a page of history brings it, alone or with a review of it. */
export interface PullRequestItem extends PullRequestView {
  review?: ReviewActivityInput;
}

type Judged = Pick<PullRequestActivity, 'id' | 'organization_id' | 'actor_id' | 'pull_request_author_id' | 'peer_review' | 'created_at'>;

/**
 * Pull requests, and reviews, approvals, comments or pushed commits on them (docs/metrics.md#ai-review-and-cost-figures),
 * of one repository in the order given: each item's pull request first, as its view shows it (placePullRequests),
 * then the activities, once per provider id: a redelivery, or the same review brought by two events, adds nothing. A
 * peer review between members is also a `code_review` interaction (codeReviews.ts), in the same change. A page of
 * history stores its run of them together: the pull requests placed at once, the activities looked for and inserted
 * in a statement or two, what each review keeps judged with its pull request as the run left it (a view later in the
 * run that names the author judges the earlier reviews too).
 */
export async function recordPullRequestItems(change: Change, gitApp: GitApp, repository: Repository, items: PullRequestItem[]): Promise<PullRequestItemRecorded[]> {
  const { transaction } = change;
  const placed = await placePullRequests(change, gitApp, repository, items);
  const full = await fullNames(transaction, repository.id, items.map((i) => (i.review ? commitNamed(i.review) : null)));
  const keyed: { index: number; row: PullRequest; review: ReviewActivityInput; key: { pull_request_id: string; external_id: string } }[] = [];
  for (const [index, { review, pullRequest }] of items.entries()) {
    const { row, headBefore } = placed[index];
    // A push seen only as its pull request's new head is activity only when the head moved.
    if (!review || (review.onlyIfHeadMoved && !headMoved(headBefore, pullRequest.commits.head))) continue;
    const named = commitNamed(review);
    keyed.push({ index, row, review, key: { pull_request_id: row.id, external_id: storedExternalId(named === null ? review.externalId : COMMIT_ACTIVITY_PREFIX + full(named)) } });
  }
  const stored = await storedKeys(transaction, keyed.map((k) => k.key));
  const created: { row: PullRequest; input: ReviewActivityInput; activity: ActivityRow }[] = [];
  const recorded = items.map(({ review }, index): PullRequestItemRecorded => ({ pullRequest: placed[index].applied, ...(review ? { review: 'unchanged' as const } : {}) }));
  for (const { index, row, review, key } of keyed) {
    const name = `${key.pull_request_id}\u0000${key.external_id}`;
    if (stored.has(name)) continue;
    stored.add(name);
    created.push({ row, input: review, activity: await activityRow(change, gitApp, repository, row, key, review) });
    recorded[index].review = 'created';
  }
  if (created.length) await keepActivity(change, gitApp, created);
  return recorded;
}

/** Those of the keys already stored, as `pull_request_id NUL external_id` (external ids compare as stored: in binary). */
async function storedKeys(transaction: Transaction, keys: { pull_request_id: string; external_id: string }[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (const chunk of chunks(keys)) {
    const where = { pull_request_id: [...new Set(chunk.map((k) => k.pull_request_id))], external_id: [...new Set(chunk.map((k) => k.external_id))] };
    for (const a of await PullRequestActivity.findAll({ where, attributes: ['pull_request_id', 'external_id'], transaction })) stored.add(`${a.pull_request_id}\u0000${a.external_id}`);
  }
  return stored;
}

/** A new activity's row, judged with its pull request as it stands: who acted, whether a bot's, whether a peer review. */
async function activityRow(change: Change, gitApp: GitApp, repository: Repository, row: PullRequest, key: { pull_request_id: string; external_id: string }, input: ReviewActivityInput): Promise<ActivityRow> {
  const actorId = await memberOfAccount(change, gitApp, input.actorUsername);
  // A bot's review, or any on a bot's pull request, is a bot's (db/rollups/botAccounts.ts).
  const bot = (await botsOf(change, gitApp.organization_id)).of(input.actorUsername) | row.bot;
  return {
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
    pull_request_author_id: row.author_id,
    peer_review: isPeerReview(input.kind, { memberId: actorId, providerId: input.actorProviderId }, { memberId: row.author_id, providerId: row.author_provider_id }),
    created_at: input.createdAt,
  };
}

/** The new activities inserted, and what is kept beside them: the actors' days, the accounts no member is bound to, the pull requests' rollups and first reviews, the code reviews. */
async function keepActivity(change: Change, gitApp: GitApp, created: { row: PullRequest; input: ReviewActivityInput; activity: ActivityRow }[]): Promise<void> {
  const { transaction } = change;
  // As plain rows: a page's hundreds need no model instances, and their times no formatting through moment.
  await new ChangeSql(transaction).insert('pull_request_activities', ACTIVITY_COLUMNS, created.map((c) => c.activity));
  change.wrote('pull_request_activities');
  addWorkDays(change, gitApp.organization_id, created.map(({ activity }) => ({ userId: activity.actor_id ?? null, at: activity.created_at })));
  // A commit pushed to it counts with the commits; the rest is review.
  const unmatched = created.filter(({ activity, input }) => !activity.actor_id && input.kind !== 'commit').map(({ input }) => ({ account: input.actorUsername, at: input.createdAt }));
  if (unmatched.length) await noteUnmatched(transaction, { id: gitApp.id, organizationId: gitApp.organization_id }, 'review', unmatched);
  const peerReviews: Judged[] = [];
  for (const { row, input, activity } of created) {
    // A review by someone other than the author (peerReviews.ts) moves its first review (an approval, its first approval) earlier.
    const firstReview = activity.peer_review ? { at: input.createdAt, approval: input.kind === 'approved' } : undefined;
    refreshPullRequestBeforeCommit(change, row.id, { activity: true, commits: input.kind === 'commit', firstReview });
    if (activity.peer_review) peerReviews.push({ id: activity.id, organization_id: activity.organization_id, actor_id: activity.actor_id ?? null, pull_request_author_id: activity.pull_request_author_id ?? null, peer_review: true, created_at: activity.created_at });
  }
  recordCodeReviews(change, gitApp.provider, peerReviews);
}
