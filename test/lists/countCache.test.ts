import { CountCache, ResultCache } from '../../src/persistence/query/countCache';

describe('CountCache', () => {
  test('concurrent misses for one key run a single count and share its result', async () => {
    const cache = new CountCache(10_000);
    let calls = 0;
    let release: (n: number) => void = () => undefined;
    const count = () => {
      calls++;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const waiting = [cache.getOrCount('k', count), cache.getOrCount('k', count), cache.getOrCount('k', count)];
    release(42);
    expect(await Promise.all(waiting)).toEqual([42, 42, 42]);
    expect(calls).toBe(1);
    expect(await cache.getOrCount('k', count)).toBe(42);
    expect(calls).toBe(1);
  });

  test('a failed count is not cached, and the next request counts again', async () => {
    const cache = new CountCache(10_000);
    await expect(cache.getOrCount('k', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.getOrCount('k', async () => 7)).toBe(7);
  });

  test('entries expire after the TTL, and a TTL of 0 caches nothing', () => {
    const cache = new CountCache(1_000);
    cache.set('k', 5, 0);
    expect(cache.get('k', 999)).toBe(5);
    expect(cache.get('k', 1_000)).toBeUndefined();
    const off = new CountCache(0);
    off.set('k', 5, 0);
    expect(off.get('k', 0)).toBeUndefined();
  });

  test('the oldest entry goes when the cache is full', () => {
    const cache = new CountCache(10_000, 2);
    cache.set('a', 1, 0);
    cache.set('b', 2, 0);
    cache.set('c', 3, 0);
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([undefined, 2, 3]);
  });

  test('expired entries are dropped when new ones come, not kept until the cache is full', () => {
    const cache = new ResultCache<string>(1_000, 100);
    cache.set('a', 'x', 0);
    cache.set('b', 'y', 500);
    cache.set('c', 'z', 1_200);
    // 'a' expired at 1000 and is gone; 'b' (until 1500) stays.
    expect((cache as unknown as { entries: Map<string, unknown> }).entries.size).toBe(2);
    expect([cache.get('b', 1_300), cache.get('c', 1_300)]).toEqual(['y', 'z']);
  });
});
