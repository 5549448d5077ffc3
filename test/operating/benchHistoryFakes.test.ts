import type { AddressInfo } from 'node:net';
import { providerCatalog } from '../../src/integrations/catalog';
import type { HistoryReading } from '../../src/services/history/historySource';
import { fakeHttpServer } from '../../scripts/bench/history/fakeHttp';
import { HISTORY_PROVIDERS, HistoryBenchProvider } from '../../scripts/bench/history/providers';
import type { Sizes, World } from '../../scripts/bench/history/world';

/**
 * The history rows' fakes (scripts/bench/history/) read by the importers themselves, as `npm run bench` has them read:
 * every item of a small year is listed once and translated into what its webhook would have brought, whatever the
 * importer asks in whatever order (REST or GraphQL pages, cursors, spans, offsets, threads). A fake that falls behind
 * its importer fails here, not an hour into a benchmark.
 */

const DAY_MS = 86_400_000;
const members = Array.from({ length: 12 }, (_, i) => ({ login: `bench-dev-${String(i).padStart(4, '0')}`, email: `member${i}@bench.test`, providerId: 7_000_000 + i }));

/** A small year at each provider, and what its items come to: git activity and tasks, incidents, or conversations. */
// Each more than a page of its lists, so that every kind of paging is walked.
const SMALL: Record<string, { sizes: Sizes; items: (s: Sizes) => number }> = {
  github: { sizes: { repositories: 3, pull_requests: 330, reviews: 900, review_comments: 120, deployments: 9, issues: 11 }, items: (s) => s.pull_requests + s.reviews + s.review_comments + s.deployments + s.issues },
  gitlab: { sizes: { projects: 2, merge_requests: 230, comments: 300, approvals: 120, deployments: 7, issues: 9 }, items: (s) => s.merge_requests + s.comments + s.approvals + s.deployments + s.issues },
  bitbucket: { sizes: { repositories: 2, pull_requests: 120, comments: 200, approvals: 110, pushes: 40 }, items: (s) => s.pull_requests + s.comments + s.approvals + s.pushes },
  pagerduty: { sizes: { services: 2, incidents: 230 }, items: (s) => s.incidents },
  opsgenie: { sizes: { alerts: 250 }, items: (s) => s.alerts },
  // Every fourth message opens a thread and speaks to no one; the others and the replies each speak to someone.
  slack: { sizes: { channels: 2, messages: 440, replies: 300 }, items: (s) => s.messages - s.messages / 4 + s.replies },
};

async function readAll(provider: HistoryBenchProvider, world: World) {
  const server = fakeHttpServer(provider.id, provider.api(world));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const source = providerCatalog().find(provider.id)!.history!;
    const reading: HistoryReading = {
      credential: { kind: 'token', token: world.token },
      baseUrl: provider.root(base),
      // The fake answers on loopback over plain http: the operator's allowance lets calls reach it.
      http: { outbound: { allowPrivate: true, answerMaxBytes: 10 * 1024 * 1024, reportMaxBytes: 10 * 1024 * 1024 }, sleep: async () => undefined, now: () => new Date() },
      connection: { id: 'bench', organizationId: 'bench' },
    };
    const window = { since: new Date(world.since), until: new Date(world.until) };
    const seen = new Set<string>();
    let items = 0;
    for (const scope of await source.scopes(reading)) {
      for (const kind of source.kinds) {
        for await (const page of source.pages(reading, scope, kind, window, null)) {
          const keys = [
            ...(page.activities ?? []).map((a) => JSON.stringify([a.kind, a.repository.providerId, 'pullRequest' in a ? a.pullRequest.number : null, a.kind === 'review' ? a.review.externalId : a.kind === 'deployment' ? a.deployment.externalId : a.kind === 'incident' ? a.incident.externalId : null])),
            ...(page.tasks ?? []).map((t) => `task ${t.externalId}`),
            ...(page.operations ?? []).map((o) => (o.kind === 'incident' ? `incident ${o.incident.externalId}` : JSON.stringify(o))),
            ...(page.messages ?? []).map((m) => `message ${m.channel} ${m.messageId}`),
          ];
          items += keys.length;
          for (const key of keys) seen.add(key);
        }
      }
    }
    return { items, distinct: seen.size, requests: server.requests() };
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

test.each(HISTORY_PROVIDERS.map((p) => [p.id, p] as const))('%s: every item of the fake\'s year read once by the importer', async (id, provider) => {
  const until = Date.parse('2026-11-29T12:00:00Z');
  const small = SMALL[id];
  const world: World = { since: until - 365 * DAY_MS, until, sizes: small.sizes, members, token: provider.token };
  const read = await readAll(provider, world);
  expect(read.items).toBe(small.items(small.sizes));
  expect(read.distinct).toBe(read.items);
});

test('the full and the quick year are the sizes the docs name', () => {
  expect(HISTORY_PROVIDERS.map((p) => p.id)).toEqual(['github', 'gitlab', 'bitbucket', 'pagerduty', 'opsgenie', 'slack']);
  expect(HISTORY_PROVIDERS[0].sizes(false)).toMatchObject({ repositories: 200, pull_requests: 30_000, reviews: 100_000 });
  expect(HISTORY_PROVIDERS[0].sizes(true)).toMatchObject({ repositories: 20, pull_requests: 2_000, reviews: 6_000 });
});
