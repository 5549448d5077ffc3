/**
 * Bands of lead time (DESIGN §14's lead time, kept per shipped change: leadTimes.ts): band 0 under a minute, then
 * each about 25 % longer than the last, up to past 20 years. Bounds are whole milliseconds, so the writer (here) and
 * a backfill in SQL (the same bounds as a CASE) put every lead time in the same band: a percentile is then found
 * in the band that holds its rank, bands being ordered as their values.
 */
const MINUTE_MS = 60_000;

/** Band b (b ≥ 1) starts at BAND_STARTS[b - 1] milliseconds. */
export const BAND_STARTS: readonly number[] = Array.from({ length: 80 }, (_, i) => Math.ceil(MINUTE_MS * 1.25 ** i));

export function bandOf(leadMs: number): number {
  let [lo, hi] = [0, BAND_STARTS.length];
  // The number of band starts at or below the lead time.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (BAND_STARTS[mid] <= leadMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The same in SQL, for a lead time expression in whole milliseconds. */
export const bandSql = (leadMs: string): string => `CASE ${BAND_STARTS.map((start, i) => `WHEN ${leadMs} < ${start} THEN ${i}`).join(' ')} ELSE ${BAND_STARTS.length} END`;
