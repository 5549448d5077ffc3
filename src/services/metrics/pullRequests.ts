import { BucketOf, emptyDistribution, MetricSql, roundHours } from './reading/sql';
import { byBucket, countBuckets, percentiles, series, total } from './reading/figures';
import { measureDistributions } from './mergedPullRequests';

/** Pull requests of the scope's repositories (docs/metrics.md): each counts where it was opened, merged or closed. */
export async function pullRequestFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [opened, closed, merges, open] = await Promise.all([
    q.rows<{ bucket: number; n: number }>(countWhere(q, counts, 'p.created_at', 'TRUE')),
    q.rows<{ bucket: number; n: number }>(countWhere(q, counts, 'p.closed_at', "p.state = 'closed' AND p.merged_at IS NULL")),
    measureDistributions(q, ['merge'], [50, 75, 90]),
    q.distribution(openAges(q)),
  ]);
  const [openedBy, closedBy] = [byBucket(opened), byBucket(closed)];
  const mergeTimes = merges.all('merge');
  const openNow = open.get(0) ?? emptyDistribution;
  return {
    opened: total(opened, 'n'),
    merged: mergeTimes?.whole.n ?? 0,
    closed_unmerged: total(closed, 'n'),
    time_to_merge_hours: percentiles(mergeTimes?.whole),
    open_now: openNow.n,
    open_age_hours: { median: roundHours(openNow.at[50]), p90: roundHours(openNow.at[90]) },
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      opened: openedBy.get(i)?.n ?? 0,
      merged: mergeTimes?.byBucket.get(i)?.n ?? 0,
      closed_unmerged: closedBy.get(i)?.n ?? 0,
      time_to_merge_hours: percentiles(mergeTimes?.byBucket.get(i)),
    })),
  };
}

function countWhere(q: MetricSql, bucket: BucketOf, at: string, condition: string): string {
  return `SELECT ${bucket(at)} AS bucket, COUNT(*) AS n FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND ${condition} AND ${q.inWindow(at)} AND ${q.people('p')} GROUP BY bucket`;
}

/** Age of each pull request open at the time of the request. */
function openAges(q: MetricSql): string {
  return `SELECT 0 AS bucket, ${q.hours('p.created_at', q.nowSql)} AS v FROM pull_requests p
    WHERE ${q.scoped('p', 'repository')} AND p.state = 'open' AND p.created_at <= ${q.nowSql} AND ${q.people('p')}`;
}
