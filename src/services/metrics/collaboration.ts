import { Distribution, emptyDistribution, MetricSql, roundHours } from './reading/sql';
import { byBucket, countBuckets, ratio, round, series, total } from './reading/figures';
import { MergedCounts, mergedCountsSql, measureDistributions } from './mergedPullRequests';
import { membersInWindowSql } from './members';

/**
 * How the scope's people review each other's work (docs/metrics.md#ai-review-and-cost-figures), from pull-request activity. The review stages are
 * measured on the pull requests merged in the window, each counting where it was merged: a review or an approval
 * counts when someone other than the author gave it before the merge (a self-approval is no approval). Review
 * load, network and the sharing index count review actions (comments, approvals, changes requested) given in
 * the window.
 */

/** A median and its sample: how many pull requests it stands on. */
const medianOf = (d: Distribution = emptyDistribution) => ({ median: roundHours(d.at[50]), p75: roundHours(d.at[75]), n: d.n });

type Edge = { reviewer_id: string; author_id: string; reviews: number };
type Silo = { author_id: string; reviewer_id: string; merged: number };
/** Over every reviewer: how many, their review actions, and Σ (2i − n − 1)·cᵢ over their counts in ascending order (the Gini numerator). */
type Spread = { reviewers: number; reviews: number; gini_sum: number };
/** A reviewer's review actions in the window. */
type Given = { user_id: string | null; given: number };

/** The longest per-person lists: a year of a large organization has thousands of reviewers (700 KB of JSON). */
export const REVIEW_NETWORK_EDGES = 200;
export const REVIEW_LOAD_REVIEWERS = 200;

export async function collaborationFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const peerReviews = `${q.scoped('a', 'repository')} AND a.peer_review = 1 AND ${q.inWindow('a.created_at')} AND ${q.people('a')}`;
  const [merged, stages, reviewsIn, given, edges, silos, [available]] = await Promise.all([
    q.rows<MergedCounts>(mergedCountsSql(q, counts)),
    measureDistributions(q, ['pickup', 'approval', 'reviewToMerge'], [50, 75]),
    // The window's total is the reviewers' sum (below); only a series needs the reviews per bucket.
    q.window.interval
      ? q.rows<{ bucket: number; reviews: number }>(`SELECT ${counts('a.created_at')} AS bucket, COUNT(*) AS reviews FROM pull_request_activities a WHERE ${peerReviews} GROUP BY bucket`)
      : Promise.resolve([]),
    q.rows<Given>(`SELECT a.actor_id AS user_id, COUNT(*) AS given FROM pull_request_activities a WHERE ${peerReviews} GROUP BY a.actor_id`, ['user_id']),
    q.rows<Edge>(
      `SELECT a.actor_id AS reviewer_id, a.pull_request_author_id AS author_id, COUNT(*) AS reviews FROM pull_request_activities a
       WHERE ${peerReviews} AND a.actor_id IS NOT NULL AND a.pull_request_author_id IS NOT NULL
       GROUP BY a.actor_id, a.pull_request_author_id ORDER BY reviews DESC, reviewer_id, author_id LIMIT ${REVIEW_NETWORK_EDGES}`,
      ['reviewer_id', 'author_id'],
    ),
    q.rows<Silo>(knowledgeSilos(q), ['author_id', 'reviewer_id']),
    q.rows<{ members: number; days: number }>(membersInWindowSql(q)),
  ]);
  const { spread, busiest, reviews } = reviewLoad(given);
  const mergedBy = byBucket(merged);
  const reviewsBy = byBucket(reviewsIn);
  const mergedCount = total(merged, 'merged');
  const unreviewed = mergedCount - total(merged, 'reviewed');
  const [pickup, approval, reviewToMerge] = [stages.all('pickup'), stages.all('approval'), stages.all('reviewToMerge')];
  return {
    merged: mergedCount,
    reviews,
    pickup_hours: medianOf(pickup?.whole),
    time_to_first_approval_hours: medianOf(approval?.whole),
    review_to_merge_hours: medianOf(reviewToMerge?.whole),
    iterated_prs: { count: total(merged, 'iterated'), merged: mergedCount, share: ratio(total(merged, 'iterated'), mergedCount) },
    unreviewed_merged: { count: unreviewed, share: ratio(unreviewed, mergedCount) },
    sharing_index: sharingIndex(spread, available?.members ?? 0),
    reviewers: spread.reviewers,
    available_reviewers: available?.members ?? 0,
    review_load: busiest.map((l) => ({ user_id: l.user_id, reviews: l.given, share: ratio(l.given, spread.reviews) })),
    review_network: edges,
    knowledge_silos: silos.map((s) => ({ author_id: s.author_id, reviewer_id: s.reviewer_id, merged_prs: s.merged })),
    series: series(q, (bucket, i) => {
      const m = mergedBy.get(i);
      return {
        start: bucket.start,
        merged: m?.merged ?? 0,
        reviews: reviewsBy.get(i)?.reviews ?? 0,
        pickup_hours: medianOf(pickup?.byBucket.get(i)),
        time_to_first_approval_hours: medianOf(approval?.byBucket.get(i)),
        review_to_merge_hours: medianOf(reviewToMerge?.byBucket.get(i)),
        iterated_prs: m?.iterated ?? 0,
        unreviewed_merged: (m?.merged ?? 0) - (m?.reviewed ?? 0),
      };
    }),
  };
}

