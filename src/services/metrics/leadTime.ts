import { bandedPercentiles, Distributions } from './reading/bandedPercentiles';
import { emptyDistribution, MetricSql } from './reading/sql';

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
      counts: (bucket) => `SELECT ${bucket('ld.day')} AS bucket, 0 AS grp, ld.band, SUM(ld.changes) AS n FROM lead_time_days ld
        WHERE ${q.scoped('ld', 'rollup')} AND ${q.inDays('ld.day')} AND ${q.production('ld')} GROUP BY bucket, ld.band`,
      values: (_, band, from, before) => `SELECT sc.lead_ms AS v FROM shipped_changes sc
        WHERE ${q.scoped('sc', 'repository')} AND sc.band = ${band} AND sc.finished_at >= ${q.at(from)} AND sc.finished_at < ${q.at(before)} AND ${q.production('sc')}
        ORDER BY sc.lead_ms`,
      scale: (ms) => ms / 3_600_000,
    },
    [50],
  );
  return groups.get(0) ?? { whole: emptyDistribution, byBucket: new Map() };
}
