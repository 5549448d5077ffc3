import { GitApp, PullRequest, Repository } from '../../../../db/models';
import { toPullRequest } from '../../../resources/git';
import type { EventType } from '../../../persistence/changes/events';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { PullRequestInput, PullRequestState } from '../activity';
import { memberOfAccount } from '../authors';
import { noteUnmatched } from '../../people/unmatchedAccounts';
import { FullName, fullNames } from '../commits/abbreviatedShas';
import { clip, LIMITS, storedLogin } from '../text';
import { hasAiMarker } from '../../../../db/rollups/aiMarkers';
import { rejudgePullRequestReviews } from './peerReviews';
import { refreshPullRequestBeforeCommit } from '../rollups/pullRequestRollups';
import { Applied, olderThanStored, recordIfNewer, sameTime } from '../recordIfNewer';
import { botsOf, refreshActivityBots } from './botRows';
import { addWorkDays, recountMemberActiveYears } from '../../activity/memberActiveYears';
import { chunks } from '../../people/memberEmails';
import type { CreationAttributes, Transaction } from 'sequelize';

const EVENT_OF_STATE: Record<PullRequestState, EventType> = {
  open: 'pull_request.opened',
  merged: 'pull_request.merged',
  closed: 'pull_request.closed',
};

/** A view of a pull request as an item brings it. */
export interface PullRequestView {
  pullRequest: PullRequestInput;
  /** Whether the view tells the pull request's state (an issue comment's, a GitLab note's do not). */
  current: boolean;
}

/** A view's pull request as stored after it, and the head it had before. */
export interface Placed {
  applied: Applied;
  row: PullRequest;
  headBefore: string | null;
}

/**
 * One pull request per repository and number, from each view in order (a delivery's one, a page's many). Deliveries
 * may arrive out of order: a state older than the one stored (by the provider's `updated_at`) changes nothing, so a
 * `closed` before its `opened` ends closed. A view that cannot tell the state only makes one not stored yet, and
 * teaches its author. Every pull request is announced opened once, then each change of state as it is stored.
 *
 * The views' pull requests are read at once and those not stored yet inserted in one statement, then taken as the
 * views leave them (the change is the only writer of those rows meanwhile); a view applied just before (the same
 * object a page gives each of its reviews) is not applied again.
 */
export async function placePullRequests(change: Change, gitApp: GitApp, repository: Repository, views: PullRequestView[]): Promise<Placed[]> {
  const { transaction } = change;
  const rows = await storedPullRequests(transaction, repository, views.map((v) => v.pullRequest.number));
  const full = await fullNames(transaction, repository.id, views.flatMap((v) => [v.pullRequest.commits.head, v.pullRequest.commits.merge]));
  const made = await insertNew(change, gitApp, repository, views, rows, full);
  const applied = new Map<number, PullRequestInput>();
  const placed: Placed[] = [];
  for (const [index, { pullRequest, current }] of views.entries()) {
    const known = rows.get(pullRequest.number) ?? null;
    const fresh = made.get(index);
    // Read before the view updates the row in place.
    const headBefore = fresh ? null : (known?.head_sha ?? null);
    let outcome: { applied: Applied; row: PullRequest };
    if (fresh) {
      await keepRecorded(change, gitApp, fresh.row, fresh.fields, null);
      outcome = { applied: 'created', row: fresh.row };
    } else if (current && known && applied.get(pullRequest.number) === pullRequest) outcome = { applied: 'unchanged', row: known };
    else if (current || !known) outcome = await recordPullRequest(change, gitApp, repository, pullRequest, known, full);
    else {
      await learnPullRequestAuthor(change, gitApp, known, pullRequest);
      outcome = { applied: 'unchanged', row: known };
    }
    rows.set(pullRequest.number, outcome.row);
    if (current) applied.set(pullRequest.number, pullRequest);
    placed.push({ ...outcome, headBefore });
  }
  return placed;
}

/** The first view of each number none is stored of, made in one statement: by its place among the views. */
async function insertNew(change: Change, gitApp: GitApp, repository: Repository, views: PullRequestView[], rows: Map<number, PullRequest | null>, full: FullName) {
  const firsts = new Map<number, number>();
  for (const [index, { pullRequest }] of views.entries()) if (!rows.get(pullRequest.number) && !firsts.has(pullRequest.number)) firsts.set(pullRequest.number, index);
  const made = [...firsts.values()].map((index) => ({ index, input: views[index].pullRequest, fields: pullRequestFields(views[index].pullRequest, null, full) }));
  const inserted = made.length ? await insertPullRequests(change, gitApp, repository, made) : [];
  if (inserted.length) change.wrote('pull_requests');
  return new Map(made.map(({ index, fields }, i) => [index, { row: inserted[i], fields }]));
}

