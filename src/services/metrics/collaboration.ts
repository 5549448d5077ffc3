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

type Edge = { reviewer_id: string; author_id: string | null; reviews: number };
type Silo = { author_id: string; reviewer_id: string; merged: number };

export const REVIEW_NETWORK_EDGES = 200;

export async function collaborationFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [merged, stages, reviewsIn, edges, silos, [available]] = await Promise.all([
    q.rows<MergedCounts>(mergedCountsSql(q, counts)),
    measureDistributions(q, ['pickup', 'approval', 'reviewToMerge'], [50, 75]),
    q.rows<{ bucket: number; reviews: number }>(
      `SELECT ${counts('a.created_at')} AS bucket, COUNT(*) AS reviews FROM pull_request_activities a
       WHERE ${q.scoped('a', 'repository')} AND a.peer_review = 1 AND ${q.inWindow('a.created_at')} GROUP BY bucket`,
    ),
    q.rows<Edge>(
      `SELECT a.actor_id AS reviewer_id, a.pull_request_author_id AS author_id, COUNT(*) AS reviews FROM pull_request_activities a
       WHERE ${q.scoped('a', 'repository')} AND a.peer_review = 1 AND ${q.inWindow('a.created_at')} AND a.actor_id IS NOT NULL
       GROUP BY a.actor_id, a.pull_request_author_id`,
      ['reviewer_id', 'author_id'],
    ),
    q.rows<Silo>(knowledgeSilos(q), ['author_id', 'reviewer_id']),
    q.rows<{ members: number }>(`SELECT COUNT(*) AS members FROM (${membersInWindowSql(q)}) AS m`),
  ]);
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
    sharing_index: sharingIndex(edges, available?.members ?? 0),
    reviewers: new Set(edges.map((e) => e.reviewer_id)).size,
    available_reviewers: available?.members ?? 0,
    review_load: reviewLoad(edges),
    review_network: reviewNetwork(edges),
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

/** Review actions per reviewer, most first. */
function reviewsPerReviewer(edges: Edge[]): Map<string, number> {
  const per = new Map<string, number>();
  for (const e of edges) per.set(e.reviewer_id, (per.get(e.reviewer_id) ?? 0) + e.reviews);
  return new Map([...per].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)));
}

function reviewLoad(edges: Edge[]) {
  const per = reviewsPerReviewer(edges);
  const all = [...per.values()].reduce((s, n) => s + n, 0);
  return [...per].map(([user_id, reviews]) => ({ user_id, reviews, share: ratio(reviews, all) }));
}

function reviewNetwork(edges: Edge[]) {
  return edges
    .filter((e): e is Edge & { author_id: string } => e.author_id !== null)
    .sort((a, b) => b.reviews - a.reviews || (a.reviewer_id < b.reviewer_id ? -1 : a.reviewer_id > b.reviewer_id ? 1 : a.author_id < b.author_id ? -1 : 1))
    .slice(0, REVIEW_NETWORK_EDGES)
    .map((e) => ({ reviewer_id: e.reviewer_id, author_id: e.author_id, reviews: e.reviews }));
}

/**
 * 0–100: how evenly review work is spread (1 − the Gini coefficient of review actions over the reviewers) times
 * how many of the people who could review did (reviewers ÷ members in the window, at most 1). Null without reviews.
 */
export function sharingIndex(edges: Edge[], available: number): number | null {
  const counts = [...reviewsPerReviewer(edges).values()].sort((a, b) => a - b);
  const n = counts.length;
  const sum = counts.reduce((s, c) => s + c, 0);
  if (n === 0 || sum === 0 || available === 0) return null;
  const gini = counts.reduce((s, c, i) => s + (2 * (i + 1) - n - 1) * c, 0) / (n * sum);
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
