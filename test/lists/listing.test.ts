import { startTestApp, TestApp, DEMO } from '../support/harness';
import { ListingService } from '../../src/persistence/query/listing';
import type { ListSource, PageRequest } from '../../src/persistence/query/listSource';
import { CountCache } from '../../src/persistence/query/countCache';
import { DataVersions } from '../../src/persistence/query/dataVersions';
import { PageAnchors } from '../../src/persistence/query/pageAnchors';
import { organizationMembers } from '../../src/services/people/organizationScopes';
import { userApps, visibleUsers } from '../../src/services/people/userScopes';
import { commits } from '../../src/services/git/gitScopes';
import { literal, Op } from 'sequelize';
import { User } from '../../db/models';
import { toUser } from '../../src/resources/people';

// Deep pages are read with a deferred join; with the threshold at 0 every page takes that path, and each
// must equal the page the plain OFFSET query returns.
let t: TestApp;
let plain: ListingService;
let deferred: ListingService;
const versions = () => DataVersions.for(t.runtime.sequelize);

beforeAll(async () => {
  t = await startTestApp();
  plain = new ListingService(versions(), new CountCache(0), { deferredJoinOffset: Number.MAX_SAFE_INTEGER, mergeMaxRows: Number.MAX_SAFE_INTEGER });
  deferred = new ListingService(versions(), new CountCache(0), { deferredJoinOffset: 0, mergeMaxRows: 0 });
});
afterAll(async () => t.close());

const sources: Record<string, () => ListSource<unknown>> = {
  'users visible to ada (keys from one range of the membership index)': () =>
    visibleUsers({ userId: DEMO.users.ada, tokenId: 'tok_test', organizations: new Map([[DEMO.orgs.acme, 'admin']]), teamScope: null, teams: new Map() }),
  'organization members (composite key, sort fields on the membership row)': () => organizationMembers(DEMO.orgs.acme),
  "a user's apps (composite key, filtered include)": () => userApps(DEMO.users.margaret, { organizationIds: [DEMO.orgs.acme, DEMO.orgs.globex], managedTeamIds: [] }),
};

describe.each(Object.entries(sources))('deferred join: %s', (_name, source) => {
  test.each([
    ['created_at', 'desc'],
    ['name', 'asc'],
    ['created_at', 'asc'],
  ] as const)('sort=%s order=%s: every page equals the OFFSET page', async (sort, order) => {
    const request: PageRequest = { page: 1, perPage: 2, sort, order };
    const first = await plain.fetchPage(source(), request);
    expect(first.total).toBeGreaterThan(1);
    const pages = Math.ceil(first.total / 2) + 1; // one past the end too
    for (let page = 1; page <= pages; page++) {
      const [a, b] = await Promise.all([
        plain.fetchPage(source(), { ...request, page }),
        deferred.fetchPage(source(), { ...request, page }),
      ]);
      expect(b).toEqual(a);
    }
  });
});

describe('partitioned scope: a page of several organizations is the merge of one ordered range per organization', () => {
  const both = [DEMO.orgs.acme, DEMO.orgs.globex];
  const merged = () => commits({ organizationIds: both });
  // The same rows selected with a plain IN, which the merge must reproduce exactly.
  const withIn = async (): Promise<ListSource<unknown>> => {
    const { partition, ...rest } = await merged();
    return { ...rest, where: { organization_id: { [Op.in]: partition!.values } } };
  };

  test.each([
    ['desc', undefined],
    ['asc', undefined],
    ['desc', { from: new Date('2025-01-01T00:00:00Z') }],
  ] as const)('order=%s, created_at range %j: every page, and one past the end, equals the IN query', async (order, createdAt) => {
    const request: PageRequest = { page: 1, perPage: 7, sort: 'created_at', order, createdAt };
    const first = await plain.fetchPage(await withIn(), request);
    expect(first.total).toBeGreaterThan(7);
    const repositories = new Set<string>();
    for (let page = 1; page <= Math.ceil(first.total / 7) + 1; page++) {
      const [a, b, c] = await Promise.all([
        plain.fetchPage(await withIn(), { ...request, page }),
        plain.fetchPage(await merged(), { ...request, page }),
        // Past mergeMaxRows the partitioned source falls back to a deferred join over the IN.
        deferred.fetchPage(await merged(), { ...request, page }),
      ]);
      expect(b).toEqual(a);
      expect(c).toEqual(a);
      for (const item of b.items as { repository_id: string }[]) repositories.add(item.repository_id);
    }
    expect(repositories.size).toBeGreaterThan(1);
  });
});

