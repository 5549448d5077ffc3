import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Body, expectError, expectList, byCreatedDesc, listEnvelope as list } from '../support/assertions';
import { actorClient } from '../support/data/actors';
import { commitItem } from '../support/data/items';
import { Commit } from '../../db/models';
import { FIXTURE_DAYS } from '../../db/demo/fixtures/days';

/**
 * GET /v1/commits: the commits of every repository the caller can access (docs/api.md#items-and-their-fields), the created_at filters
 * of docs/api.md#wire-rules against fixture commits with known created_at, paging and the created_at-only sort.
 */

const C = DEMO.commits;
const O = DEMO.orgs;

const FIELDS = ['additions', 'ai_assisted', 'author_id', 'author_name', 'created_at', 'deletions', 'id', 'message', 'repository_id', 'sha'];
const DATE_RULE =
  'must be an ISO 8601 date (2026-01-15, meaning that whole UTC day) or date-time with Z or an offset (2026-01-15T10:30:00Z)';

let t: TestApp;
const tokens: Record<string, string> = {};
/** Every commit each caller can see, in the default order (read through /v1/commits). */
const everything: Record<string, Body[]> = {};

const { ok, all } = actorClient(() => t, tokens);

/** The union of the per-repository commit lists of every accessible git app, in the default order. */
async function unionOfRepositories(who: string): Promise<Body[]> {
  const apps = await all('/v1/git/apps', who);
  const out: Body[] = [];
  for (const app of apps) {
    const repos = await all(`/v1/git/apps/${app.id}/repositories`, who);
    for (const repo of repos) out.push(...(await all(`/v1/git/apps/${app.id}/repositories/${repo.id}/commits`, who)));
  }
  return out.sort(byCreatedDesc);
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' });
  for (const who of ['ada', 'linus', 'outsider', 'margaret', 'hedy'] as const) tokens[who] = await t.token({ user: DEMO.emails[who] });
  tokens.margaretGlobex = await t.token({ user: DEMO.emails.margaret, organizationIds: [O.globex] });
  tokens.adaPlatform = await t.token({ user: DEMO.emails.ada, teamIds: [DEMO.teams.platform] });
  for (const who of ['ada', 'outsider', 'margaret']) everything[who] = await all('/v1/commits', who);
});
afterAll(async () => t.close());