/**
 * From each reviewer's review actions in the window (one grouped read; an unknown reviewer's, `user_id` null, count
 * in the total only): the busiest, most first, and the spread over all of them, Σ (2i − n − 1)·cᵢ over their counts
 * in ascending order (the Gini numerator). Ranked here: a year of the large data is 13k counts, and ranking them in
 * SQL with window functions cost more than reading them.
 */
export function reviewLoad(given: Given[]): { spread: Spread; busiest: { user_id: string; given: number }[]; reviews: number } {
  const known = given.filter((g): g is { user_id: string; given: number } => g.user_id !== null).map((g) => ({ user_id: g.user_id, given: Number(g.given) }));
  const ascending = known.map((g) => g.given).sort((a, b) => a - b);
  const n = ascending.length;
  const giniSum = ascending.reduce((sum, c, i) => sum + (2 * (i + 1) - n - 1) * c, 0);
  const busiest = known.sort((a, b) => b.given - a.given || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0)).slice(0, REVIEW_LOAD_REVIEWERS);
  const ofKnown = ascending.reduce((sum, c) => sum + c, 0);
  return { spread: { reviewers: n, reviews: ofKnown, gini_sum: giniSum }, busiest, reviews: given.reduce((sum, g) => sum + Number(g.given), 0) };
}

/**
 * 0–100: how evenly review work is spread (1 − the Gini coefficient of review actions over the reviewers) times
 * how many of the people who could review did (reviewers ÷ members in the window, at most 1). Null without reviews.
 */
export function sharingIndex(spread: Spread, available: number): number | null {
  const { reviewers: n, reviews: sum } = spread;
  if (n === 0 || sum === 0 || available === 0) return null;
  const gini = spread.gini_sum / (n * sum);
  return round(100 * (1 - gini) * Math.min(1, n / available), 1);
}

/**
 * Authors with at least three pull requests merged in the window, every one of them reviewed by the same one other
 * person (kept on each: git/rollups/pullRequestReviewers.ts).
 */
function knowledgeSilos(q: MetricSql): string {
  return `SELECT p.author_id, MIN(p.sole_reviewer_id) AS reviewer_id, COUNT(*) AS merged
    FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND p.merged_at IS NOT NULL AND ${q.inWindow('p.merged_at')} AND p.author_id IS NOT NULL AND ${q.people('p')}
    GROUP BY p.author_id
    HAVING COUNT(*) >= 3 AND COUNT(p.sole_reviewer_id) = COUNT(*) AND MIN(p.sole_reviewer_id) = MAX(p.sole_reviewer_id)
    ORDER BY p.author_id`;
}
