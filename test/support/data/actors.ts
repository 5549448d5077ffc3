import type { TestApp } from '../harness';
import type { Body } from '../assertions';
import { readThroughCaller } from '../callers';

/**
 * GET helpers acting as one of a test file's callers: `tokens[who]` is the bearer token. `getApp` is read on
 * every call, so the client can be made before `beforeAll` starts the app.
 */
export function actorClient(getApp: () => TestApp, tokens: Record<string, string>) {
  /** GET as `who`; throws unless 200 and returns the body. */
  async function ok(path: string, who: string): Promise<Body> {
    const res = await getApp().get(path, tokens[who]);
    if (res.status !== 200) throw new Error(`GET ${path} as ${who} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** Every item of a list, page by page (per_page 100); checks the meta of every page and that no id repeats. */
  async function all(path: string, who: string, perPage = 100): Promise<Body[]> {
    const sep = path.includes('?') ? '&' : '?';
    const first = await ok(`${path}${sep}per_page=${perPage}&page=1`, who);
    const items = [...first.data];
    for (let page = 2; page <= first.meta.total_pages; page++) {
      const body = await ok(`${path}${sep}per_page=${perPage}&page=${page}`, who);
      expect(body.meta).toEqual({ ...first.meta, page });
      items.push(...body.data);
    }
    expect(items).toHaveLength(first.meta.total);
    expect(new Set(items.map((x) => x.id)).size).toBe(items.length);
    return items;
  }

  /** What the procedure serving `path` answers `who`, called without HTTP; for tests where the wire adds nothing. */
  const read = (path: string, who: string): Promise<Body> => readThroughCaller(getApp(), tokens[who], path);

  return { ok, all, read };
}
