import { BucketOf, emptyDistribution, MetricSql, roundHours } from './sql';
import { byBucket, countBuckets, distributions, percentiles, series, total } from './figures';

/** Pull requests of the scope's repositories (DESIGN §14): each counts where it was opened, merged or closed. */
export async function pullRequestFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [opened, closed, merges, open] = await Promise.all([
    q.rows<{ bucket: number; n: number }>(countWhere(q, counts, 'p.created_at', 'TRUE')),
    q.rows<{ bucket: number; n: number }>(countWhere(q, counts, 'p.closed_at', "p.state = 'closed' AND p.merged_at IS NULL")),
    distributions(q, (bucket) => mergeTimes(q, bucket)),
    q.distribution(openAges(q)),
  ]);
  const [openedBy, closedBy] = [byBucket(opened), byBucket(closed)];
  const openNow = open.get(0) ?? emptyDistribution;
  return {
    opened: total(opened, 'n'),
    merged: merges.whole.n,
    closed_unmerged: total(closed, 'n'),
    time_to_merge_hours: percentiles(merges.whole),
    open_now: openNow.n,
    open_age_hours: { median: roundHours(openNow.at[50]), p90: roundHours(openNow.at[90]) },
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      opened: openedBy.get(i)?.n ?? 0,
      merged: merges.byBucket.get(i)?.n ?? 0,
      closed_unmerged: closedBy.get(i)?.n ?? 0,
      time_to_merge_hours: percentiles(merges.byBucket.get(i)),
    })),
  };
}

function countWhere(q: MetricSql, bucket: BucketOf, at: string, condition: string): string {
  return `SELECT ${bucket(at)} AS bucket, COUNT(*) AS n FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND ${condition} AND ${q.inWindow(at)} GROUP BY bucket`;
}

/** Time to merge of each pull request merged in the window. */
function mergeTimes(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('p.merged_at')} AS bucket, ${q.hours('p.created_at', 'p.merged_at')} AS v FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND p.merged_at IS NOT NULL AND ${q.inWindow('p.merged_at')}`;
}

/** Age of each pull request open at the time of the request. */
function openAges(q: MetricSql): string {
  return `SELECT 0 AS bucket, ${q.hours('p.created_at', q.nowSql)} AS v FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND p.state = 'open' AND p.created_at <= ${q.nowSql}`;
}
