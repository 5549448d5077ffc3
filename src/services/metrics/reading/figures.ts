import { Bucket, bucketsOf } from './window';
import { BucketOf, Distribution, emptyDistribution, MetricSql, roundHours } from './sql';

/** DORA performance bands (docs/metrics.md#bands); null when the figure is null. */
export type Band = 'elite' | 'high' | 'medium' | 'low';

/**
 * A figure's band by the software delivery performance clusters of one report, DORA's Accelerate State of DevOps
 * Report 2024 (dora.dev/research/2024/dora-report, "Software delivery performance levels"): each cluster as the
 * worst figure it still holds, and a figure takes the best band whose cluster it meets. Lower than every cluster, it
 * is low, the lowest the report has. Where the report gives a worse cluster a better figure than a better one (the
 * change fail rate's medium 10 % under high's 20 %; the recovery time's medium "less than one day", as high's), the
 * better band is taken first, so a better figure never has a worse band and medium is never that key's band.
 */
type Clusters = Record<Exclude<Band, 'low'>, (value: number) => boolean>;
const bandBy = (clusters: Clusters) => (value: number): Band => (['elite', 'high', 'medium'] as const).find((band) => clusters[band](value)) ?? 'low';
const nullable = (band: (value: number) => Band) => (value: number | null): Band | null => (value === null ? null : band(value));

/** On demand (several deployments a day); between once a day and once a week; between once a week and once a month (30 days). */
export const frequencyBand = bandBy({ elite: (perDay) => perDay > 1, high: (perDay) => perDay * 7 >= 1, medium: (perDay) => perDay * 30 >= 1 });

/** Under a day; between a day and a week; between a week and a month (30 days), in hours. */
export const leadTimeBand = nullable(bandBy({ elite: (hours) => hours < 24, high: (hours) => hours < 168, medium: (hours) => hours < 720 }));

/** The clusters' change fail rates: elite 5 %, high 20 %, medium 10 % (low 40 %): a rate up to 20 % is high, above it low. */
export const failureRateBand = nullable(bandBy({ elite: (rate) => rate <= 0.05, high: (rate) => rate <= 0.2, medium: (rate) => rate <= 0.1 }));

/** Failed deployment recovery time: under an hour; under a day; medium under a day too (low: a week to a month), in hours. */
export const restoreBand = nullable(bandBy({ elite: (hours) => hours < 1, high: (hours) => hours < 24, medium: (hours) => hours < 24 }));

/**
 * The 2024 report added the rework rate without clusters of its own (its clusters hold the other four keys); it
 * measures instability with the change fail rate, which it had taken as the proxy of rework until then: banded on
 * the change fail rate's clusters, the nearest the report gives.
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
