import { Distribution, emptyDistribution, MetricSql, roundHours } from './sql';
import { byBucket, countBuckets, ratio, round, series, total } from './figures';
import { MergedCounts, mergedCountsSql, measureDistributions } from './mergedPullRequests';
import { membersInWindowSql } from './members';

/**
 * How the scope's people review each other's work (DESIGN §16), from pull-request activity. The review stages are
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
type Spread = { reviewers: number; reviews: number | null; gini_sum: number | null };
/** One of the busiest reviewers, with the spread over all of them. */
type Load = Spread & { user_id: string; given: number };

/** The longest per-person lists: a year of a large organization has thousands of reviewers (700 KB of JSON). */
export const REVIEW_NETWORK_EDGES = 200;
export const REVIEW_LOAD_REVIEWERS = 200;

export async function collaborationFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const peerReviews = `${q.scoped('a', 'repository')} AND a.peer_review = 1 AND ${q.inWindow('a.created_at')}`;
  const [merged, stages, reviewsIn, load, edges, silos, [available]] = await Promise.all([
    q.rows<MergedCounts>(mergedCountsSql(q, counts)),
    measureDistributions(q, ['pickup', 'approval', 'reviewToMerge'], [50, 75]),
    q.rows<{ bucket: number; reviews: number }>(`SELECT ${counts('a.created_at')} AS bucket, COUNT(*) AS reviews FROM pull_request_activities a WHERE ${peerReviews} GROUP BY bucket`),
    q.rows<Load>(busiestReviewers(peerReviews), ['user_id']),
    q.rows<Edge>(
      `SELECT a.actor_id AS reviewer_id, a.pull_request_author_id AS author_id, COUNT(*) AS reviews FROM pull_request_activities a
       WHERE ${peerReviews} AND a.actor_id IS NOT NULL AND a.pull_request_author_id IS NOT NULL
       GROUP BY a.actor_id, a.pull_request_author_id ORDER BY reviews DESC, reviewer_id, author_id LIMIT ${REVIEW_NETWORK_EDGES}`,
      ['reviewer_id', 'author_id'],
    ),
    q.rows<Silo>(knowledgeSilos(q), ['author_id', 'reviewer_id']),
    q.rows<{ members: number; days: number }>(membersInWindowSql(q)),
  ]);
  const spread: Spread | undefined = load[0];
  const mergedBy = byBucket(merged);
  const reviewsBy = byBucket(reviewsIn);
  const mergedCount = total(merged, 'merged');
  const unreviewed = mergedCount - total(merged, 'reviewed');
  const [pickup, approval, reviewToMerge] = [stages.all('pickup'), stages.all('approval'), stages.all('reviewToMerge')];
  return {
    merged: mergedCount,
    reviews: total(reviewsIn, 'reviews'),
    pickup_hours: medianOf(pickup?.whole),
    time_to_first_approval_hours: medianOf(approval?.whole),
    review_to_merge_hours: medianOf(reviewToMerge?.whole),
    iterated_prs: { count: total(merged, 'iterated'), merged: mergedCount, share: ratio(total(merged, 'iterated'), mergedCount) },
    unreviewed_merged: { count: unreviewed, share: ratio(unreviewed, mergedCount) },
    sharing_index: sharingIndex(spread, available?.members ?? 0),
    reviewers: spread?.reviewers ?? 0,
    available_reviewers: available?.members ?? 0,
    review_load: load.map((l) => ({ user_id: l.user_id, reviews: l.given, share: ratio(l.given, Number(spread?.reviews ?? 0)) })),
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
 * The busiest reviewers, most first, each row also carrying the spread over every reviewer (window sums, taken
 * before the limit): one read of the review actions for the list and the sharing index.
 */
function busiestReviewers(peerReviews: string): string {
  return `SELECT r.actor_id AS user_id, r.reviews AS given, r.n AS reviewers, SUM(r.reviews) OVER () AS reviews, SUM((2 * r.rn - r.n - 1) * r.reviews) OVER () AS gini_sum
    FROM (SELECT p.actor_id, p.reviews, ROW_NUMBER() OVER (ORDER BY p.reviews) AS rn, COUNT(*) OVER () AS n
          FROM (SELECT a.actor_id, COUNT(*) AS reviews FROM pull_request_activities a WHERE ${peerReviews} AND a.actor_id IS NOT NULL GROUP BY a.actor_id) AS p) AS r
    ORDER BY r.reviews DESC, r.actor_id LIMIT ${REVIEW_LOAD_REVIEWERS}`;
}

/**
 * 0–100: how evenly review work is spread (1 − the Gini coefficient of review actions over the reviewers) times
 * how many of the people who could review did (reviewers ÷ members in the window, at most 1). Null without reviews.
 */
export function sharingIndex(spread: Spread | undefined, available: number): number | null {
  const [n, sum] = [Number(spread?.reviewers ?? 0), Number(spread?.reviews ?? 0)];
  if (n === 0 || sum === 0 || available === 0) return null;
  const gini = Number(spread!.gini_sum) / (n * sum);
  return round(100 * (1 - gini) * Math.min(1, n / available), 1);
}

/**
 * Authors with at least three pull requests merged in the window, every one of them reviewed by the same one other
 * person (kept on each: git/pullRequestReviewers.ts).
 */
function knowledgeSilos(q: MetricSql): string {
  return `SELECT p.author_id, MIN(p.sole_reviewer_id) AS reviewer_id, COUNT(*) AS merged
    FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND p.merged_at IS NOT NULL AND ${q.inWindow('p.merged_at')} AND p.author_id IS NOT NULL
    GROUP BY p.author_id
    HAVING COUNT(*) >= 3 AND COUNT(p.sole_reviewer_id) = COUNT(*) AND MIN(p.sole_reviewer_id) = MAX(p.sole_reviewer_id)
    ORDER BY p.author_id`;
}
