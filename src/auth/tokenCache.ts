/**
 * Who a token is, by its hash, as looked up in the last `ttlMs`: every instance answers from here for that long,
 * so a revocation bites within it (docs/api.md#tokens-limits-and-headers), and no more than `maxEntries` are kept (oldest out first).
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(private readonly ttlMs: number, private readonly maxEntries = 1_000) {}

  async get(hash: string, now: Date, load: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(hash);
    if (entry && entry.until > now.getTime()) return entry.value;
    const value = await load();
    if (this.ttlMs > 0) {
      const oldest = this.entries.keys().next();
      if (this.entries.size >= this.maxEntries && !oldest.done) this.entries.delete(oldest.value);
      this.entries.set(hash, { value, until: now.getTime() + this.ttlMs });
    }
    return value;
  }
}
