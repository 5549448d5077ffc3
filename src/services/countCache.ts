/**
 * Counting a large scope costs far more than reading a page (STACK-NOTES: about 25x at 100k rows), and
 * a client paging through a list asks for the same total on every page. Totals are kept per scope and
 * filter for a short time; `ttlMs = 0` turns the cache off.
 */
export class CountCache {
  private readonly entries = new Map<string, { total: number; expires: number }>();
  /** Counts under way: concurrent requests for the same key wait for one query instead of each running it. */
  private readonly pending = new Map<string, Promise<number>>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now = Date.now()): number | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.total;
  }

  async getOrCount(key: string, count: () => Promise<number>): Promise<number> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    let running = this.pending.get(key);
    if (!running) {
      running = count().finally(() => this.pending.delete(key));
      this.pending.set(key, running);
      running.then((total) => this.set(key, total), () => undefined);
    }
    return running;
  }

  set(key: string, total: number, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { total, expires: now + this.ttlMs });
  }
}
