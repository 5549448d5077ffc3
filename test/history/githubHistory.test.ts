import type { Activity } from '../../src/services/git/activity';
import { githubHistory } from '../../src/integrations/github/history';
import { pullRequestNode, restPullRequest, restReview, reviewNode } from '../../src/integrations/github/historyGraphql';
import { pullRequestActivity, reviewActivity } from '../../src/integrations/github/historyItems';
import devlakeGraphql from '../fixtures/history/github/devlakeGraphqlPullRequests.json';
import { FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { allPages, ANTS, antsHistory, PAGINATE_ISSUES, paginateIssuesHistory, readingOf, windowFrom } from '../support/peers/github/historyFixtures';

/**
 * GitHub's history read from its REST and GraphQL APIs (src/integrations/github/README.md#history) by the importer
 * alone, from a local fake serving recorded answers (test/fixtures/history/github/README.md: Apache DevLake's raw
 * tables of panjf2000/ants, its GraphQL plugin's pull requests of apache/incubator-devlake, octokit/fixtures'
 * paginate-issues pages, GitHub's documented examples; the fake answers GraphQL from the REST objects): each kind translated as its
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

/** The GraphQL queries asked, as GitHub received them. */
const queriesAsked = () => github.requests.filter((r) => r.path === '/graphql').map((r) => JSON.parse(r.body) as { query: string; variables: Record<string, unknown> });

describe('pull requests, by GraphQL', () => {
  // DevLake's 49 pull requests of panjf2000/ants: 35 changed since 2019-08-18, the next (#36) on 2019-08-17.
  const window = windowFrom('2019-08-18T00:00:00Z');

  test('each with its reviews, as the webhooks bring them, until the window starts', async () => {
    const pages = await allPages(reading(), ANTS, 'pull_requests', window);

    // Twenty a page (the fake's page; GitHub gives the fifty asked): the second reaches #36, older than the window, and the walk ends there.
    expect(pages.map((p) => p.read)).toEqual([20, 20]);
    expect(JSON.parse(pages[0].next!)).toEqual({ api: github.base, repository: '134018330', after: expect.any(String) });
    expect(pages[1].next).toBeNull();
    const activities = pages.flatMap((p) => p.activities ?? []);
    const pullRequests = activities.flatMap((a) => (a.kind === 'pull_request' ? [a.pullRequest] : []));
    expect(pullRequests).toHaveLength(35);
    expect(pullRequests.map((p) => p.number)).not.toContain(36);

    // A pull request MERGED is merged; the query asks no line counts, as the REST list names none.
    const merged = pullRequests.find((p) => p.number === 41)!;
    expect(merged).toMatchObject({ state: 'merged', authorUsername: 'choleraehyq', authorProviderId: '8923413', mergedAt: new Date('2019-08-20T10:55:19Z'), size: null });
    expect(pullRequests.find((p) => p.number === 54)).toMatchObject({ state: 'closed', mergedAt: null, closedAt: new Date('2019-10-18T02:07:14Z') });
    expect(pullRequests.find((p) => p.number === 211)).toMatchObject({ state: 'open', closedAt: null });

    // The webhook's own ids: `review:<databaseId>` (pull_request_review), the actor by their numeric id.
    const ofFortyOne = reviewsOf(activities, 41);
    expect(ofFortyOne).toHaveLength(12);
    expect(ofFortyOne[0]).toEqual({ externalId: 'review:277027723', kind: 'comment', actorUsername: 'choleraehyq', actorProviderId: '8923413', createdAt: new Date('2019-08-20T09:05:02Z') });
    expect(reviewsOf(activities, 53).filter((r) => r.kind === 'changes_requested').map((r) => r.externalId)).toEqual(['review:298229495', 'review:298546957', 'review:299362850']);
    expect(reviewsOf(activities, 51)).toHaveLength(3);
    expect(activities).toHaveLength(35 + 30);

    // Two queries for 35 pull requests and their 30 reviews, each one point: fifty pull requests, fifty reviews each, most recently changed first.
    const queries = queriesAsked();
    expect(queries).toHaveLength(2);
    expect(queries[0].query).toMatch(/pullRequests\(first: \$first, after: \$after, orderBy: \{ field: UPDATED_AT, direction: DESC \}\)/);
    expect(queries[0].variables).toEqual({ owner: 'panjf2000', name: 'ants', first: 50, reviews: 50, after: null });
    expect(queries[1].variables.after).toBe(JSON.parse(pages[0].next!).after);
    expect(pathsAsked(/\/pulls|\/reviews/)).toEqual([]);
  });

  test("a cursor resumes after its page's endCursor: the pull requests before it are not read again", async () => {
    const first = await allPages(reading(), ANTS, 'pull_requests', window);
    github.requests.length = 0;

    const rest = await allPages(reading(), ANTS, 'pull_requests', window, first[0].next);

    expect(rest).toEqual([first[1]]);
    expect(queriesAsked().map((q) => q.variables.after)).toEqual([JSON.parse(first[0].next!).after]);
  });

  test('a pull request with more reviews than a query brings has them all read by REST', async () => {
    // Five a page and five reviews a pull request: #53's fifteen reviews and #41's twelve come by REST, three pages each.
    github.pageSize = 5;

    const pages = await allPages(reading(), ANTS, 'pull_requests', window);

    const activities = pages.flatMap((p) => p.activities ?? []);
    expect(reviewsOf(activities, 41)).toHaveLength(12);
    expect(new Set(reviewsOf(activities, 41).map((r) => r.externalId)).size).toBe(12);
    expect(activities).toHaveLength(35 + 30);
    expect(pathsAsked(/\/reviews/)).toEqual([
      '/repos/panjf2000/ants/pulls/53/reviews?per_page=100',
      '/repositories/134018330/pulls/53/reviews?per_page=100&page=2',
      '/repositories/134018330/pulls/53/reviews?per_page=100&page=3',
      '/repos/panjf2000/ants/pulls/41/reviews?per_page=100',
      '/repositories/134018330/pulls/41/reviews?per_page=100&page=2',
      '/repositories/134018330/pulls/41/reviews?per_page=100&page=3',
    ]);
  });

  test('a window after every change reads one page and yields nothing', async () => {
    const pages = await allPages(reading(), ANTS, 'pull_requests', windowFrom('2023-01-01T00:00:00Z'));

    expect(pages).toEqual([{ read: 20, activities: [], next: null }]);
  });

  test("a cursor that is no place in this repository's list at this API is not followed: the list starts again", async () => {
    const after = Buffer.from('cursor:v2:19').toString('base64');
    const elsewhere = [
      JSON.stringify({ api: 'https://attacker.example', repository: '134018330', after }),
      JSON.stringify({ api: github.base, repository: '1', after }),
      `${github.base}/repositories/134018330/pulls?page=2`,
      'not a cursor',
    ];
    for (const cursor of elsewhere) {
      github.requests.length = 0;
      // Since 2021: the first page holds the window's 19 pull requests and the older #117.
      const pages = await allPages(reading(), ANTS, 'pull_requests', windowFrom('2021-01-01T00:00:00Z'), cursor);
      expect(pages).toEqual([expect.objectContaining({ read: 20, next: null })]);
      expect(queriesAsked().map((q) => q.variables.after)).toEqual([null]);
    }
  });

  test("GraphQL's nodes as DevLake recorded them read as the REST objects the webhook brings", () => {
    const [merged, open] = devlakeGraphql;
    const repository = antsHistory().repository;

    const pullRequest = restPullRequest(pullRequestNode.parse(merged));
    expect(pullRequestActivity('apache/incubator-devlake', repository, pullRequest)).toMatchObject({
      kind: 'pull_request',
      pullRequest: {
        number: 7913,
        title: 'feat: move connection delete action to connection list',
        state: 'merged',
        authorUsername: 'mintsweet',
        authorProviderId: '37237996',
        body: merged.body,
        size: null,
        commits: { head: '57d272d101921263ac31b14ec78d4ede3238be18', merge: '6871e158c76568c7d4c6861560414e1e4053a274' },
        createdAt: new Date('2024-08-19T07:35:27Z'),
        mergedAt: new Date('2024-08-19T07:56:53Z'),
        closedAt: new Date('2024-08-19T07:56:53Z'),
        updatedAt: new Date('2024-08-19T07:56:56Z'),
      },
    });
    const review = restReview(reviewNode.parse(merged.reviews.nodes[0]));
    expect(reviewActivity('apache/incubator-devlake', repository, pullRequest, review)).toMatchObject({
      kind: 'review',
      pullRequestCurrent: true,
      review: { externalId: 'review:2244849547', kind: 'approved', actorUsername: 'klesh', actorProviderId: '61080', createdAt: new Date('2024-08-19T07:56:40Z') },
    });
    expect(pullRequestActivity('apache/incubator-devlake', repository, restPullRequest(pullRequestNode.parse(open)))).toMatchObject({
      pullRequest: { number: 7912, state: 'open', mergedAt: null, closedAt: null, commits: { head: 'f12380ee6b29159e641779241330d9fc6d136b06', merge: null } },
    });
  });

  test("a bot named as REST and the webhooks name it: GraphQL's login with `[bot]`", () => {
    const node = { ...devlakeGraphql[1], author: { __typename: 'Bot', login: 'dependabot', databaseId: 49699333 } };
    expect(restPullRequest(pullRequestNode.parse(node))).toMatchObject({ user: { login: 'dependabot[bot]', id: 49699333 } });
  });
});

describe('review comments, the repository\'s list', () => {
  // DevLake's 16 review comments: #41's six changed on 2019-08-20, #40's eight on 2019-07-26, #36's two on 2019-07-18.
  const window = windowFrom('2019-07-20T00:00:00Z');

  test('each with its pull request as it is now, as the webhook brings it, until the window starts', async () => {
    github.pageSize = 5;

    const pages = await allPages(reading(), ANTS, 'review_comments', window);

    // GitHub lists from the window's start: #36's two are not listed.
    expect(pages.map((p) => p.read)).toEqual([5, 5, 4]);
    expect(pages.map((p) => p.next)).toEqual([expect.stringContaining('/repositories/134018330/pulls/comments?'), expect.stringContaining('page=3'), null]);
    const activities = pages.flatMap((p) => p.activities ?? []);
    expect(activities).toHaveLength(14);
    expect(reviewsOf(activities, 41).map((r) => r.externalId)).toEqual(['315493235', '315497949', '315498393', '315498823', '315499067', '315499281'].map((id) => `review_comment:${id}`));
    expect(reviewsOf(activities, 40)).toHaveLength(8);
    expect(activities[0]).toEqual({
      kind: 'review',
      repository: expect.objectContaining({ fullName: 'panjf2000/ants' }),
      pullRequest: expect.objectContaining({ number: 41, state: 'merged', authorProviderId: '8923413' }),
      pullRequestCurrent: true,
      review: { externalId: 'review_comment:315493235', kind: 'comment', actorUsername: 'golangcibot', actorProviderId: '42910462', createdAt: new Date('2019-08-20T03:25:26Z') },
    });

    // A hundred a request from the window's start, newest change first; each page's pull requests in one query.
    expect(pathsAsked(/\/comments/)[0]).toBe('/repos/panjf2000/ants/pulls/comments?per_page=100&sort=updated&direction=desc&since=2019-07-20T00%3A00%3A00.000Z');
    expect(queriesAsked().map((q) => [...q.query.matchAll(/pullRequest\(number: (\d+)\)/g)].map((m) => Number(m[1])))).toEqual([[41], [41, 40], [40]]);
  });

  test('a cursor resumes at its page', async () => {
    github.pageSize = 5;
    const pages = await allPages(reading(), ANTS, 'review_comments', window);

    expect(await allPages(reading(), ANTS, 'review_comments', window, pages[1].next)).toEqual(pages.slice(2));
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
  expect(githubHistory).toMatchObject({ defaultBaseUrl: 'https://api.github.com', scopeNoun: 'repositories', kinds: ['pull_requests', 'review_comments', 'deployments', 'issues'] });
});
