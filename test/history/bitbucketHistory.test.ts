import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bitbucketHistory } from '../../src/integrations/bitbucket/history';
import { CredentialRefused, ProviderFailure } from '../../src/outbound/providerHttp';
import type { Activity } from '../../src/services/git/activity';
import type { HistoryPage, HistoryReading, HistoryScope } from '../../src/services/history/historySource';
import { RecordedRequest, ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * Bitbucket Cloud's history importer (src/integrations/bitbucket/history.ts) against a local stand-in for its REST API
 * serving recorded answers (test/fixtures/history/bitbucket/README.md names each one's source): Apache DevLake's
 * repository, pull requests and comments of `likyh/likyhphp`, and Faros's repositories of `RomanKyrnis`, each in the
 * API's page envelope. The stand-in does not apply the listing's query: what it serves is what the query would
 * have answered, and the importer's own stop at the window's start is tested with it. Waits go through the reading's
 * sleep, so they take no time here.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/bitbucket', name), 'utf8'));
const repository = fixture('devlakeRepository.json');
const pullRequests: Record<string, any>[] = fixture('devlakePullRequests.json');
const comments: Record<string, any>[] = fixture('devlakeComments.json');
const romanKyrnis: Record<string, any>[] = fixture('farosRepositories.json');

const ACCESS_TOKEN = 'ATCTT3xFfGN0-history-test-token';
const LIKYHPHP: HistoryScope = { key: repository.uuid, name: 'likyh/likyhphp' };
const PULL_REQUESTS_PATH = '/2.0/repositories/likyh/likyhphp/pullrequests';
const WHOLE = { since: new Date('2022-07-01T00:00:00Z'), until: new Date('2022-09-01T00:00:00Z') };
/** After #41's last change (15:39:41) and before #24's (15:10:43): the listing's second page ends the window. */
const LATE = { since: new Date('2022-08-12T15:20:00Z'), until: new Date('2022-09-01T00:00:00Z') };

type Route = (url: URL, request: RecordedRequest) => ScriptedAnswer | undefined;
let route: Route;
const peer = new ScriptedPeer((request, url) => route(url, request) ?? bitbucket(url));
const base = () => `${peer.base}/2.0`;
const ok = (body: unknown): ScriptedAnswer => ({ status: 200, body });
/** A page in the API's envelope; `next` is the address of the page after it, on this server. */
const page = (values: unknown[], next?: string) => ({ pagelen: 50, values, ...(next ? { next } : {}) });

/** The API as the recordings answer it: the pull requests three to a page; #54's log in two pages. */
function bitbucket(url: URL): ScriptedAnswer {
  const pageNumber = Number(url.searchParams.get('page') ?? '1');
  const withPage = (n: number) => {
    const next = new URL(url);
    next.searchParams.set('page', String(n));
    return next.toString();
  };
  if (url.pathname === '/2.0/repositories') return ok(pageNumber === 1 ? page(romanKyrnis, withPage(2)) : page([repository]));
  if (url.pathname === '/2.0/repositories/likyh/likyhphp') return ok(repository);
  if (url.pathname === PULL_REQUESTS_PATH) {
    const slice = pullRequests.slice((pageNumber - 1) * 3, pageNumber * 3);
    return ok(page(slice, pageNumber * 3 < pullRequests.length ? withPage(pageNumber + 1) : undefined));
  }
  const activity = /^\/2\.0\/repositories\/likyh\/likyhphp\/pullrequests\/(\d+)\/activity$/.exec(url.pathname);
  if (activity) {
    const entries = comments.filter((c) => c.pullrequest.id === Number(activity[1])).map((comment) => ({ comment, pull_request: comment.pullrequest }));
    if (entries.length < 3) return ok(page(entries));
    return ok(pageNumber === 1 ? page(entries.slice(0, 2), withPage(2)) : page(entries.slice(2)));
  }
  return { status: 404, body: { type: 'error', error: { message: `${url.pathname} not found` } } };
}

let waits: { seconds: number; why: string }[];
let slept: number[];
beforeAll(() => peer.start());
afterAll(() => peer.stop());
beforeEach(() => {
  peer.requests.length = 0;
  route = () => undefined;
  waits = [];
  slept = [];
});

/** The reading the runner hands the importer: the fake answers on loopback, which the operator's allowance lets calls reach. */
function reading(token = ACCESS_TOKEN): HistoryReading {
  return {
    credential: { kind: 'token', token },
    baseUrl: base(),
    http: {
      outbound: { allowPrivate: true, answerMaxBytes: 1024 * 1024, reportMaxBytes: 1024 * 1024 },
      now: () => new Date(),
      sleep: async (ms) => {
        slept.push(ms);
      },
      onWait: (seconds, why) => waits.push({ seconds, why }),
    },
    connection: { id: 'gapp-bitbucket-history', organizationId: 'org-bitbucket-history' },
  };
}

async function pagesOf(window = WHOLE, cursor: string | null = null): Promise<HistoryPage[]> {
  const pages: HistoryPage[] = [];
  for await (const p of bitbucketHistory.pages(reading(), LIKYHPHP, 'pull_requests', window, cursor)) pages.push(p);
  return pages;
}

const activitiesOf = (pages: HistoryPage[]): Activity[] => pages.flatMap((p) => p.activities ?? []);
const pullRequestNumbers = (pages: HistoryPage[]) => activitiesOf(pages).flatMap((a) => (a.kind === 'pull_request' ? [a.pullRequest.number] : []));
const reviewIds = (pages: HistoryPage[]) => activitiesOf(pages).flatMap((a) => (a.kind === 'review' ? [`#${a.pullRequest.number} ${a.review.externalId}`] : []));
const paths = () => peer.requests.map((r) => new URL(r.path, peer.base)).map((u) => `${u.pathname}${u.searchParams.get('page') ? ` page ${u.searchParams.get('page')}` : ''}`);

describe('the repositories the token reads', () => {
  test('every page of /repositories?role=member, by full name, keyed by uuid, with the access token as Bearer', async () => {
    const scopes = await bitbucketHistory.scopes(reading());
    expect(scopes).toEqual([
      { key: repository.uuid, name: 'likyh/likyhphp' },
      { key: '{8a0cf3e6-d87f-42bb-91cb-7ba284318ec0}', name: 'RomanKyrnis/client' },
      { key: '{6cc04382-59f0-4a75-8b55-5aaa79d72d17}', name: 'RomanKyrnis/geekhub2019' },
      { key: '{75f33860-5d51-4103-ad24-23a2451fb272}', name: 'RomanKyrnis/kievcameras' },
    ]);
    const first = new URL(peer.requests[0].path, peer.base);
    expect(Object.fromEntries(first.searchParams)).toEqual({ role: 'member', pagelen: '100' });
    expect(paths()).toEqual(['/2.0/repositories', '/2.0/repositories page 2']);
    expect(peer.requests.every((r) => r.headers.authorization === `Bearer ${ACCESS_TOKEN}`)).toBe(true);
  });

  test('an API token, stored as email:api_token, is sent as Basic', async () => {
    await bitbucketHistory.scopes(reading('ada@example.com:ATATT3xFfGF0-api-token'));
    expect(peer.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('ada@example.com:ATATT3xFfGF0-api-token').toString('base64')}`);
  });

  test('only those asked, by full name in any case or by uuid with or without braces; one it cannot see is named', async () => {
    const asked = await bitbucketHistory.scopes(reading(), ['RomanKyrnis/Client', repository.uuid.slice(1, -1)]);
    expect(asked.map((s) => s.name)).toEqual(['likyh/likyhphp', 'RomanKyrnis/client']);
    await expect(bitbucketHistory.scopes(reading(), ['likyh/likyhphp', 'acme/api'])).rejects.toThrow(new ProviderFailure("Bitbucket: the repositories the token reads: none is 'acme/api' (give a full name, workspace/repository, or a uuid)"));
  });

  test('a refused token is a CredentialRefused', async () => {
    route = () => ({ status: 401, body: { type: 'error', error: { message: 'Access token expired.' } } });
    await expect(bitbucketHistory.scopes(reading())).rejects.toThrow(CredentialRefused);
  });
});

describe("a repository's pull requests", () => {
  test('every page of the listing, newest change first, each pull request with its log; the last page ends the window', async () => {
    const pages = await pagesOf();
    expect(pullRequestNumbers(pages)).toEqual([40, 54, 42, 31, 41, 24, 28, 1]);
    expect(reviewIds(pages)).toEqual([
      '#40 comment:323120140',
      '#54 comment:323119897',
      '#54 comment:323119662',
      '#54 comment:323119643',
      '#42 comment:323119856',
      '#42 comment:323119842',
      '#31 comment:323120311',
      '#31 comment:323120296',
      '#31 comment:323120278',
      '#41 comment:323120196',
    ]);
    // One page per page of a log: #54's and #31's logs are two each, the pull request counted once, with its last.
    expect(pages.map((p) => p.read)).toEqual([1, 0, 1, 1, 0, 1, 1, 1, 1, 1]);
    expect(pages.at(-1)!.next).toBeNull();
    expect(pages.slice(0, -1).every((p) => p.next !== null)).toBe(true);
    const listing = peer.requests.map((r) => new URL(r.path, peer.base)).find((u) => u.pathname === PULL_REQUESTS_PATH)!;
    expect(listing.searchParams.getAll('state')).toEqual(['OPEN', 'MERGED', 'DECLINED', 'SUPERSEDED']);
    expect(Object.fromEntries([...listing.searchParams].filter(([k]) => k !== 'state'))).toEqual({ sort: '-updated_on', q: 'updated_on >= 2022-07-01T00:00:00+00:00', pagelen: '50' });
    expect(paths().filter((p) => p.startsWith(PULL_REQUESTS_PATH) && !p.includes('activity'))).toEqual([PULL_REQUESTS_PATH, `${PULL_REQUESTS_PATH} page 2`, `${PULL_REQUESTS_PATH} page 3`]);
  });

  test('translated as the webhooks translate them, with the repository as the API has it now', async () => {
    const activities = activitiesOf(await pagesOf());
    const merged = activities.find((a) => a.kind === 'pull_request' && a.pullRequest.number === 24)!;
    expect(merged.repository).toEqual({ providerId: repository.uuid, name: 'likyhphp', fullName: 'likyh/likyhphp', defaultBranch: 'master', isPrivate: true, createdAt: new Date(repository.created_on) });
    expect(merged.kind === 'pull_request' && merged.pullRequest).toEqual({
      number: 24,
      title: pullRequests[5].title,
      state: 'merged',
      authorUsername: '62abf394192edb006fa0e8cf',
      authorProviderId: '{64135f6a-3978-4297-99b1-21827e0faf0b}',
      body: pullRequests[5].description,
      size: null,
      commits: { head: '2bfd29a17665', merge: 'c0e12b61e44b' },
      createdAt: new Date('2022-08-12T15:00:34.399Z'),
      mergedAt: new Date('2022-08-12T15:10:43.930Z'),
      closedAt: new Date('2022-08-12T15:10:43.930Z'),
      updatedAt: new Date('2022-08-12T15:10:43.930Z'),
      // This fixture's pull request says nothing of a draft (older Bitbucket answers have no `draft`).
      draft: null,
    });
    const comment = activities.find((a) => a.kind === 'review' && a.review.externalId === 'comment:323120140');
    expect(comment).toMatchObject({ kind: 'review', pullRequestCurrent: true, pullRequest: { number: 40, state: 'open' }, review: { kind: 'comment', actorProviderId: '{64135f6a-3978-4297-99b1-21827e0faf0b}', createdAt: new Date('2022-08-12T15:39:27.438Z') } });
  });

  test('stops at the first pull request changed before the window: the pages after it are not asked for', async () => {
    const pages = await pagesOf(LATE);
    expect(pullRequestNumbers(pages)).toEqual([40, 54, 42, 31, 41]);
    expect(pages.at(-1)!.next).toBeNull();
    expect(paths()).not.toContain(`${PULL_REQUESTS_PATH} page 3`);
    expect(paths()).not.toContain(`${PULL_REQUESTS_PATH}/24/activity`);
  });

  test("resumed from a page's cursor, reads the rest only", async () => {
    const whole = await pagesOf();
    const lastPageOf = (n: number) => [...whole].reverse().find((p) => pullRequestNumbers([p]).includes(n) || reviewIds([p]).some((id) => id.startsWith(`#${n} `)))!;
    // After #40, within the listing's first page; after #42, its last.
    for (const [after, rest] of [
      [40, [54, 42, 31, 41, 24, 28, 1]],
      [42, [31, 41, 24, 28, 1]],
    ] as const) {
      peer.requests.length = 0;
      const resumed = await pagesOf(WHOLE, lastPageOf(after).next);
      expect(pullRequestNumbers(resumed)).toEqual(rest);
      expect(paths()).not.toContain(`${PULL_REQUESTS_PATH}/40/activity`);
    }
    // Stopped within #54's log (after its first page): #54 is read again whole; its comments are stored once by their ids.
    const withinLog = await pagesOf(WHOLE, whole[1].next);
    expect(pullRequestNumbers(withinLog)[0]).toBe(54);
    expect(reviewIds(withinLog).filter((id) => id.startsWith('#54'))).toHaveLength(3);
  });

  test('a cursor that is not this importer\'s, or that leaves the API\'s root, is refused', async () => {
    await expect(pagesOf(WHOLE, 'page=2')).rejects.toThrow(/the stored cursor is not this importer's/);
    await expect(pagesOf(WHOLE, JSON.stringify({ page: 'https://elsewhere.example/2.0/repositories/likyh/likyhphp/pullrequests?page=2', done: 0 }))).rejects.toThrow(ProviderFailure);
    expect(peer.requests.filter((r) => r.path.includes('pullrequests'))).toHaveLength(0);
  });

  test("a next page's address off the API's root is not followed: the token would go with it", async () => {
    route = (url) => (url.pathname === PULL_REQUESTS_PATH ? ok(page(pullRequests.slice(0, 1), 'https://collector.example/2.0/repositories/likyh/likyhphp/pullrequests?page=2')) : undefined);
    await expect(pagesOf()).rejects.toThrow(new ProviderFailure("Bitbucket likyh/likyhphp: pull requests: the next page's address https://collector.example/2.0/repositories/likyh/likyhphp/pullrequests is not under the API's root " + base()));
  });

  test('a 429 is waited out for as long as Retry-After says, then asked again', async () => {
    let limited = false;
    route = (url) => {
      if (url.pathname !== PULL_REQUESTS_PATH || limited) return undefined;
      limited = true;
      return { status: 429, headers: { 'retry-after': '7' }, body: { type: 'error', error: { message: 'Rate limit for this resource has been exceeded' } } };
    };
    const pages = await pagesOf();
    expect(pullRequestNumbers(pages)).toHaveLength(8);
    expect(waits).toEqual([{ seconds: 7, why: 'Bitbucket likyh/likyhphp: pull requests: rate limited' }]);
    expect(slept).toEqual([7000]);
  });

  test('a 401 is a CredentialRefused naming the repository', async () => {
    route = (url) => (url.pathname.endsWith('/activity') ? { status: 401, body: { type: 'error', error: { message: 'Unauthorized' } } } : undefined);
    const read = pagesOf();
    await expect(read).rejects.toThrow(CredentialRefused);
    await expect(pagesOf()).rejects.toThrow(/^Bitbucket likyh\/likyhphp: pull request #40's activity: the vendor refused the credential \(401/);
  });

  test('a name now another repository\'s is not read', async () => {
    const renamed = { ...LIKYHPHP, key: '{8a0cf3e6-d87f-42bb-91cb-7ba284318ec0}' };
    const read = async () => {
      for await (const p of bitbucketHistory.pages(reading(), renamed, 'pull_requests', WHOLE, null)) void p;
    };
    await expect(read()).rejects.toThrow(/the name is now another repository's/);
    expect(paths()).toEqual(['/2.0/repositories/likyh/likyhphp']);
  });
});