describe('GET /v1/commits', () => {
  test('the union of the per-repository lists of the caller\'s git apps, exactly', async () => {
    for (const who of ['ada', 'outsider', 'margaret']) {
      expect(everything[who]).toEqual(await unionOfRepositories(who));
      expect(everything[who].length).toBeGreaterThan(0);
    }
    expect(everything.ada.length).toBe(await Commit.count({ where: { organization_id: O.acme } }));
    expect(everything.margaret.length).toBe(everything.ada.length + everything.outsider.length);
    const body = await ok('/v1/commits?per_page=100', 'linus');
    expectList(body, FIELDS);
    expect(body).toEqual(list(everything.ada, { per_page: 100 }));
  });

  test('fixture commits appear exactly, only for callers of their organization', async () => {
    for (const id of [C.acmeApi1, C.acmeApi2, C.acmeApi3, C.acmeWeb1]) {
      expect(everything.ada).toContainEqual(commitItem(id));
      expect(everything.margaret).toContainEqual(commitItem(id));
      expect(everything.outsider.map((x) => x.id)).not.toContain(id);
    }
    expect(everything.outsider).toContainEqual({
      id: 'cmt_globex_core_1',
      repository_id: 'repo_globex_core',
      sha: 'a1d4c0de0000000000000000000000000000c001',
      message: 'Initial commit',
      author_id: 'usr_outsider',
      author_name: 'Olive Outsider',
      additions: 188,
      deletions: 0,
      ai_assisted: false,
      created_at: '2024-02-16T10:00:00.000Z',
    });
    expect(everything.ada.map((x) => x.id)).not.toContain(C.globexCore1);
  });

  test('token scopes: an organization scope narrows, a team scope allows the team\'s organization', async () => {
    expect(await all('/v1/commits', 'margaretGlobex')).toEqual(everything.outsider);
    expect(await all('/v1/commits', 'hedy')).toEqual(everything.outsider);
    expect(await all('/v1/commits', 'adaPlatform')).toEqual(everything.ada);
  });

  test('paging through every page, in both orders and several sizes, yields each id once, in order', async () => {
    for (const perPage of [1, 7, 50]) {
      expect(await all('/v1/commits', 'margaret', perPage)).toEqual(everything.margaret);
    }
    const asc = await all('/v1/commits?order=asc', 'margaret', 9);
    expect(asc).toEqual([...everything.margaret].reverse());
    // pages past the end, shallow and deep (deep pages are read differently), in both orders
    for (const page of [1000, 2000]) {
      for (const order of ['desc', 'asc']) {
        expect(await ok(`/v1/commits?per_page=10&page=${page}&order=${order}`, 'margaret')).toEqual(
          list([], { per_page: 10, page, order, total: everything.margaret.length, total_pages: Math.ceil(everything.margaret.length / 10) }),
        );
      }
    }
  });

  test('the api_2/api_3 tie is broken by id in the list\'s direction', async () => {
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20', 'ada')).toEqual(list([commitItem(C.acmeApi3), commitItem(C.acmeApi2)]));
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20&order=asc', 'ada')).toEqual(
      list([commitItem(C.acmeApi2), commitItem(C.acmeApi3)], { order: 'asc' }),
    );
  });

  test('sort is created_at only: unknown sorts are 400 naming it', async () => {
    for (const sort of ['name', 'title', 'sha', 'additions', 'id']) {
      expectError(await t.get(`/v1/commits?sort=${sort}`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at');
    }
    expect(await ok('/v1/commits?sort=created_at&per_page=100', 'ada')).toEqual(list(everything.ada, { per_page: 100 }));
    expectError(await t.get('/v1/commits?order=up', tokens.ada), 400, 'VALIDATION_ERROR', 'order must be asc or desc');
  });
});

describe('GET /v1/commits created_at filters', () => {
  test('a date means that whole UTC day', async () => {
    // no generated record lies on a fixture day
    expect(FIXTURE_DAYS).toEqual(expect.arrayContaining(['2024-01-15', '2024-01-16', '2024-02-16', '2024-03-20']));
    expect(await ok('/v1/commits?created_at[eq]=2024-01-15', 'ada')).toEqual(list([commitItem(C.acmeApi1)]));
    expect(await ok('/v1/commits?created_at[eq]=2024-01-16', 'margaret')).toEqual(list([commitItem(C.acmeWeb1)]));
    expect(await ok('/v1/commits?created_at[eq]=2024-02-16', 'margaret')).toEqual(list([commitItem(C.globexCore1)]));
    expect(await ok('/v1/commits?created_at[eq]=2024-02-16', 'ada')).toEqual(list([]));
    // gte = from the start of the day, lte = through its end: together, the day
    expect(await ok('/v1/commits?created_at[gte]=2024-03-20&created_at[lte]=2024-03-20', 'ada')).toEqual(
      list([commitItem(C.acmeApi3), commitItem(C.acmeApi2)]),
    );
    // gt = after the day, lt = before it: the day between two fixture days
    expect(await ok('/v1/commits?created_at[gt]=2024-01-15&created_at[lt]=2024-01-17', 'margaret')).toEqual(list([commitItem(C.acmeWeb1)]));
    expect(await ok('/v1/commits?created_at[gt]=2024-01-14&created_at[lt]=2024-01-16', 'ada')).toEqual(list([commitItem(C.acmeApi1)]));
  });

  test('a date-time means that instant (Z, offsets, milliseconds)', async () => {
    const api23 = list([commitItem(C.acmeApi3), commitItem(C.acmeApi2)]);
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20T14:00:00Z', 'ada')).toEqual(api23);
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20T14:00:00.000Z', 'ada')).toEqual(api23);
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20T16:00:00%2B02:00', 'ada')).toEqual(api23);
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20T09:00:00-05:00', 'ada')).toEqual(api23);
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20T14:00:00.001Z', 'ada')).toEqual(list([]));
    expect(await ok('/v1/commits?created_at[eq]=2024-03-20T13:59:59.999Z', 'ada')).toEqual(list([]));
    // [gte, lt) around one instant
    expect(await ok('/v1/commits?created_at[gte]=2024-01-15T10:00:00Z&created_at[lt]=2024-01-15T10:00:00.001Z', 'ada')).toEqual(
      list([commitItem(C.acmeApi1)]),
    );
    // gt excludes the instant, lte includes it
    expect(await ok('/v1/commits?created_at[gt]=2024-01-15T10:00:00Z&created_at[lte]=2024-01-16T10:00:00Z', 'margaret')).toEqual(
      list([commitItem(C.acmeWeb1)]),
    );
    expect(await ok('/v1/commits?created_at[gte]=2024-01-15T10:00:00Z&created_at[lt]=2024-01-16T10:00:00Z', 'margaret')).toEqual(
      list([commitItem(C.acmeApi1)]),
    );
  });

  test('every operator, with dates and date-times, matches the unfiltered list filtered by hand', async () => {
    const DAY_MS = 86_400_000;
    const bounds = (value: string): [number, number] => {
      if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
        const start = Date.parse(`${value}T00:00:00.000Z`);
        return [start, start + DAY_MS];
      }
      const at = Date.parse(value);
      return [at, at + 1];
    };
    const keep: Record<string, (at: number, [from, end]: [number, number]) => boolean> = {
      eq: (at, [from, end]) => at >= from && at < end,
      gte: (at, [from]) => at >= from,
      lte: (at, [, end]) => at < end,
      gt: (at, [, end]) => at >= end,
      lt: (at, [from]) => at < from,
    };
    const values = ['2024-01-15', '2024-03-20', '2024-03-20T14:00:00.000Z', '2024-02-16T10:00:00Z', '2025-06-01', '2025-06-01T12:30:00+02:00'];
    for (const op of Object.keys(keep)) {
      for (const value of values) {
        const expected = everything.margaret.filter((c) => keep[op](Date.parse(c.created_at), bounds(value)));
        const got = await all(`/v1/commits?created_at[${op}]=${encodeURIComponent(value)}`, 'margaret');
        expect({ op, value, ids: got.map((x) => x.id) }).toEqual({ op, value, ids: expected.map((x) => x.id) });
      }
    }
    // several operators combine with AND
    const from = '2024-06-01';
    const to = '2025-06-30T00:00:00Z';
    const both = await all(`/v1/commits?created_at[gte]=${from}&created_at[lt]=${to}`, 'margaret');
    const expected = everything.margaret.filter((c) => c.created_at >= '2024-06-01T00:00:00.000Z' && c.created_at < '2025-06-30T00:00:00.000Z');
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(everything.margaret.length);
    expect(both).toEqual(expected);
    // an empty intersection
    expect(await ok('/v1/commits?created_at[gt]=2024-03-20&created_at[lt]=2024-03-20', 'ada')).toEqual(list([]));
  });

  test('unparsable values and unknown operators are 400', async () => {
    for (const value of ['yesterday', '2024-02-30', '2024-03-20T25:00:00Z', '2024-03-20T14:00:00', '20240320', '']) {
      const res = await t.get(`/v1/commits?created_at[gte]=${encodeURIComponent(value)}`, tokens.ada);
      expectError(res, 400, 'VALIDATION_ERROR', /created_at\[gte\]/);
      if (value !== '') expect(res.body.error.message).toBe(`created_at[gte] ${DATE_RULE}`);
    }
    expectError(await t.get('/v1/commits?created_at[ne]=2024-03-20', tokens.ada), 400, 'VALIDATION_ERROR', /Unknown query parameter\(s\): 'created_at\[ne\]'/);
    expectError(await t.get('/v1/commits?created=2024-03-20', tokens.ada), 400, 'VALIDATION_ERROR', /Unknown query parameter\(s\): 'created'/);
  });
});
