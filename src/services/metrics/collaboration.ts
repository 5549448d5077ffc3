import { BucketOf, Distribution, emptyDistribution, MetricSql, roundHours } from './sql';
import { byBucket, countBuckets, distributions, ratio, round, series, total } from './figures';
import { membersInWindowSql } from './members';

/**
 * How the scope's people review each other's work (DESIGN §16), from pull-request activity. The review stages are
 * measured on the pull requests merged in the window, each counting where it was merged: a review or an approval
 * counts when someone other than the author gave it before the merge (a self-approval is no approval). Review
 * load, network and the sharing index count review actions (comments, approvals, changes requested) given in
 * the window.
 */

/** Review activity on pull request `p` by someone other than its author (an unknown person counts as another). */
export const byOther = (a: string, p: string) => `${a}.kind <> 'commit' AND (${a}.actor_id IS NULL OR ${p}.author_id IS NULL OR ${a}.actor_id <> ${p}.author_id)`;

/**
 * When someone other than its author first reviewed (or approved) merged pull request `p`, before the merge: the
 * first ever, kept by the review writer, if it came before the merge (else none did).
 */
export const firstReviewSql = (p: string, approval = false) => {
  const column = `${p}.${approval ? 'first_approval_at' : 'first_review_at'}`;
  return `CASE WHEN ${column} <= ${p}.merged_at THEN ${column} END`;
};

/** Pull requests merged in the window, with when another person first reviewed and first approved them. */
function mergedPullRequests(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('p.merged_at')} AS bucket, p.created_at, p.merged_at,
      ${firstReviewSql('p')} AS reviewed_at, ${firstReviewSql('p', true)} AS approved_at,
      CASE WHEN EXISTS (SELECT 1 FROM pull_request_activities a WHERE a.pull_request_id = p.id AND a.kind = 'commit' AND a.created_at > p.created_at) THEN 1 ELSE 0 END AS iterated
    FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND p.merged_at IS NOT NULL AND ${q.inWindow('p.merged_at')}`;
}

const stage = (q: MetricSql, from: string, to: string) => (bucket: BucketOf) =>
  `SELECT bucket, ${q.hours(from, to)} AS v FROM (${mergedPullRequests(q, bucket)}) AS m WHERE ${from} IS NOT NULL AND ${to} IS NOT NULL`;

/** A median and its sample: how many pull requests it stands on. */
const medianOf = (d: Distribution = emptyDistribution) => ({ median: roundHours(d.at[50]), p75: roundHours(d.at[75]), n: d.n });

type Edge = { reviewer_id: string; author_id: string | null; reviews: number };
type Silo = { author_id: string; reviewer_id: string; merged: number };

export const REVIEW_NETWORK_EDGES = 200;

export async function collaborationFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [merged, pickup, approval, reviewToMerge, reviewsIn, edges, silos, [available]] = await Promise.all([
    q.rows<{ bucket: number; merged: number; iterated: number; unreviewed: number }>(
      `SELECT bucket, COUNT(*) AS merged, SUM(iterated) AS iterated, SUM(CASE WHEN reviewed_at IS NULL THEN 1 ELSE 0 END) AS unreviewed
       FROM (${mergedPullRequests(q, counts)}) AS m GROUP BY bucket`,
    ),
    distributions(q, stage(q, 'm.created_at', 'm.reviewed_at')),
    distributions(q, stage(q, 'm.created_at', 'm.approved_at')),
    distributions(q, stage(q, 'm.reviewed_at', 'm.merged_at')),
    q.rows<{ bucket: number; reviews: number }>(
      `SELECT ${counts('a.created_at')} AS bucket, COUNT(*) AS reviews FROM pull_request_activities a JOIN pull_requests p ON p.id = a.pull_request_id
       WHERE ${q.scoped('a', 'repository')} AND ${byOther('a', 'p')} AND ${q.inWindow('a.created_at')} GROUP BY bucket`,
    ),
    q.rows<Edge>(
      `SELECT a.actor_id AS reviewer_id, p.author_id, COUNT(*) AS reviews FROM pull_request_activities a JOIN pull_requests p ON p.id = a.pull_request_id
       WHERE ${q.scoped('a', 'repository')} AND ${byOther('a', 'p')} AND a.actor_id IS NOT NULL AND ${q.inWindow('a.created_at')}
       GROUP BY a.actor_id, p.author_id`,
      ['reviewer_id', 'author_id'],
    ),
    q.rows<Silo>(knowledgeSilos(q), ['author_id', 'reviewer_id']),
    q.rows<{ members: number }>(`SELECT COUNT(*) AS members FROM (${membersInWindowSql(q)}) AS m`),
  ]);
  const mergedBy = byBucket(merged);
  const reviewsBy = byBucket(reviewsIn);
  const mergedCount = total(merged, 'merged');
  const unreviewed = total(merged, 'unreviewed');
  return {
    merged: mergedCount,
    reviews: total(reviewsIn, 'reviews'),
    pickup_hours: medianOf(pickup.whole),
    time_to_first_approval_hours: medianOf(approval.whole),
    review_to_merge_hours: medianOf(reviewToMerge.whole),
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
        pickup_hours: medianOf(pickup.byBucket.get(i)),
        time_to_first_approval_hours: medianOf(approval.byBucket.get(i)),
        review_to_merge_hours: medianOf(reviewToMerge.byBucket.get(i)),
        iterated_prs: m?.iterated ?? 0,
        unreviewed_merged: m?.unreviewed ?? 0,
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

/** Authors with at least three pull requests merged in the window, every one of them reviewed by the same one other person. */
function knowledgeSilos(q: MetricSql): string {
  return `SELECT p.author_id, MIN(a.actor_id) AS reviewer_id, COUNT(DISTINCT p.id) AS merged
    FROM pull_requests p LEFT JOIN pull_request_activities a ON a.pull_request_id = p.id AND ${byOther('a', 'p')} AND a.actor_id IS NOT NULL
    WHERE ${q.scoped('p', 'repository')} AND p.author_id IS NOT NULL AND p.merged_at IS NOT NULL AND ${q.inWindow('p.merged_at')}
    GROUP BY p.author_id
    HAVING COUNT(DISTINCT p.id) >= 3 AND COUNT(DISTINCT a.actor_id) = 1 AND COUNT(DISTINCT a.pull_request_id) = COUNT(DISTINCT p.id)
    ORDER BY p.author_id`;
}
