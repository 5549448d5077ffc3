import { GitApp, PullRequest, Repository } from '../../../../db/models';
import { toPullRequest } from '../../../resources/git';
import type { EventType } from '../../../persistence/changes/events';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { PullRequestInput, PullRequestState } from '../activity';
import { memberOfAccount } from '../authors';
import { noteUnmatched } from '../../people/unmatchedAccounts';
import { completeSha } from '../commits/abbreviatedShas';
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

/**
 * One pull request per repository and number. Deliveries may arrive out of order: a state older than the one
 * stored (by the provider's `updated_at`) changes nothing, so a `closed` before its `opened` ends closed. Every
 * pull request is announced opened once, then each change of state as it is stored.
 */
export async function recordPullRequest(
  change: Change,
  gitApp: GitApp,
  repository: Repository,
  input: PullRequestInput,
  // What the caller already read of it in this change (null: none stored); undefined: read it here.
  stored?: PullRequest | null,
): Promise<{ applied: Applied; row: PullRequest }> {
  const { transaction } = change;
  const existing = stored !== undefined ? stored : await PullRequest.findOne({ where: { repository_id: repository.id, number: input.number }, transaction });
  const fields = await pullRequestFields(transaction, repository, input, existing);
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

/**
 * A repository's run of pull requests (a page of its history), each recorded as `recordPullRequest` records one, in
 * order, with its outcome. The run's stored rows are read at once and those new to it inserted in one statement; a
 * number the run names again finds the row as the run left it (the change is the only writer of those rows meanwhile).
 */
export async function recordPullRequests(change: Change, gitApp: GitApp, repository: Repository, inputs: PullRequestInput[]): Promise<Applied[]> {
  const rows = await storedPullRequests(change.transaction, repository, inputs.map((i) => i.number));
  // The first of each number none is stored of, by its place in the run.
  const firsts = new Map<number, number>();
  for (const [index, input] of inputs.entries()) if (!rows.get(input.number) && !firsts.has(input.number)) firsts.set(input.number, index);
  const made: { index: number; input: PullRequestInput; fields: PullRequestFields }[] = [];
  for (const index of firsts.values()) made.push({ index, input: inputs[index], fields: await pullRequestFields(change.transaction, repository, inputs[index], null) });
  const inserted = made.length ? await insertPullRequests(change, gitApp, repository, made) : [];
  if (inserted.length) change.wrote('pull_requests');
  const created = new Map(made.map(({ index, fields }, i) => [index, { row: inserted[i], fields }]));
  const applied: Applied[] = [];
  for (const [index, input] of inputs.entries()) {
    const fresh = created.get(index);
    if (fresh) {
      // Announced in the run's order, as one at a time would be.
      await keepRecorded(change, gitApp, fresh.row, fresh.fields, null);
      rows.set(input.number, fresh.row);
      applied.push('created');
      continue;
    }
    const outcome = await recordPullRequest(change, gitApp, repository, input, rows.get(input.number) ?? null);
    rows.set(input.number, outcome.row);
    applied.push(outcome.applied);
  }
  return applied;
}

/** The repository's pull requests of those numbers, by number, null where none is stored. */
export async function storedPullRequests(transaction: Transaction, repository: Repository, numbers: number[]): Promise<Map<number, PullRequest | null>> {
  const rows = new Map<number, PullRequest | null>(numbers.map((n) => [n, null]));
  for (const chunk of chunks([...rows.keys()])) {
    for (const row of await PullRequest.findAll({ where: { repository_id: repository.id, number: chunk }, transaction })) rows.set(row.number, row);
  }
  return rows;
}

type PullRequestFields = Awaited<ReturnType<typeof pullRequestFields>>;

/** What a delivery says of a pull request, as its row's columns (its commits named in full where they can be). */
async function pullRequestFields(transaction: Transaction, repository: Repository, input: PullRequestInput, existing: PullRequest | null) {
  const commits = { head: await completeSha(transaction, repository.id, input.commits.head), merge: await completeSha(transaction, repository.id, input.commits.merge) };
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
