import { bandedPercentiles, Distributions } from './reading/bandedPercentiles';
import { BucketOf, emptyDistribution, MetricSql } from './reading/sql';

/**
 * DORA's lead time for changes, median per window and per series bucket, exact, from what the writers keep
 * (git/rollups/leadTimes.ts): the daily count of shipped changes per environment and band of lead time
 * (lead_time_days), and each change's lead time in one index range per band (shipped_changes), of the environments
 * the organization counts as production. A year of the large organization reads a few thousand rows, where ranking
 * its 157k changes took seconds cold.
 */
export async function leadTimeMedians(q: MetricSql): Promise<Distributions> {
  const groups = await bandedPercentiles(
    q,
    {
      counts: (bucket) => productionCounts(q, bucket),
      values: (_, band, from, before) => `SELECT sc.lead_ms AS v FROM shipped_changes sc
        WHERE ${q.scoped('sc', 'repository')} AND sc.band = ${band} AND sc.finished_at >= ${q.at(from)} AND sc.finished_at < ${q.at(before)} AND ${q.production('sc')}
        ORDER BY sc.lead_ms`,
      scale: (ms) => ms / 3_600_000,
    },
    [50],
  );
  return groups.get(0) ?? { whole: emptyDistribution, byBucket: new Map() };
}

/**
 * The daily counts of production's shipped changes per band. A team's rows are its repositories' own, each read by its
 * production environments (q.production). An organization's rows hold every repository's changes, so they can be read
 * only by the organization's list; a repository with a list of its own has its changes taken out of them by the
 * organization's list and put back by its own, from its own rows (kept beside the organization's:
 * git/rollups/leadTimes.ts). The counts stay exact, and without such repositories the statement is the plain one.
 */
function productionCounts(q: MetricSql, bucket: BucketOf): string {
  const days = q.inDays('ld.day');
  if (q.scope.repositoryIds || !q.productionOverridden.length) {
    return `SELECT ${bucket('ld.day')} AS bucket, 0 AS grp, ld.band, SUM(ld.changes) AS n FROM lead_time_days ld
      WHERE ${q.scoped('ld', 'rollup')} AND ${days} AND ${q.production('ld', 'scope_id')} GROUP BY bucket, ld.band`;
  }
  return `SELECT bucket, 0 AS grp, band, SUM(n) AS n FROM (
      SELECT ${bucket('ld.day')} AS bucket, ld.band, SUM(ld.changes) AS n FROM lead_time_days ld
        WHERE ${q.scoped('ld', 'rollup')} AND ${days} AND ${q.organizationProduction('ld')} GROUP BY bucket, ld.band
      UNION ALL
      SELECT ${bucket('ld.day')} AS bucket, ld.band,
          SUM(CASE WHEN ${q.production('ld', 'scope_id')} THEN ld.changes ELSE 0 END) - SUM(CASE WHEN ${q.organizationProduction('ld')} THEN ld.changes ELSE 0 END) AS n
        FROM lead_time_days ld WHERE ld.scope_id IN (:production_overridden) AND ${days} GROUP BY bucket, ld.band
    ) AS counted GROUP BY bucket, band`;
}
