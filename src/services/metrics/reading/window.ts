/**
 * A metrics window (docs/metrics.md): whole UTC days `from`..`to` inclusive, and the buckets of its series: UTC days,
 * ISO weeks (Monday to Sunday) or calendar months, the first and last clipped to the window.
 */
export type Interval = 'day' | 'week' | 'month';

export const DAY_MS = 86_400_000;
export const MAX_WINDOW_DAYS = 366;
export const DEFAULT_WINDOW_DAYS = 28;

export interface MetricWindow {
  /** The first day, at 00:00 UTC. */
  from: Date;
  /** The day after the last: the window is [from, before). */
  before: Date;
  days: number;
  interval?: Interval;
}

export interface Bucket {
  /** `YYYY-MM-DD` */
  start: string;
  from: Date;
  before: Date;
}

export const day = (date: Date): string => date.toISOString().slice(0, 10);
export const startOfUtcDay = (date: Date): Date => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));

export function windowOf(from: Date, to: Date, interval?: Interval): MetricWindow {
  const before = new Date(to.getTime() + DAY_MS);
  return { from, before, days: Math.round((before.getTime() - from.getTime()) / DAY_MS), interval };
}

/** Days from Monday: Monday 0 … Sunday 6. */
const isoWeekday = (date: Date): number => (date.getUTCDay() + 6) % 7;

/** The buckets of the window's series, in order; bucket i is what the SQL bucket index i stands for. */
export function bucketsOf(window: MetricWindow): Bucket[] {
  const starts: Date[] = [];
  for (let at = window.from; at < window.before; at = nextBucketStart(at, window.interval!)) starts.push(at);
  return starts.map((from, i) => ({ start: day(from), from, before: starts[i + 1] ?? window.before }));
}

function nextBucketStart(at: Date, interval: Interval): Date {
  switch (interval) {
    case 'day':
      return new Date(at.getTime() + DAY_MS);
    case 'week':
      return new Date(at.getTime() + (7 - isoWeekday(at)) * DAY_MS);
    case 'month':
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  }
}

/** How a day index (days since `from`) maps to a week bucket: weeks start on Mondays, the first at `from`. */
export const weekOffset = (window: MetricWindow): number => isoWeekday(window.from);
