import type { PullRequestInput } from '../../src/services/git/activity';
import { FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { allPages, ANTS, antsHistory, readingOf, windowFrom } from '../support/peers/github/historyFixtures';

/**
 * A year of GitHub's pull requests says which are drafts and when each last became ready for review
 * (docs/history.md#drafts): the GraphQL listing's `isDraft` and its timeline's last ReadyForReviewEvent, one
 * connection of one node a pull request in the query that already reads them. DevLake's pull requests of
 * panjf2000/ants (test/fixtures/history/github/README.md), #41 made a draft that became ready twice, #211 a draft now.
 */
const github = new FakeGitHubApi();
const TOKEN = 'github_pat_drafts_test';
beforeAll(() => github.start());
afterAll(() => github.stop());

test('the last ready for review of each pull request, and whether it is a draft, come with the listing', async () => {
  github.reset();
  github.tokens.add(TOKEN);
  const history = antsHistory();
  const pull = (n: number) => history.pulls!.find((p) => p.number === n)!;
  pull(211).draft = true;
  history.readyForReview = new Map([[41, ['2019-08-19T08:00:00Z', '2019-08-20T09:00:00Z']]]);
  github.repositories.push(history);

  const pages = await allPages(readingOf(github.base, { kind: 'token', token: TOKEN }), ANTS, 'pull_requests', windowFrom('2019-08-18T00:00:00Z'));
  const pullRequests = new Map<number, PullRequestInput>(pages.flatMap((p) => p.activities ?? []).flatMap((a) => (a.kind === 'pull_request' ? [[a.pullRequest.number, a.pullRequest]] : [])));
  expect(pullRequests.get(41)).toMatchObject({ state: 'merged', draft: false, readyForReviewAt: new Date('2019-08-20T09:00:00Z') });
  expect(pullRequests.get(211)).toMatchObject({ state: 'open', draft: true });
  expect(pullRequests.get(211)?.readyForReviewAt).toBeUndefined();
  expect(pullRequests.get(53)).toMatchObject({ draft: false });

  const query = JSON.parse(github.requests.find((r) => r.path === '/graphql')!.body).query as string;
  expect(query).toContain('isDraft');
  expect(query).toContain('timelineItems(last: 1, itemTypes: [READY_FOR_REVIEW_EVENT]) { nodes { ... on ReadyForReviewEvent { createdAt } } }');
});
