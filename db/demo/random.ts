/**
 * A small seeded PRNG for the demo data. sfc32 (Chris Doty-Humphrey's Small Fast Counter, 32-bit),
 * seeded through splitmix32 from a 32-bit hash of the seed and a label. Pure integer arithmetic on
 * `Math.imul`/`>>>`, so the same seed yields the same sequence on every platform and Node version.
 *
 * Never use `Math.random()` or `Date.now()` in the generator: everything random comes from here.
 */

const BASE36_6 = 36 ** 6; // 2_176_782_336 < 2^32
export const DAY_MS = 86_400_000;

/** FNV-1a over the UTF-16 code units of the parts, joined by NUL; a 32-bit unsigned hash. */
export function hashSeed(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  const text = parts.map(String).join('\u0000');
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  /** The 32-bit seed this stream was started from (useful in log lines). */
  readonly seed: number;

  constructor(seed: number | string) {
    this.seed = typeof seed === 'number' && Number.isInteger(seed) ? seed >>> 0 : hashSeed(seed);
    // splitmix32 expands the seed into the four state words.
    let s = this.seed;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32(); // warm-up
  }

  /** An independent stream derived from this stream's seed and a label (does not advance this one). */
  fork(label: string | number): Random {
    return new Random(hashSeed(this.seed, label));
  }

  /** Next unsigned 32-bit integer. */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`int(${min}, ${max}): max < min`);
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick() from an empty array');
    return items[Math.floor(this.float() * items.length)];
  }

  /** Picks a value by relative weight: `weighted([['a', 3], ['b', 1]])` returns 'a' three times as often. */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, w] of entries) total += w;
    let x = this.float() * total;
    for (const [value, w] of entries) {
      x -= w;
      if (x < 0) return value;
    }
    return entries[entries.length - 1][0];
  }

  /** A new array with the items in a random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      const tmp = out[i];
      out[i] = out[j];
      out[j] = tmp;
    }
    return out;
  }

  /** k distinct items (k clamped to the array length), in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, Math.min(k, items.length)));
  }

  /** An opaque id: `prefix` + 12 lowercase base36 characters, e.g. `usr_0k3j9x2m1q7a`. */
  id(prefix: string): string {
    const hi = Math.floor(this.float() * BASE36_6).toString(36).padStart(6, '0');
    const lo = Math.floor(this.float() * BASE36_6).toString(36).padStart(6, '0');
    return prefix + hi + lo;
  }

  /** `length` lowercase hex characters (e.g. 40 for a git SHA-1). */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.uint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** `length` characters drawn from `alphabet`. */
  chars(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.float() * alphabet.length)];
    return out;
  }

  /** Uniform epoch milliseconds in [from, to) (integer, so millisecond precision). */
  timeMs(from: number | Date, to: number | Date): number {
    const lo = typeof from === 'number' ? from : from.getTime();
    const hi = typeof to === 'number' ? to : to.getTime();
    if (hi <= lo) return lo;
    return lo + Math.floor(this.float() * (hi - lo));
  }

  /** Uniform Date in [from, to), millisecond precision. */
  date(from: number | Date, to: number | Date): Date {
    return new Date(this.timeMs(from, to));
  }

  /** A duration in ms between minMs and maxMs, skewed towards the short end (log-uniform). */
  durationMs(minMs: number, maxMs: number): number {
    const lo = Math.log(Math.max(1, minMs));
    const hi = Math.log(Math.max(minMs + 1, maxMs));
    return Math.round(Math.exp(lo + this.float() * (hi - lo)));
  }
}

