import type { Activity } from '../../src/services/git/activity';
import { githubHistory } from '../../src/integrations/github/history';
import { FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { allPages, ANTS, antsHistory, PAGINATE_ISSUES, paginateIssuesHistory, readingOf, windowFrom } from '../support/peers/github/historyFixtures';

/**
 * GitHub's history read from its REST API (src/integrations/github/README.md#history) by the importer alone, from a
 * local fake serving recorded answers (test/fixtures/history/github/README.md: Apache DevLake's raw tables of
 * panjf2000/ants, octokit/fixtures' paginate-issues pages, GitHub's documented examples): each kind translated as its
 * webhook delivery would be, lists walked a page at a time to the window's start, and a cursor resuming the rest.
 */
const github = new FakeGitHubApi();
const TOKEN = 'github_pat_history_test';
beforeAll(() => github.start());
afterAll(() => github.stop());
beforeEach(() => {
  github.reset();
  github.tokens.add(TOKEN);
  github.repositories.push(antsHistory(), paginateIssuesHistory());
});

const reading = () => readingOf(github.base, { kind: 'token', token: TOKEN });
const kinds = (activities: Activity[] | undefined) => (activities ?? []).map((a) => a.kind);
const reviewsOf = (activities: Activity[], number: number) => activities.flatMap((a) => (a.kind === 'review' && a.pullRequest.number === number ? [a.review] : []));
const pathsAsked = (pattern: RegExp) => github.requests.filter((r) => pattern.test(r.path)).map((r) => r.path);

describe('pull requests', () => {
  // DevLake's 49 pull requests of panjf2000/ants: 35 changed since 2019-08-18, the next (#36) on 2019-08-17.
  const window = windowFrom('2019-08-18T00:00:00Z');

  test('each with its reviews and review comments, as the webhooks bring them, until the window starts', async () => {
    const pages = await allPages(reading(), ANTS, 'pull_requests', window);

    // Twenty a page: the second page reaches #36, older than the window, and the walk ends there.
    expect(pages.map((p) => p.read)).toEqual([20, 20]);
    expect(pages[0].next).toBe(`${github.base}/repositories/134018330/pulls?per_page=100&state=all&sort=updated&direction=desc&page=2`);
    expect(pages[1].next).toBeNull();
    const activities = pages.flatMap((p) => p.activities ?? []);
    const pullRequests = activities.flatMap((a) => (a.kind === 'pull_request' ? [a.pullRequest] : []));
    expect(pullRequests).toHaveLength(35);
    expect(pullRequests.map((p) => p.number)).not.toContain(36);

    // A closed pull request with `merged_at` is merged; the list names no line counts.
    const merged = pullRequests.find((p) => p.number === 41)!;
    expect(merged).toMatchObject({ state: 'merged', authorUsername: 'choleraehyq', mergedAt: new Date('2019-08-20T10:55:19Z'), size: null });
    expect(pullRequests.find((p) => p.number === 54)).toMatchObject({ state: 'closed', mergedAt: null, closedAt: new Date('2019-10-18T02:07:14Z') });
    expect(pullRequests.find((p) => p.number === 211)).toMatchObject({ state: 'open', closedAt: null });

    // The webhook's own ids: `review:<id>` (pull_request_review), `review_comment:<id>` (pull_request_review_comment).
    const ofFortyOne = reviewsOf(activities, 41);
    expect(ofFortyOne.filter((r) => r.externalId.startsWith('review:'))).toHaveLength(12);
    expect(ofFortyOne.filter((r) => r.externalId.startsWith('review_comment:')).map((r) => r.externalId)).toEqual(
      ['315493235', '315497949', '315498393', '315498823', '315499067', '315499281'].map((id) => `review_comment:${id}`),
    );
    expect(ofFortyOne[0]).toEqual({ externalId: 'review:277027723', kind: 'comment', actorUsername: 'choleraehyq', actorProviderId: '8923413', createdAt: new Date('2019-08-20T09:05:02Z') });
    expect(reviewsOf(activities, 53).filter((r) => r.kind === 'changes_requested').map((r) => r.externalId)).toEqual(['review:298229495', 'review:298546957', 'review:299362850']);
    expect(reviewsOf(activities, 51)).toHaveLength(3);
    expect(activities).toHaveLength(35 + 30 + 6);

    // Every request names the API version whose shapes the translation reads; lists ask for every state, newest change first.
    expect(github.requests.every((r) => r.headers['x-github-api-version'] === '2022-11-28')).toBe(true);
    expect(pathsAsked(/\/pulls\?/)[0]).toBe('/repos/panjf2000/ants/pulls?per_page=100&state=all&sort=updated&direction=desc');
    expect(pathsAsked(/\/reviews/)).toHaveLength(35);
  });

  test("a cursor resumes at its page: the pull requests before it are not read again", async () => {
    const first = await allPages(reading(), ANTS, 'pull_requests', window);
    github.requests.length = 0;

    const rest = await allPages(reading(), ANTS, 'pull_requests', window, first[0].next);

    expect(rest).toEqual([first[1]]);
    expect(pathsAsked(/\/pulls\?/)).toEqual(['/repositories/134018330/pulls?per_page=100&state=all&sort=updated&direction=desc&page=2']);
    expect(pathsAsked(/\/reviews/)).toHaveLength(15);
  });

  test('a window after every change reads one page and yields nothing', async () => {
    const pages = await allPages(reading(), ANTS, 'pull_requests', windowFrom('2023-01-01T00:00:00Z'));

    expect(pages).toEqual([{ read: 20, activities: [], next: null }]);
    expect(pathsAsked(/\/reviews|\/comments/)).toEqual([]);
  });

  test("a cursor that is no page of this repository's list is not followed: the list starts again", async () => {
    const elsewhere = ['https://attacker.example/repositories/134018330/pulls?page=2', `${github.base}/repositories/1/pulls?page=2`, `${github.base}/repositories/134018330/issues?page=2`, 'not a url'];
    for (const cursor of elsewhere) {
      github.requests.length = 0;
      // Since 2021: the first page holds the window's 19 pull requests and the older #117.
      const pages = await allPages(reading(), ANTS, 'pull_requests', windowFrom('2021-01-01T00:00:00Z'), cursor);
      expect(pages).toEqual([expect.objectContaining({ read: 20, next: null })]);
      expect(pathsAsked(/\/pulls\?/)[0]).toBe('/repos/panjf2000/ants/pulls?per_page=100&state=all&sort=updated&direction=desc');
    }
  });
});

describe('deployments', () => {
  test("each finished status, as its deployment_status delivery: GitHub's documented deployment and status", async () => {
    const pages = await allPages(reading(), ANTS, 'deployments', windowFrom('2012-01-01T00:00:00Z'));

    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ read: 1, next: null });
    expect(pages[0].activities).toEqual([
      {
        kind: 'deployment',
        repository: { providerId: '134018330', name: 'ants', fullName: 'panjf2000/ants', defaultBranch: 'master', isPrivate: false, createdAt: new Date('2018-05-19T01:13:38Z') },
        deployment: {
          externalId: '1',
          environment: 'production',
          status: 'success',
          sha: 'a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d',
          createdAt: new Date('2012-07-20T01:19:13Z'),
          finishedAt: new Date('2012-07-20T01:19:13Z'),
        },
      },
    ]);
    expect(pathsAsked(/\/statuses/)).toEqual(['/repos/panjf2000/ants/deployments/1/statuses?per_page=100']);
  });

  test('a deployment created before the window ends the list, its statuses unread', async () => {
    const pages = await allPages(reading(), ANTS, 'deployments', windowFrom('2013-01-01T00:00:00Z'));

    expect(pages).toEqual([{ read: 1, activities: [], next: null }]);
    expect(pathsAsked(/\/statuses/)).toEqual([]);
  });
});

