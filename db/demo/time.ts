import { DAY_MS, Random } from './random';
import { FIXTURE_DAYS } from './fixtures/days';
import { DEMO_END, DEMO_START } from './fixtures/timeline';

/**
 * The demo's timeline as the fixtures write it (fixtures/timeline.ts): its span, the days the fixtures keep to
 * themselves, and the draws on it.
 */

export const toDate = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));

/** 00:00 UTC of a YYYY-MM-DD day that exists, else NaN. */
export function startOfDay(day: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00.000Z`) : NaN;
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day ? NaN : ms;
}

/** A day the demo can end on: a real date, YYYY-MM-DD. */
export const isDemoEndDay = (value: string): boolean => !Number.isNaN(startOfDay(value));

export const START_MS = DEMO_START.getTime();
export const END_MS = DEMO_END.getTime();
export const RESERVED_DAYS = new Set(FIXTURE_DAYS.map((d) => Math.floor(Date.parse(`${d}T00:00:00.000Z`) / DAY_MS)));
export const isReserved = (ms: number) => RESERVED_DAYS.has(Math.floor(ms / DAY_MS));

/**
 * A created_at in [from, to) that is not on a fixture day: a draw on a reserved day moves by whole days
 * (forward, then backward) to the nearest free day inside the range.
 */
export function createdAt(rng: Random, fromMs: number, toMs: number): number {
  const from = Math.max(START_MS, fromMs);
  const to = Math.min(END_MS, Math.max(toMs, from + 1));
  const t = rng.timeMs(from, to);
  if (!isReserved(t)) return t;
  for (let k = 1; k <= 400; k++) {
    const f = t + k * DAY_MS;
    if (f < to && !isReserved(f)) return f;
    const b = t - k * DAY_MS;
    if (b >= from && !isReserved(b)) return b;
    if (f >= to && b < from) break;
  }
  return t;
}

/** n sorted created_at values in [from, to); with probability `tieChance` a value repeats its predecessor. */
export function sortedCreatedAts(rng: Random, n: number, fromMs: number, toMs: number, tieChance: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = createdAt(rng, fromMs, toMs);
  out.sort();
  for (let i = 1; i < n; i++) if (rng.chance(tieChance)) out[i] = out[i - 1];
  return out;
}

/** A later timestamp (e.g. merged_at), at least 1 ms after `fromMs` when possible, capped below DEMO_END. */
export function laterMs(rng: Random, fromMs: number, minMs: number, maxMs: number): number {
  return Math.min(fromMs + rng.durationMs(minMs, maxMs), END_MS - 1);
}

/** The first moment at or after `ms` that is on no fixture day; undefined past the demo's end. */
export function freeMs(ms: number): number | undefined {
  let t = ms;
  while (isReserved(t)) t += DAY_MS;
  return t < END_MS ? t : undefined;
}

/** Splits `total` into integer parts proportional to `weights` (largest remainder, ties by index). */
export function allocate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0 || sum <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w / sum) * total);
  const parts = exact.map(Math.floor);
  let rest = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; rest > 0; k = (k + 1) % order.length, rest--) parts[order[k][1]]++;
  return parts;
}

export const HOUR = 3_600_000;
export const MINUTE = 60_000;
