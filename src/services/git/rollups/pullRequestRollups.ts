import { Change, perChange } from '../../../persistence/changes/change';
import { refreshAiCommits } from './pullRequestAi';
import { refreshPullRequestReviewers } from './pullRequestReviewers';
import { refreshPullRequestSamples } from './pullRequestSamples';

/** What a step changed of a pull request besides its row: its activity (who reviewed it, whether it iterated), the commits it names (its AI mark). */
export interface PullRequestTouched {
  activity?: boolean;
  commits?: boolean;
}

type Pending = { activity: Set<string>; commits: Set<string>; measured: Set<string> };
const pendingOf = perChange((change): Pending => {
  const pending: Pending = { activity: new Set(), commits: new Set(), measured: new Set() };
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
  pending.measured.add(pullRequestId);
}

/** Reviewers and AI mark first: the measures read both. Each in id order, one lock order. */
async function refresh({ transaction }: Change, pending: Pending): Promise<void> {
  const sorted = (ids: Set<string>) => [...ids].sort();
  if (pending.activity.size) await refreshPullRequestReviewers(transaction, sorted(pending.activity));
  if (pending.commits.size) await refreshAiCommits(transaction, 'p.id IN (:ids)', { ids: sorted(pending.commits) });
  await refreshPullRequestSamples(transaction, sorted(pending.measured));
}
