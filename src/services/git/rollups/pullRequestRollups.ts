import type { Transaction } from 'sequelize';
import { PullRequest } from '../../../../db/models';
import { Change, perChange } from '../../../persistence/changes/change';
import { timestampSql } from '../../../persistence/query/selectSql';
import { refreshAiCommits } from './pullRequestAi';
import { refreshPullRequestReviewers } from './pullRequestReviewers';
import { refreshPullRequestSamples } from './pullRequestSamples';
import { chunks } from '../../people/memberEmails';

/**
 * What a step changed of a pull request besides its row: its activity (who reviewed it, whether it iterated), the
 * commits it names (its AI mark), a peer review it stored (`firstReview`: its first review, and approval, move earlier
 * when it is earlier), or its first review and approval set again from all its activity (`firstReviewsRecounted`:
 * the reviews stored before in the change are among those).
 */
export interface PullRequestTouched {
  activity?: boolean;
  commits?: boolean;
  firstReview?: { at: Date; approval: boolean };
  firstReviewsRecounted?: boolean;
}

type FirstReviews = { review: Date; approval: Date | null };
type Pending = { activity: Set<string>; commits: Set<string>; measured: Set<string>; firstReviews: Map<string, FirstReviews> };
const pendingOf = perChange((change): Pending => {
  const pending: Pending = { activity: new Set(), commits: new Set(), measured: new Set(), firstReviews: new Map() };
  change.beforeCommit(() => refresh(change, pending));
  return pending;
});

/**
 * The rollups kept on a pull request (its reviewers and iteration, its AI mark, its measures), recomputed from its
 * rows once per change, when the change's steps are done: a page of history that brings a pull request with twenty
 * reviews recomputes them once, not twenty times. Each is a recomputation from the rows as they stand, so doing it
 * once at the end ends in the rows that doing it after every step would; the pull request's row stays locked until
 * the commit either way. Its measures follow its row, so they are recomputed whatever the step touched.
 */
export function refreshPullRequestBeforeCommit(change: Change, pullRequestId: string, touched: PullRequestTouched = {}): void {
  const pending = pendingOf(change);
  if (touched.activity) pending.activity.add(pullRequestId);
  if (touched.commits) pending.commits.add(pullRequestId);
  if (touched.firstReviewsRecounted) pending.firstReviews.delete(pullRequestId);
  if (touched.firstReview) keepEarlier(pending.firstReviews, pullRequestId, touched.firstReview);
  pending.measured.add(pullRequestId);
}

function keepEarlier(firsts: Map<string, FirstReviews>, pullRequestId: string, { at, approval }: { at: Date; approval: boolean }): void {
  const earlier = (a: Date | null, b: Date | null) => (a === null ? b : b === null || a <= b ? a : b);
  const kept = firsts.get(pullRequestId);
  firsts.set(pullRequestId, { review: earlier(kept?.review ?? null, at)!, approval: earlier(kept?.approval ?? null, approval ? at : null) });
}

/** First reviews, reviewers and AI mark first: the measures read them. Each in id order, one lock order. */
async function refresh({ transaction }: Change, pending: Pending): Promise<void> {
  const sorted = (ids: Iterable<string>) => [...ids].sort();
  if (pending.firstReviews.size) await keepFirstReviews(transaction, pending.firstReviews);
  if (pending.activity.size) await refreshPullRequestReviewers(transaction, sorted(pending.activity));
  if (pending.commits.size) await refreshAiCommits(transaction, 'p.id IN (:ids)', { ids: sorted(pending.commits) });
  await refreshPullRequestSamples(transaction, sorted(pending.measured));
}

/**
 * The pull requests' first reviews and approvals moved earlier where the change's peer reviews are earlier, in one
 * statement per 500 that compares with each row as it stands: two changes storing reviews at once keep the earlier.
 * The pull request item shows neither: the figures that read them also read the activity table, whose version the
 * change raises.
 */
async function keepFirstReviews(transaction: Transaction, firsts: Map<string, FirstReviews>): Promise<void> {
  const sequelize = PullRequest.sequelize!;
  for (const ids of chunks([...firsts.keys()].sort())) {
    const replacements: Record<string, string> = {};
    ids.forEach((id, i) => (replacements[`id${i}`] = id));
    const earlier = (column: string, at: (firsts: FirstReviews) => Date | null) => {
      const whens = ids.flatMap((id, i) => {
        const when = at(firsts.get(id)!);
        return when ? [`WHEN :id${i} THEN CASE WHEN ${column} IS NULL OR ${column} > ${timestampSql(sequelize, when)} THEN ${timestampSql(sequelize, when)} ELSE ${column} END`] : [];
      });
      return whens.length ? [`${column} = CASE id ${whens.join(' ')} ELSE ${column} END`] : [];
    };
    const columns = [...earlier('first_review_at', (f) => f.review), ...earlier('first_approval_at', (f) => f.approval)];
    await sequelize.query(`UPDATE pull_requests SET ${columns.join(', ')} WHERE id IN (${ids.map((_, i) => `:id${i}`).join(', ')})`, { replacements, transaction });
  }
}
