import { generateKeyPairSync } from 'node:crypto';
import { githubHistory } from '../../src/integrations/github/history';
import { CredentialRefused, ProviderFailure } from '../../src/outbound/providerHttp';
import { BAD_CREDENTIALS, FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { allPages, ANTS, antsHistory, helloWorldHistory, INSTALLATION_TOKEN, readingOf, windowFrom } from '../support/peers/github/historyFixtures';

/**
 * What GitHub's history is read with and what stops it (src/integrations/github/README.md#history): the repositories
 * a token or an App's installation reads (the installation's token fetched with the App's signed JWT, as GitHub
 * documents), GitHub's rate limits waited out and told, a refused credential stopping with the repository named. The
 * fake serves recorded answers (test/fixtures/history/github/README.md); the failures are GitHub's documented ones.
 */
const github = new FakeGitHubApi();
const TOKEN = 'github_pat_history_access';
beforeAll(() => github.start());
afterAll(() => github.stop());
beforeEach(() => {
  github.reset();
  github.tokens.add(TOKEN);
  github.repositories.push(antsHistory(), helloWorldHistory());
});

const tokenReading = () => readingOf(github.base, { kind: 'token', token: TOKEN });
const window = windowFrom('2019-08-18T00:00:00Z');
const firstPullsPage = (_: unknown, url: URL) => url.pathname === '/graphql';
/** A key as GitHub issues an App's: RSA, its private half in PKCS#1 PEM. */
const appKey = () => generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const refusal = (promise: Promise<unknown>) => promise.then(() => null, (err: unknown) => err);

describe('the repositories a credential reads', () => {
  test("a token's: GET /user/repos, by full name; `only` picks by full name (any case) or id", async () => {
    const reading = tokenReading();

    expect(await githubHistory.scopes(reading)).toEqual([
      { key: '1296269', name: 'octocat/Hello-World' },
      { key: '134018330', name: 'panjf2000/ants' },
    ]);
    expect(await githubHistory.scopes(reading, ['PANJF2000/ants'])).toEqual([{ key: '134018330', name: 'panjf2000/ants' }]);
    expect(await githubHistory.scopes(reading, ['1296269'])).toEqual([{ key: '1296269', name: 'octocat/Hello-World' }]);
    expect(github.requests.map((r) => r.path)).toEqual(Array(3).fill('/user/repos?per_page=100'));

    const unseen = await refusal(githubHistory.scopes(reading, ['panjf2000/ants', 'acme/secret']));
    expect(unseen).toBeInstanceOf(ProviderFailure);
    expect((unseen as Error).message).toMatch(/does not read acme\/secret \(it reads 2 repositories: octocat\/Hello-World, panjf2000\/ants\)/);
  });

  test("a GitHub App's installation: its token fetched once with the App's signed JWT, then every repository read with it", async () => {
    const { privateKey, publicKey } = appKey();
    github.tokens.clear();
    github.installApp('184467', '52871409', publicKey, INSTALLATION_TOKEN);
    const reading = readingOf(github.base, { kind: 'github_app', appId: '184467', installationId: '52871409', privateKey });

    expect(await githubHistory.scopes(reading)).toEqual([
      { key: '1296269', name: 'octocat/Hello-World' },
      { key: '134018330', name: 'panjf2000/ants' },
    ]);
    const pages = await allPages(reading, ANTS, 'pull_requests', window);
    expect(pages.map((p) => p.read)).toEqual([20, 20]);

    const tokenRequests = github.requests.filter((r) => r.path === '/app/installations/52871409/access_tokens');
    expect(tokenRequests.map((r) => r.method)).toEqual(['POST']);
    expect(github.requests[1].path).toBe('/installation/repositories?per_page=100');
    expect(github.requests.slice(1).every((r) => r.headers.authorization === `token ${INSTALLATION_TOKEN.token}`)).toBe(true);
  });

  test("an App whose key GitHub does not know is refused, naming what was being read", async () => {
    const installed = appKey();
    const { privateKey } = appKey();
    github.installApp('184467', '52871409', installed.publicKey, INSTALLATION_TOKEN);
    const reading = readingOf(github.base, { kind: 'github_app', appId: '184467', installationId: '52871409', privateKey });

    const refused = await refusal(githubHistory.scopes(reading));

    expect(refused).toBeInstanceOf(CredentialRefused);
    expect((refused as Error).message).toBe('GitHub refused the credential reading the repositories the credential reads (401: A JSON web token could not be decoded)');
  });
});

describe("GitHub's rate limits are waited out, told and slept with the reading's sleep", () => {
  test('a 403 secondary rate limit with Retry-After', async () => {
    // GitHub's documented answer (docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api).
    github.interrupt(firstPullsPage, {
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits' },
    });
    const reading = tokenReading();

    const pages = await allPages(reading, ANTS, 'pull_requests', window);

    expect(pages.map((p) => p.read)).toEqual([20, 20]);
    expect(reading.waits).toEqual([{ seconds: 1, why: expect.stringMatching(/^GitHub's secondary rate limit \(POST \/graphql\)/) }]);
    expect(reading.slept).toEqual([1000]);
  });

  test('a 429 with Retry-After whose message the throttling does not know', async () => {
    github.interrupt(firstPullsPage, { status: 429, headers: { 'retry-after': '2', 'content-type': 'text/plain' }, text: 'Too Many Requests' });
    const reading = tokenReading();

    const pages = await allPages(reading, ANTS, 'pull_requests', window);

    expect(pages.map((p) => p.read)).toEqual([20, 20]);
    expect(reading.waits).toEqual([{ seconds: 2, why: expect.stringMatching(/^GitHub answered 429 Too Many Requests \(POST \/graphql\)/) }]);
    expect(reading.slept).toEqual([2000]);
  });

  test('the primary rate limit spent: waited until its reset', async () => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    github.interrupt(firstPullsPage, {
      status: 403,
      headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset), 'x-ratelimit-resource': 'core' },
      body: { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' },
    });
    const reading = tokenReading();

    await allPages(reading, ANTS, 'pull_requests', window);

    expect(reading.waits).toHaveLength(1);
    expect(reading.waits[0].why).toMatch(/^GitHub's rate limit is spent/);
    expect(reading.waits[0].seconds).toBeGreaterThanOrEqual(29);
    expect(reading.waits[0].seconds).toBeLessThanOrEqual(32);
    expect(reading.slept).toEqual([reading.waits[0].seconds * 1000]);
  });

  test("GraphQL's own limit spent: its answer (200, RATE_LIMITED) waited until the reset", async () => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    // GitHub's answer to a query past the GraphQL limit (docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api).
    github.interrupt(firstPullsPage, {
      status: 200,
      headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset), 'x-ratelimit-resource': 'graphql' },
      body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] },
    });
    const reading = tokenReading();

    const pages = await allPages(reading, ANTS, 'pull_requests', window);

    expect(pages.map((p) => p.read)).toEqual([20, 20]);
    expect(reading.waits).toEqual([{ seconds: expect.any(Number), why: "GitHub's rate limit is spent (POST /graphql)" }]);
    expect(reading.waits[0].seconds).toBeGreaterThanOrEqual(29);
    expect(reading.waits[0].seconds).toBeLessThanOrEqual(32);
    expect(reading.slept).toEqual([reading.waits[0].seconds * 1000]);
  });

  test("GitHub Enterprise Server's: GraphQL at /api/graphql beside /api/v3, its spent limit waited out as well", async () => {
    // The throttling plugin knows a GraphQL answer at `/graphql` only: the client waits this one itself.
    const reset = Math.floor(Date.now() / 1000) + 30;
    github.interrupt((_, url) => url.pathname === '/api/graphql', {
      status: 200,
      headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset), 'x-ratelimit-resource': 'graphql' },
      body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] },
    });
    const reading = readingOf(`${github.base}/api/v3`, { kind: 'token', token: TOKEN });

    const pages = await allPages(reading, ANTS, 'pull_requests', window);

    expect(pages.map((p) => p.read)).toEqual([20, 20]);
    expect(github.requests.map((r) => `${r.method} ${r.path.replace(/\?.*/, '')}`)).toEqual(['GET /api/v3/repos/panjf2000/ants', ...Array(3).fill('POST /api/graphql')]);
    expect(reading.waits).toEqual([{ seconds: expect.any(Number), why: `GitHub's GraphQL rate limit is spent (POST ${github.base}/api/graphql)` }]);
    expect(reading.waits[0].seconds).toBeGreaterThanOrEqual(29);
    expect(reading.waits[0].seconds).toBeLessThanOrEqual(32);
    expect(reading.slept).toEqual([reading.waits[0].seconds * 1000]);
  });

  test('a wait longer than the hour is not waited: the read stops, saying so, and resumes next time', async () => {
    github.interrupt(firstPullsPage, { status: 429, headers: { 'retry-after': '7200' }, body: { message: 'Too Many Requests' } });
    const reading = tokenReading();

    const stopped = await refusal(allPages(reading, ANTS, 'pull_requests', window));

    expect(stopped).toBeInstanceOf(ProviderFailure);
    expect((stopped as Error).message).toBe("panjf2000/ants: GitHub's rate limit did not lift in time (429: Too Many Requests); the next run resumes here");
    expect(reading.slept).toEqual([]);
  });
});

