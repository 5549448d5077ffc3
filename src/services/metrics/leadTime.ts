import { bucketsOf } from './window';
import { Distribution, emptyDistribution, MetricSql } from './sql';

/**
 * DORA's lead time for changes, median per window and per series bucket, exact, from what the writers keep
 * (git/leadTimes.ts): the daily count of shipped changes per band of lead time says which band holds the median's
 * rank and its rank there; the value is then read from that band alone, one index range of shipped_changes. A year
 * of the large organization reads a few thousand rows, where ranking its 157k changes took seconds cold.
 */
type BandCount = { bucket: number; band: number; n: number };

/** Where a nearest-rank percentile lies: its band, and its rank among the band's values (1-based). */
interface Target {
  bucket: number;
  band: number;
  rank: number;
  from: Date;
  before: Date;
}

export async function leadTimeMedians(q: MetricSql): Promise<{ whole: Distribution; byBucket: Map<number, Distribution> }> {
  const bucket = q.window.interval ? q.series('ld.day') : '0';
  const counts = await q.rows<BandCount>(
    `SELECT ${bucket} AS bucket, ld.band, SUM(ld.changes) AS n FROM lead_time_days ld
     WHERE ${q.scoped('ld', 'rollup')} AND ${q.inDays('ld.day')} GROUP BY bucket, ld.band HAVING SUM(ld.changes) > 0`,
  );
  const perBucket = new Map<number, Map<number, number>>();
  const whole = new Map<number, number>();
  for (const { bucket: b, band, n } of counts) {
    const bands = perBucket.get(Number(b)) ?? new Map<number, number>();
    bands.set(Number(band), Number(n));
    perBucket.set(Number(b), bands);
    whole.set(Number(band), (whole.get(Number(band)) ?? 0) + Number(n));
  }
  const targets: Target[] = [];
  const wholeTarget = medianTarget(whole, -1, q.window.from, q.window.before);
  if (wholeTarget) targets.push(wholeTarget);
  if (q.window.interval) {
    bucketsOf(q.window).forEach((b, i) => {
      const target = medianTarget(perBucket.get(i) ?? new Map(), i, b.from, b.before);
      if (target) targets.push(target);
    });
  }
  const values = await valuesAt(q, targets);
  const distribution = (bands: Map<number, number>, key: number): Distribution => {
    const n = [...bands.values()].reduce((s, c) => s + c, 0);
    return n === 0 ? emptyDistribution : { n, at: { 50: values.get(key) ?? null, 75: null, 90: null } };
  };
  return { whole: distribution(whole, -1), byBucket: new Map([...perBucket].map(([i, bands]) => [i, distribution(bands, i)])) };
}

/** The median's rank ⌈n/2⌉ (nearest rank), found in the bands taken in order of their values. */
function medianTarget(bands: Map<number, number>, bucket: number, from: Date, before: Date): Target | null {
  const n = [...bands.values()].reduce((s, c) => s + c, 0);
  if (n === 0) return null;
  let rank = Math.ceil((50 * n) / 100);
  for (const [band, count] of [...bands].sort(([a], [b]) => a - b)) {
    if (rank <= count) return { bucket, band, rank, from, before };
    rank -= count;
  }
  throw new Error('a rank past the counted changes');
}

/** Each target's value, in hours, in one statement: per target, the band's values in its range, in order, at its rank. */
async function valuesAt(q: MetricSql, targets: Target[]): Promise<Map<number, number>> {
  if (targets.length === 0) return new Map();
  const hours = q.mysql ? 'sc.lead_ms / 3600000' : 'sc.lead_ms / 3600000.0';
  const arms = targets.map(
    (t, i) => `SELECT ${t.bucket} AS bucket, v FROM (SELECT ${hours} AS v FROM shipped_changes sc
      WHERE ${q.scoped('sc', 'repository')} AND sc.band = ${t.band} AND sc.finished_at >= ${q.at(t.from)} AND sc.finished_at < ${q.at(t.before)}
      ORDER BY sc.lead_ms LIMIT 1 OFFSET ${t.rank - 1}) AS t${i}`,
  );
  const rows = await q.rows<{ bucket: number; v: number }>(arms.join(' UNION ALL '));
  return new Map(rows.map((r) => [Number(r.bucket), Number(r.v)]));
}
