/**
 * Counting a large scope costs far more than reading a page (STACK-NOTES: about 25x at 100k rows), and
 * a client paging through a list asks for the same total on every page. Totals are kept per scope and
 * filter for a short time; `ttlMs = 0` turns the cache off.
 */
export class CountCache {
  private readonly entries = new Map<string, { total: number; expires: number }>();

  constructor(
    private readonly ttlMs: number,
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
