import { Bucket, bucketsOf } from './window';
import { BucketOf, Distribution, emptyDistribution, MetricSql, roundHours } from './sql';

/** DORA performance bands (docs/metrics.md); null when the figure is null. */
export type Band = 'elite' | 'high' | 'medium' | 'low';

/** Elite: at least daily; high: weekly; medium: monthly (a month being 30 days). */
export function frequencyBand(perDay: number): Band {
  if (perDay >= 1) return 'elite';
  if (perDay * 7 >= 1) return 'high';
  if (perDay * 30 >= 1) return 'medium';
  return 'low';
}

const below = (elite: number, high: number, medium: number) => (value: number | null): Band | null => {
  if (value === null) return null;
  if (value < elite) return 'elite';
  if (value < high) return 'high';
  return value < medium ? 'medium' : 'low';
};

export const leadTimeBand = below(24, 168, 720);
export const restoreBand = below(1, 24, 168);

export function failureRateBand(rate: number | null): Band | null {
  if (rate === null) return null;
  if (rate <= 0.05) return 'elite';
  if (rate <= 0.1) return 'high';
  return rate <= 0.15 ? 'medium' : 'low';
}

/**
 * The 2024 report introduced the rework rate without clusters of its own (its clusters hold the other four keys);
 * DORA took the change failure rate as its proxy, so it is banded on the failure rate's thresholds.
 */
export const reworkRateBand = failureRateBand;

export const ratio = (part: number, whole: number, digits = 4): number | null => (whole === 0 ? null : round(part / whole, digits));
export const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

export const percentiles = (d: Distribution = emptyDistribution) => ({ median: roundHours(d.at[50]), p75: roundHours(d.at[75]), p90: roundHours(d.at[90]) });

/** Grouped rows by bucket index. */
export function byBucket<T extends { bucket: number }>(rows: T[]): Map<number, T> {
  return new Map(rows.map((r) => [Number(r.bucket), r]));
}

export function total<T>(rows: T[], key: keyof T): number {
  return rows.reduce((sum, row) => sum + Number(row[key] ?? 0), 0);
}

/**
 * Counts are grouped by the series' buckets when there is a series (their sums are the totals), by the whole
 * window otherwise: one grouped query either way.
 */
export const countBuckets = (q: MetricSql): BucketOf => (q.window.interval ? q.series : q.whole);

/** The series, one entry per bucket of the window, when an interval was asked for. */
export function series<T>(q: MetricSql, entry: (bucket: Bucket, index: number) => T): T[] | undefined {
  return q.window.interval ? bucketsOf(q.window).map(entry) : undefined;
}

/** The window's distribution and, with a series, each bucket's: the same sample grouped two ways. */
export async function distributions(q: MetricSql, sample: (bucket: BucketOf) => string): Promise<{ whole: Distribution; byBucket: Map<number, Distribution> }> {
  const [whole, buckets] = await Promise.all([q.distribution(sample(q.whole)), q.window.interval ? q.distribution(sample(q.series)) : undefined]);
  return { whole: whole.get(0) ?? emptyDistribution, byBucket: buckets ?? new Map() };
}
