/**
 * Bands of a measure the metrics take percentiles of (a change's lead time, a pull request's review stages or size):
 * band 0 below one unit, then each about 25 % wider than the last, up to past 20 years of milliseconds. The writers
 * keep, per day, how many values fell in each band, and each value with its band (src/services/git/rollups/leadTimes.ts,
 * pullRequestSamples.ts): a percentile is then found in the band that holds its rank, bands being ordered as their
 * values, and read from that band alone. Bounds are whole numbers, so a writer (`of`) and a backfill in SQL (`sql`,
 * the same bounds as a CASE) put every value in the same band.
 */
export class Bands {
  /** Band b (b ≥ 1) starts at `starts[b - 1]`. */
  readonly starts: readonly number[];

  constructor(unit: number) {
    this.starts = Array.from({ length: 80 }, (_, i) => Math.ceil(unit * 1.25 ** i));
  }

  of(value: number): number {
    let [lo, hi] = [0, this.starts.length];
    // The number of band starts at or below the value.
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The same in SQL, for an integer expression. */
  sql(value: string): string {
    return `CASE ${this.starts.map((start, i) => `WHEN ${value} < ${start} THEN ${i}`).join(' ')} ELSE ${this.starts.length} END`;
  }
}

/** Durations in milliseconds: band 0 under a minute. */
export const durationBands = new Bands(60_000);

/** Sizes in lines: band 0 is none. */
export const sizeBands = new Bands(1);
