/**
 * Results that cost far more to compute than to keep, asked for again and again with the same key: kept for a
 * short time; `ttlMs = 0` turns the cache off. Keys carry the data versions of what was read (dataVersions.ts),
 * so a change made through the service is seen at once.
 */
export class ResultCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();
  /** Computations under way: concurrent requests for the same key wait for one instead of each running it. */
  private readonly pending = new Map<string, Promise<T>>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now = Date.now()): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  async getOrCompute(key: string, compute: () => Promise<T>): Promise<T> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    let running = this.pending.get(key);
    if (!running) {
      running = compute().finally(() => this.pending.delete(key));
      this.pending.set(key, running);
      running.then((value) => this.set(key, value), () => undefined);
    }
    return running;
  }

  set(key: string, value: T, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    // Entries expire in the order they were made (one TTL): drop the expired ones at the front, so what the
    // cache holds is what was asked for within the TTL, not the last maxEntries results ever computed.
    for (const [k, entry] of this.entries) {
      if (entry.expires > now) break;
      this.entries.delete(k);
    }
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }
}

/**
 * Counting a large scope costs far more than reading a page (docs/performance.md#the-plans-the-lists-avoid: about 25x at 100k rows), and a client
 * paging through a list asks for the same total on every page: totals are kept per scope and filter.
 */
export class CountCache extends ResultCache<number> {
  getOrCount(key: string, count: () => Promise<number>): Promise<number> {
    return this.getOrCompute(key, count);
  }
}