describe('keys from the membership index: users visible across several organizations', () => {
  const margaret = () =>
    visibleUsers({
      userId: DEMO.users.margaret,
      tokenId: 'tok_test',
      organizations: new Map([
        [DEMO.orgs.acme, 'collaborator'],
        [DEMO.orgs.globex, 'admin'],
      ]),
      teamScope: null,
      teams: new Map(),
    });

  /** The same list read the obvious way: users whose id is among the two organizations' members. */
  async function reference(sort: 'created_at' | 'name' | 'email', order: 'asc' | 'desc', createdAt?: { from: Date }) {
    const direction = order.toUpperCase();
    const users = await User.findAll({
      where: {
        id: { [Op.in]: literal(`(SELECT m.user_id FROM organization_memberships m WHERE m.organization_id IN ('${DEMO.orgs.acme}', '${DEMO.orgs.globex}'))`) },
        ...(createdAt ? { created_at: { [Op.gte]: createdAt.from } } : {}),
      },
      order: [
        [sort, direction],
        ['id', direction],
      ],
    });
    return users.map(toUser);
  }

  test.each([
    ['created_at', 'desc', undefined],
    ['name', 'asc', undefined],
    ['email', 'desc', undefined],
    ['created_at', 'asc', { from: new Date('2025-01-01T00:00:00Z') }],
  ] as const)('sort=%s order=%s created_at %j: merged and grouped pages both equal the obvious query, each user once', async (sort, order, createdAt) => {
    const expected = await reference(sort, order, createdAt);
    expect(expected.length).toBeGreaterThan(10);
    if (!createdAt) expect(expected.filter((u) => u.id === DEMO.users.margaret)).toHaveLength(1);
    const perPage = 7;
    for (let page = 1; page <= Math.ceil(expected.length / perPage) + 1; page++) {
      const request: PageRequest = { page, perPage, sort, order, createdAt };
      const want = { items: expected.slice((page - 1) * perPage, page * perPage), total: expected.length };
      const [merged, grouped] = await Promise.all([plain.fetchPage(margaret(), request), deferred.fetchPage(margaret(), request)]);
      expect(merged).toEqual(want);
      expect(grouped).toEqual(want);
    }
  });
});

describe('deep pages read from anchors (blocks of 3 positions here), whatever order pages are asked in', () => {
  const anchored = () => new ListingService(versions(), new CountCache(0), { deferredJoinOffset: 0, mergeMaxRows: 0 }, new PageAnchors(3, 60_000));
  // The git scopes are async: they first look up the repositories hidden after a deletion (none here).
  const lists: Record<string, () => ListSource<unknown> | Promise<ListSource<unknown>>> = {
    'commits of a repository (own columns)': () => commits({ repositoryId: DEMO.repos.acmeApi }),
    'commits of one organization (a one-value partition)': () => commits({ organizationIds: [DEMO.orgs.acme] }),
    'organization members by name (composite key, sort fields on the membership row)': () => organizationMembers(DEMO.orgs.acme),
    ...sources,
  };

  test.each(Object.keys(lists))('%s: forward, backward and jumping, every page equals the OFFSET page', async (name) => {
    const source = lists[name];
    for (const [sort, order, perPage] of [
      ['created_at', 'desc', 2],
      ['name', 'asc', 4],
      ['created_at', 'asc', 5],
    ] as const) {
      if (sort === 'name' && name.startsWith('commits')) continue;
      const request: PageRequest = { page: 1, perPage, sort, order };
      const first = await plain.fetchPage(await source(), request);
      const last = Math.ceil(first.total / perPage) + 1;
      const expected = await Promise.all(Array.from({ length: last }, async (_, i) => plain.fetchPage(await source(), { ...request, page: i + 1 })));
      const pages = Array.from({ length: last }, (_, i) => i + 1);
      for (const walk of [pages, [...pages].reverse(), pages.map((_, i) => pages[(i * 7) % pages.length])]) {
        const service = anchored();
        for (const page of walk) {
          expect({ name, sort, order, page, got: await service.fetchPage(await source(), { ...request, page }) }).toEqual({
            name,
            sort,
            order,
            page,
            got: expected[page - 1],
          });
        }
      }
    }
  });
});
