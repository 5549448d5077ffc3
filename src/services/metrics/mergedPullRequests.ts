import { Measure, MEASURES, MeasureName } from '../../../db/rollups/pullRequestMeasures';
import { bandedPercentiles, Distributions } from './reading/bandedPercentiles';
import { BucketOf, MetricSql, Percentile } from './reading/sql';
import { measureRead } from './settings/drafts';

/**
 * The scope's pull requests merged in the window, as the writers keep them (git/rollups/pullRequestSamples.ts): how many
 * per bucket, and the percentiles of what is measured on them, each counting where it was merged.
 */
export type MergedCounts = { bucket: number; merged: number; ai: number; reviewed: number; iterated: number };

/** Per bucket: merged, AI-assisted, reviewed before the merge (they have a pickup time), iterated. */
export function mergedCountsSql(q: MetricSql, bucket: BucketOf): string {
  const count = (measure: MeasureName, extra = '') => `SUM(CASE WHEN pd.measure = ${MEASURES[measure].id}${extra} THEN pd.pull_requests ELSE 0 END)`;
  const rows = mergedDays(q, [MEASURES.merge.id, MEASURES.pickup.id, MEASURES.iterated.id]);
  return `SELECT ${bucket('pd.day')} AS bucket, ${count('merge')} AS merged, ${count('merge', ' AND pd.ai = 1')} AS ai, ${count('pickup')} AS reviewed, ${count('iterated')} AS iterated
    FROM (${rows}) AS pd GROUP BY bucket`;
}

/** The scope's counts of merged pull requests per day (a month's at its first day), measure, AI-assisted or not, and band. */
const mergedDays = (q: MetricSql, measures: number[]) =>
  q.daysAndMonths({ daily: 'pull_request_days', monthly: 'pull_request_months' }, ['measure', 'ai', 'band', 'pull_requests'], (a) => `${q.scoped(a, 'rollup')} AND ${a}.measure IN (${measures.join(', ')}) AND ${q.people(a)}`);

const HOUR_MS = 3_600_000;

/**
 * Percentiles of measures, each over all merged pull requests, or (`byAi`) apart for the AI-assisted and the others:
 * keyed by measure name, and by `ai` or `other` when split. Each name is read as the organization's settings say
 * (settings/drafts.ts: a draft's times from ready for review).
 */
export async function measureDistributions<M extends MeasureName>(q: MetricSql, names: readonly M[], percentiles: readonly Percentile[], byAi = false) {
  const idOf = (name: M) => measureRead(q.settings.settings, name).id;
  const group = (name: M, ai?: boolean) => idOf(name) * 2 + (ai ? 1 : 0);
  const groups = await bandedPercentiles(
    q,
    {
      counts: (bucket) => `SELECT ${bucket('pd.day')} AS bucket, ${byAi ? 'pd.measure * 2 + pd.ai' : 'pd.measure * 2'} AS grp, pd.band, SUM(pd.pull_requests) AS n
        FROM (${mergedDays(q, names.map(idOf))}) AS pd GROUP BY bucket, grp, pd.band`,
      values: (grp, band, from, before) => `SELECT ps.value AS v FROM pull_request_samples ps
        WHERE ${q.scoped('ps', 'repository')} AND ps.measure = ${Math.floor(grp / 2)} AND ps.ai ${byAi ? `= ${grp % 2}` : 'IN (0, 1)'} AND ps.band = ${band}
          AND ps.merged_at >= ${q.at(from)} AND ps.merged_at < ${q.at(before)} AND ${q.people('ps')}
        ORDER BY ps.value`,
      // Durations in hours, sizes in lines.
      scale: (value, grp) => (MEASURE_OF[Math.floor(grp / 2)].unit === 'ms' ? value / HOUR_MS : value),
    },
    percentiles,
  );
  const of = (name: M, ai?: boolean): Distributions | undefined => groups.get(group(name, ai));
  return {
    all: (name: M) => of(name),
    ai: (name: M) => of(name, true),
    other: (name: M) => of(name, false),
  };
}

const MEASURE_OF: Record<number, Measure> = Object.fromEntries(Object.values(MEASURES).map((m) => [m.id, m]));