describe('issues', () => {
  test("tasks of the repository's board, pull requests left to their own kind, an issue labelled 'incident' an incident", async () => {
    // DevLake's panjf2000/ants labels no issue an incident; labelled here as an incident's reporter would, as the webhook tests do.
    const ants = github.repositories[0];
    const labelled = ants.issues!.find((i) => i.number === 6)!;
    labelled.labels = [{ id: 1, name: 'incident', color: 'ff0000', default: false }];

    const pages = await allPages(reading(), ANTS, 'issues', windowFrom('2018-01-01T00:00:00Z'));

    expect(pages.map((p) => p.read)).toEqual([20, 20, 1]);
    expect(pages.map((p) => p.next)).toEqual([expect.stringContaining('/repositories/134018330/issues?'), expect.stringContaining('page=3'), null]);
    const tasks = pages.flatMap((p) => p.tasks ?? []);
    // 41 listed, 15 of them pull requests, one an incident.
    expect(tasks).toHaveLength(25);
    expect(tasks.every((t) => t.board === 'panjf2000/ants' && t.transitions.length === 0)).toBe(true);
    expect(tasks.find((t) => t.externalId === '348630179')).toEqual({
      board: 'panjf2000/ants',
      externalId: '348630179',
      title: expect.any(String),
      type: 'bug',
      statusName: 'closed',
      statusCategory: 'done',
      assignee: null,
      storyPoints: null,
      parentExternalId: null,
      createdAt: new Date('2018-08-08T08:43:15Z'),
      updatedAt: new Date('2018-08-10T04:06:04Z'),
      resolvedAt: new Date('2018-08-10T04:06:04Z'),
      transitions: [],
    });
    const incidents = pages.flatMap((p) => p.activities ?? []);
    expect(kinds(incidents)).toEqual(['incident']);
    expect(incidents[0]).toMatchObject({ incident: { externalId: '347255859', createdAt: new Date('2018-08-03T04:32:28Z'), resolvedAt: new Date('2018-08-04T10:18:41Z') } });
    // GitHub filters by the window's start itself.
    expect(pathsAsked(/\/issues\?/)[0]).toBe('/repos/panjf2000/ants/issues?per_page=100&state=all&sort=updated&direction=desc&since=2018-01-01T00%3A00%3A00.000Z');
  });

  test("GitHub's own pages, followed by the links it sent, and resumed from one of them", async () => {
    const window = windowFrom('2017-01-01T00:00:00Z');
    const pages = await allPages(reading(), PAGINATE_ISSUES, 'issues', window);

    expect(pages.map((p) => p.read)).toEqual([3, 3, 3, 3, 1]);
    expect(pages.map((p) => p.next)).toEqual([...[2, 3, 4, 5].map((n) => `${github.base}/repositories/1000/issues?per_page=3&page=${n}`), null]);
    expect(pages.flatMap((p) => p.tasks ?? []).map((t) => t.title)).toEqual(Array.from({ length: 13 }, (_, i) => `Test issue ${13 - i}`));

    const rest = await allPages(reading(), PAGINATE_ISSUES, 'issues', window, pages[1].next);
    expect(rest).toEqual(pages.slice(2));
  });

  test('an issue changed before the window ends the walk even where the list does not filter', async () => {
    const pages = await allPages(reading(), PAGINATE_ISSUES, 'issues', windowFrom('2017-10-11T00:00:00Z'));

    expect(pages).toEqual([{ read: 3, activities: [], tasks: [], next: null }]);
  });
});

test('the importer offers what GitHub has, repository by repository', () => {
  expect(githubHistory).toMatchObject({ defaultBaseUrl: 'https://api.github.com', scopeNoun: 'repositories', kinds: ['pull_requests', 'deployments', 'issues'] });
});
