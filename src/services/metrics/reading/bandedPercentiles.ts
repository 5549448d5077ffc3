import { bucketsOf } from './window';
import { BucketOf, Distribution, emptyDistribution, MetricSql, Percentile } from './sql';

/**
 * Exact nearest-rank percentiles from what the writers keep (db/rollups/bands.ts): daily counts per band say which band
 * holds a percentile's rank and its rank there; the value is then read from that band alone, one index range
 * ordered by value. A year of an organization reads a few thousand counts and one short range per percentile,
 * where ranking every value took seconds cold. Groups (a measure, AI-assisted or not) are ranked apart.
 */
export interface BandedSample {
  /** SQL selecting `bucket` (of the given BucketOf), `grp`, `band` and `n`: how many values each band holds. */
  counts(bucket: BucketOf): string;
  /** SQL selecting the values (`v`) of one group's band in [from, before), with its ORDER BY. */
  values(grp: number, band: number, from: Date, before: Date): string;
  /** A stored value of a group as the figure gives it (milliseconds to hours, say). */
  scale(value: number, grp: number): number;
}

export type Distributions = { whole: Distribution; byBucket: Map<number, Distribution> };

type Bands = Map<number, number>;
interface Target {
  key: string;
  grp: number;
  band: number;
  rank: number;
  from: Date;
  before: Date;
}

/** Arms per statement: SQLite's limit on a compound SELECT is 500. */
const ARMS = 400;
const WHOLE = -1;

export async function bandedPercentiles(q: MetricSql, sample: BandedSample, percentiles: readonly Percentile[]): Promise<Map<number, Distributions>> {
  const counts = await q.rows<{ bucket: number; grp: number; band: number; n: number }>(sample.counts(q.window.interval ? q.series : q.whole));
  // Per group, per bucket (WHOLE: the window), per band: how many values.
  const groups = new Map<number, Map<number, Bands>>();
  const add = (grp: number, bucket: number, band: number, n: number) => {
    const buckets = groups.get(grp) ?? new Map<number, Bands>();
    const bands = buckets.get(bucket) ?? new Map<number, number>();
    bands.set(band, (bands.get(band) ?? 0) + n);
    buckets.set(bucket, bands);
    groups.set(grp, buckets);
  };
  for (const row of counts) {
    if (Number(row.n) === 0) continue;
    add(Number(row.grp), WHOLE, Number(row.band), Number(row.n));
    if (q.window.interval) add(Number(row.grp), Number(row.bucket), Number(row.band), Number(row.n));
  }
  const ranges = new Map<number, { from: Date; before: Date }>([[WHOLE, { from: q.window.from, before: q.window.before }], ...(q.window.interval ? bucketsOf(q.window).map((b, i) => [i, b] as const) : [])]);
  const targets: Target[] = [];
  for (const [grp, buckets] of groups) {
    for (const [bucket, bands] of buckets) {
      for (const p of percentiles) targets.push({ key: `${grp}:${bucket}:${p}`, grp, ...rankIn(bands, p), ...ranges.get(bucket)! });
    }
  }
  const values = await valuesAt(q, sample, targets);
  const result = new Map<number, Distributions>();
  for (const [grp, buckets] of groups) {
    const distribution = (bucket: number): Distribution => {
      const n = [...buckets.get(bucket)!.values()].reduce((s, c) => s + c, 0);
      const at = { ...emptyDistribution.at };
      for (const p of percentiles) at[p] = values.get(`${grp}:${bucket}:${p}`) ?? null;
      return { n, at };
    };
    result.set(grp, { whole: distribution(WHOLE), byBucket: new Map([...buckets.keys()].filter((b) => b !== WHOLE).map((b) => [b, distribution(b)])) });
  }
  return result;
}

/** The nearest rank ⌈p·n/100⌉, found in the bands taken in order of their values. */
function rankIn(bands: Bands, p: Percentile): { band: number; rank: number } {
  const n = [...bands.values()].reduce((s, c) => s + c, 0);
  let rank = Math.ceil((p * n) / 100);
  for (const [band, count] of [...bands].sort(([a], [b]) => a - b)) {
    if (rank <= count) return { band, rank };
    rank -= count;
  }
  throw new Error('a rank past the counted values');
}

/** Each target's value, a few statements at most: per target, its band's values in its range, in order, at its rank. */
async function valuesAt(q: MetricSql, sample: BandedSample, targets: Target[]): Promise<Map<string, number>> {
  const arms = new Map<string, { keys: string[]; grp: number; sql: string }>();
  for (const t of targets) {
    // Percentiles that fall on the same value share its arm.
    const armKey = `${t.grp}:${t.band}:${t.rank}:${t.from.getTime()}:${t.before.getTime()}`;
    const arm = arms.get(armKey) ?? { keys: [], grp: t.grp, sql: `${sample.values(t.grp, t.band, t.from, t.before)} LIMIT 1 OFFSET ${t.rank - 1}` };
    arm.keys.push(t.key);
    arms.set(armKey, arm);
  }
  const all = [...arms.values()];
  const statements: Promise<{ arm: number; v: number }[]>[] = [];
  for (let i = 0; i < all.length; i += ARMS) {
    const sql = all
      .slice(i, i + ARMS)
      .map((arm, j) => `SELECT ${i + j} AS arm, v FROM (${arm.sql}) AS t${i + j}`)
      .join(' UNION ALL ');
    statements.push(q.rows<{ arm: number; v: number }>(sql));
  }
  const values = new Map<string, number>();
  for (const rows of await Promise.all(statements)) {
    for (const row of rows) for (const key of all[Number(row.arm)].keys) values.set(key, sample.scale(Number(row.v), all[Number(row.arm)].grp));
  }
  return values;
}