/** A view of a stored pull request (or, from a view that came first, one not stored yet) recorded. */
async function recordPullRequest(change: Change, gitApp: GitApp, repository: Repository, input: PullRequestInput, existing: PullRequest | null, full: FullName): Promise<{ applied: Applied; row: PullRequest }> {
  const { transaction } = change;
  const fields = pullRequestFields(input, existing, full);
  const before = existing ? { state: existing.state, openedAt: existing.created_at } : null;
  const recorded = await recordIfNewer(change, 'pull_requests', existing, {
    olderThanStored: (stored) => olderThanStored(stored.provider_updated_at, input.updatedAt),
    visiblyDiffers: (stored) => visiblyDiffers(fields, input, stored),
    create: async () => (await insertPullRequests(change, gitApp, repository, [{ input, fields }]))[0],
    update: (stored) => stored.update(fields, { transaction }),
  });
  if ('row' in recorded) await keepRecorded(change, gitApp, recorded.row, fields, before);
  // Who wrote it does not change with its state: a late or older delivery that names its author still teaches it.
  if (existing) await learnPullRequestAuthor(change, gitApp, existing, input);
  if (existing) await learnPullRequestSize(change, existing, input);
  // The row as stored now: what this delivery made or changed of it, or what it found (a stale or unchanged one was found).
  const row = 'row' in recorded ? recorded.row : existing;
  if (!row) throw new Error(`pull request ${input.number} of ${repository.id} was neither found nor made`);
  return { applied: recorded.applied, row };
}

/** The repository's pull requests of those numbers, by number, null where none is stored. */
async function storedPullRequests(transaction: Transaction, repository: Repository, numbers: number[]): Promise<Map<number, PullRequest | null>> {
  const rows = new Map<number, PullRequest | null>(numbers.map((n) => [n, null]));
  for (const chunk of chunks([...rows.keys()])) {
    for (const row of await PullRequest.findAll({ where: { repository_id: repository.id, number: chunk }, transaction })) rows.set(row.number, row);
  }
  return rows;
}

type PullRequestFields = ReturnType<typeof pullRequestFields>;

/** What a delivery says of a pull request, as its row's columns (its commits named in full where they can be). */
function pullRequestFields(input: PullRequestInput, existing: PullRequest | null, full: FullName) {
  const commits = { head: full(input.commits.head), merge: full(input.commits.merge) };
  return {
    title: clip(input.title, LIMITS.title),
    state: input.state,
    created_at: input.createdAt,
    merged_at: input.mergedAt,
    closed_at: input.closedAt,
    provider_updated_at: input.updatedAt,
    ai_assisted: hasAiMarker(input.body),
    ...(input.size ?? {}),
    // A view that does not name them (an issue comment's) keeps the ones stored.
    ...(commits.head ? { head_sha: commits.head } : {}),
    ...(commits.merge ? { merge_commit_sha: commits.merge } : {}),
    ...draftFields(input, existing),
  };
}

function visiblyDiffers(fields: PullRequestFields, input: PullRequestInput, stored: PullRequest): boolean {
  return (
    fields.title !== stored.title ||
    fields.state !== stored.state ||
    // Its opening moves its measures and its author's day of work (keepAuthorsDay).
    !sameTime(fields.created_at, stored.created_at) ||
    !sameTime(fields.merged_at, stored.merged_at) ||
    !sameTime(fields.closed_at, stored.closed_at) ||
    fields.ai_assisted !== Boolean(stored.ai_assisted) ||
    (input.size !== null && (input.size.additions !== stored.additions || input.size.deletions !== stored.deletions)) ||
    // Not in the item, but AI impact reads them: a change raises the table's version like any other.
    (fields.head_sha !== undefined && fields.head_sha !== stored.head_sha) ||
    (fields.merge_commit_sha !== undefined && fields.merge_commit_sha !== stored.merge_commit_sha) ||
    (fields.draft !== undefined && fields.draft !== Boolean(stored.draft)) ||
    (fields.ready_for_review_at !== undefined && !sameTime(fields.ready_for_review_at, stored.ready_for_review_at))
  );
}

/** New pull requests in one statement, each with its author as the organization knows the account; those it does not are noted. */
async function insertPullRequests(change: Change, gitApp: GitApp, repository: Repository, made: { input: PullRequestInput; fields: PullRequestFields }[]): Promise<PullRequest[]> {
  const { transaction } = change;
  const bots = await botsOf(change, gitApp.organization_id);
  const rows: CreationAttributes<PullRequest>[] = [];
  for (const { input, fields } of made) {
    const ids = { id: newId('pr'), repository_id: repository.id, git_app_id: gitApp.id, organization_id: gitApp.organization_id };
    const author = { author_id: await memberOfAccount(change, gitApp, input.authorUsername), author_provider_id: input.authorProviderId, author_login: storedLogin(input.authorUsername), bot: bots.of(input.authorUsername) };
    rows.push({ ...ids, number: input.number, ...author, ...fields });
  }
  const unmatched = made.filter((_, i) => !rows[i].author_id).map(({ input }) => ({ account: input.authorUsername, at: input.createdAt }));
  if (unmatched.length) await noteUnmatched(transaction, { id: gitApp.id, organizationId: gitApp.organization_id }, 'pull_request', unmatched);
  const inserted: PullRequest[] = [];
  for (const chunk of chunks(rows)) inserted.push(...(await PullRequest.bulkCreate(chunk, { transaction })));
  return inserted;
}