describe('a refusal stops the read with the repository named', () => {
  test('401 Bad credentials', async () => {
    const reading = readingOf(github.base, { kind: 'token', token: 'github_pat_revoked' });

    const refused = await refusal(allPages(reading, ANTS, 'pull_requests', window));

    expect(refused).toBeInstanceOf(CredentialRefused);
    expect((refused as Error).message).toBe(`GitHub refused the credential reading panjf2000/ants (401: ${BAD_CREDENTIALS.message})`);
    // Asked once: a refusal is not tried again.
    expect(github.requests).toHaveLength(1);
  });

  test('401 on the GraphQL query: the credential refused, naming the repository, asked once', async () => {
    github.interrupt(firstPullsPage, { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/graphql' } });

    const refused = await refusal(allPages(tokenReading(), ANTS, 'pull_requests', window));

    expect(refused).toBeInstanceOf(CredentialRefused);
    expect((refused as Error).message).toBe('GitHub refused the credential reading panjf2000/ants (401: Bad credentials)');
    expect(github.requests.filter((r) => r.path === '/graphql')).toHaveLength(1);
  });

  test('a 403 that is no rate limit: a fine-grained token without the permission', async () => {
    github.interrupt((_, url) => url.pathname === '/repos/panjf2000/ants/deployments', {
      status: 403,
      body: { message: 'Resource not accessible by personal access token', documentation_url: 'https://docs.github.com/rest/deployments/deployments#list-deployments', status: '403' },
    });

    const refused = await refusal(allPages(tokenReading(), ANTS, 'deployments', window));

    expect(refused).toBeInstanceOf(CredentialRefused);
    expect((refused as Error).message).toBe('GitHub refused the credential reading panjf2000/ants (403: Resource not accessible by personal access token)');
  });

  test('a repository gone since it was listed is a failure of that repository, not of the credential', async () => {
    const gone = await refusal(allPages(tokenReading(), { key: '1', name: 'panjf2000/gone' }, 'issues', window));

    expect(gone).toBeInstanceOf(ProviderFailure);
    expect((gone as Error).message).toBe('panjf2000/gone: GitHub answered 404: Not Found');
  });
});

test('a page past the answer cap stops the read, asked once: its end was never read', async () => {
  const reading = readingOf(github.base, { kind: 'token', token: TOKEN }, { outbound: { allowPrivate: true, answerMaxBytes: 16 * 1024, reportMaxBytes: 16 * 1024 } });

  const stopped = await refusal(allPages(reading, ANTS, 'pull_requests', window));

  expect(stopped).toBeInstanceOf(ProviderFailure);
  expect((stopped as Error).message).toMatch(/^POST \/graphql: .*sent more than 16384 bytes/);
  expect(github.requests.filter((r) => r.path === '/graphql')).toHaveLength(1);
});