/** What follows a pull request made or visibly changed: its measures, its author's day, its events. */
async function keepRecorded(change: Change, gitApp: GitApp, row: PullRequest, fields: PullRequestFields, before: { state: PullRequestState; openedAt: Date } | null): Promise<void> {
  // Its opening may have moved (iteration counts commits after it); its measures follow the row.
  refreshPullRequestBeforeCommit(change, row.id, { commits: Boolean(fields.head_sha || fields.merge_commit_sha), activity: before !== null });
  await keepAuthorsDay(change, row, before ? before.openedAt : null);
  const emit = (type: EventType) => change.emit(gitApp.organization_id, type, toPullRequest(row));
  if (!before) emit('pull_request.opened');
  if (row.state !== (before?.state ?? 'open')) emit(EVENT_OF_STATE[row.state]);
}

/**
 * The author's day of work in member_active_years (activity/memberActiveYears.ts): a new pull request's opening
 * added; one whose opening moved (`openedBefore`, what was stored) counts its author's years again, the old day
 * perhaps no longer one of theirs.
 */
async function keepAuthorsDay(change: Change, row: PullRequest, openedBefore: Date | null | undefined): Promise<void> {
  if (!row.author_id) return;
  if (openedBefore === null) return addWorkDays(change, row.organization_id, [{ userId: row.author_id, at: row.created_at }]);
  if (openedBefore && openedBefore.getTime() !== row.created_at.getTime()) await recountMemberActiveYears(change, row.organization_id, [row.author_id]);
}

/**
 * What the delivery says of its draft (docs/ingest.md#drafts): whether it is one, and when it became ready for review
 * if it is that change. Only the last time before its merge counts (Swarmia's and LinearB's "from ready for review"):
 * a delivery older than the stored state changes nothing (recordIfNewer), so one converted back and forth ends at its
 * last ready; a time it names past its merge is none. A stored draft that a newer delivery shows ready without saying
 * when (Bitbucket's, or GitHub's `ready_for_review` missed) became ready by that delivery's time at the latest.
 */
function draftFields(input: PullRequestInput, stored: PullRequest | null): { draft?: boolean; ready_for_review_at?: Date } {
  const ready = input.readyForReviewAt ?? (stored?.draft && input.draft === false ? input.updatedAt : null);
  const readyBeforeMerge = ready && (!input.mergedAt || ready.getTime() <= input.mergedAt.getTime()) ? ready : null;
  return {
    ...(input.draft != null ? { draft: input.draft } : {}),
    ...(readyBeforeMerge ? { ready_for_review_at: readyBeforeMerge, draft: false } : {}),
  };
}

/**
 * A pull request stored without its lines (imported from a list that does not count them: GitHub's) takes them from
 * a delivery that does, even an older one: its lines as of that delivery are better than none, and the next that
 * counts them replaces them.
 */
async function learnPullRequestSize(change: Change, stored: PullRequest, input: PullRequestInput): Promise<void> {
  if (stored.additions !== null || input.size === null) return;
  await stored.update({ ...input.size }, { transaction: change.transaction });
  change.wrote('pull_requests');
  refreshPullRequestBeforeCommit(change, stored.id);
}

/**
 * A pull request stored before a delivery named its author (GitLab's note and approval views name no author's user
 * name; stored before the provider's ids were kept) takes who the delivery says, and its activity is judged again.
 * What is known stays: a pull request's author does not change.
 */
export async function learnPullRequestAuthor(change: Change, gitApp: GitApp, stored: PullRequest, input: PullRequestInput): Promise<void> {
  const { transaction } = change;
  const learnt: { author_id?: string; author_provider_id?: string; author_login?: string; bot?: number } = {};
  if (stored.author_provider_id === null && input.authorProviderId !== null) learnt.author_provider_id = input.authorProviderId;
  if (stored.author_login === null && input.authorUsername !== null) {
    learnt.author_login = clip(input.authorUsername, LIMITS.login);
    learnt.bot = (await botsOf(change, gitApp.organization_id)).of(input.authorUsername);
  }
  if (stored.author_id === null && input.authorUsername !== null) {
    const memberId = await memberOfAccount(change, gitApp, input.authorUsername);
    if (memberId) learnt.author_id = memberId;
  }
  if (Object.keys(learnt).length === 0) return;
  await stored.update(learnt, { transaction });
  // The pull request item shows its author.
  if (learnt.author_id) {
    change.wrote('pull_requests');
    addWorkDays(change, stored.organization_id, [{ userId: learnt.author_id, at: stored.created_at }]);
  }
  // A bot's now: its activity is a bot's too, and its measures move with it (rejudged below).
  if (learnt.bot !== undefined) await refreshActivityBots(transaction, gitApp.organization_id, [stored.id], await botsOf(change, gitApp.organization_id));
  await rejudgePullRequestReviews(change, stored.id);
}
