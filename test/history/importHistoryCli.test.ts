import { randomUUID } from 'node:crypto';
import { Deployment, HistoryImport } from '../../db/models';
import { providerCatalog } from '../../src/integrations/catalog';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import { HistoryCatchUp } from '../../src/services/history/historySchedule';
import { parseCommand } from '../../scripts/import';
import { UsageError } from '../../scripts/cli';
import { appCli, appCliStarted, CliRun, RunningScript } from '../support/cli';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';

// Each command is a process of its own (tsx, then the database): a few seconds each on a busy two-core machine.
jest.setTimeout(240_000);

/**
 * `npm run import -- github --git-app <id>` (docs/history.md) as an operator runs it, in a child process on the test
 * app's database, against a fake GitHub serving GitHub's own webhook examples as its REST API answers them
 * (@octokit/webhooks-examples: Codertocat/Hello-World, pull request #2, the objects the deliveries carry); and the
 * daily catch-up finding the deployment whose webhook never came.
 */
const example = (event: string, action: string) => copy(githubExamples(event).find((e) => e.action === action)!);
const opened = example('pull_request', 'opened');
const reviewed = example('pull_request_review', 'submitted');
const deployed = example('deployment_status', 'created');
const issue = example('issues', 'opened');

const TOKEN = `github_pat_${randomUUID().replaceAll('-', '')}`;
const github = new FakeGitHubApi();

let t: TestApp;
let imports: (...args: string[]) => Promise<CliRun>;
let startImport: (...args: string[]) => RunningScript;
let credentials: ConnectionCredentials;
beforeAll(async () => {
  // The fake answers on loopback, which the operator's allowance lets calls reach.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  imports = appCli(t, 'import', { WEBHOOK_ALLOW_PRIVATE: 'true' });
  startImport = appCliStarted(t, 'import', { WEBHOOK_ALLOW_PRIVATE: 'true' });
  await github.start();
  github.tokens.add(TOKEN);
  github.repositories.push({
    repository: opened.repository,
    pulls: [reviewed.pull_request],
    reviews: new Map([[reviewed.pull_request.number, [reviewed.review]]]),
    deployments: [deployed.deployment],
    statuses: new Map([[deployed.deployment.id, [deployed.deployment_status]]]),
    issues: [issue.issue],
  });
  credentials = new ConnectionCredentials(ChangeRunner.for(t.runtime.sequelize), new SecretBox(() => secretsKeyFor(t.config)), providerCatalog());
});
afterAll(async () => {
  await github.stop();
  await t.close();
});

async function githubApp(token = TOKEN) {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${randomUUID().slice(0, 8)}`);
  await credentials.setCredential({ type: 'git_app', id: gitApp.id }, { kind: 'token', token });
  return { id: gitApp.id, secret };
}

test('a year read in one command: each scope and kind counted, the summary on stdout, the address kept for the catch-up', async () => {
  const app = await githubApp();
  const run = await imports('github', '--git-app', app.id, '--since', '2019-01-01', '--until', '2019-12-31', '--base-url', github.base);
  expect(run).toMatchObject({ code: 0 });
  expect(run.stdout).toMatch(/^Read 3 items of 1 scope of github gapp_\w+ \(2019-01-01 to 2019-12-31\) in [\d.]+ s: 4 the webhooks had not brought, now stored\.\n$/m);
  expect(run.stderr).toContain('1 repositories to read');
  expect(run.stderr).toContain('[1/1] Codertocat/Hello-World pull requests: 1 read, 2 new, done');
  expect(run.stderr).toContain('[1/1] Codertocat/Hello-World deployments: 1 read, 1 new, done');
  expect(run.stderr).not.toContain(TOKEN);
  expect(await HistoryImport.findByPk(app.id)).toMatchObject({ outcome: 'complete', base_url: github.base, items_read: 3, items_found: 4 });

  const again = await imports('github', '--git-app', app.id, '--json');
  expect(again.code).toBe(0);
  const outcome = JSON.parse(again.stdout);
  expect(outcome).toMatchObject({ connection_id: app.id, provider: 'github', outcome: 'complete', message: null, read: 2, found: 0, seconds: expect.any(Number) });
  // From where the first reached, less the overlap: the issue, last changed in May, is not listed again.
  expect(outcome.since).toBe('2019-12-29T23:59:59.999Z');
  expect(outcome.scopes).toEqual([
    { scope: 'Codertocat/Hello-World', kind: 'pull_requests', read: 1, found: 0, complete: true },
    { scope: 'Codertocat/Hello-World', kind: 'review_comments', read: 0, found: 0, complete: true },
    { scope: 'Codertocat/Hello-World', kind: 'deployments', read: 1, found: 0, complete: true },
    { scope: 'Codertocat/Hello-World', kind: 'issues', read: 0, found: 0, complete: true },
  ]);
});

test('a refused credential exits 1 saying so; a connection without one is told the command that sets it', async () => {
  const refused = await githubApp(`github_pat_${randomUUID().replaceAll('-', '')}`);
  const run = await imports('github', '--git-app', refused.id, '--base-url', github.base);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/import: .*GitHub refused the credential.*401/);
  expect(await HistoryImport.findByPk(refused.id)).toMatchObject({ outcome: 'refused' });

  const { gitApp } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${randomUUID().slice(0, 8)}`);
  const without = await imports('github', '--git-app', gitApp.id);
  expect(without.code).toBe(1);
  expect(without.stdout).not.toContain('Read');
  expect(without.stderr).toContain(`set one with npm run gitapps -- set-credential --git-app ${gitApp.id} --token-file <file>`);
});

test('Ctrl-C in a wait for the rate limit: stopped at once, the connection given back, and the run again goes on at once', async () => {
  const app = await githubApp();
  // GitHub's documented secondary rate limit (docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api),
  // answered to the deployments' list, after the pull requests are stored: ten minutes to wait.
  github.interrupt((request, url) => request.method === 'GET' && url.pathname.endsWith('/deployments'), {
    status: 403,
    headers: { 'retry-after': '600' },
    body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits' },
  });
  const run = startImport('github', '--git-app', app.id, '--since', '2019-01-01', '--until', '2019-12-31', '--base-url', github.base);
  await run.saidOnStderr(/waiting 600 s for the provider's rate limit/);
  // One Ctrl-C reaches the process more than once under npm run (the terminal signals npm, tsx and it; each passes it on).
  run.child.kill('SIGINT');
  run.child.kill('SIGINT');
  const stopped = await run.ended;

  expect(stopped.code).toBe(130);
  expect(stopped.stderr).toContain('import: SIGINT: stopping once the batch being stored is committed (a second signal ends it at once)');
  expect(stopped.stderr).toContain('import: Stopped before its end: interrupted (SIGINT); the next run goes on from where this one reached');
  expect(stopped.stdout).toMatch(/^Read 1 items of 1 scope of github gapp_\w+ .* 2 the webhooks had not brought, now stored\. Stopped when asked: run it again to go on from where it stopped\.\n$/m);
  expect(await HistoryImport.findByPk(app.id)).toMatchObject({ outcome: 'stopped', lease_owner: null, lease_until: null, items_read: 1, items_found: 2 });

  // Not refused for the ten minutes a killed run's lease would hold it: the deployment is read, nothing stored twice.
  const again = await imports('github', '--git-app', app.id, '--since', '2019-01-01', '--until', '2019-12-31', '--json');
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'complete', found: 2 });
  expect((await Deployment.findAll({ where: { git_app_id: app.id } })).map((d) => d.external_id)).toEqual([String(deployed.deployment.id)]);
});

test('usage: the connection flag of the provider, days or times, names to read, an http(s) base', async () => {
  expect(() => parseCommand(['github'])).toThrow(new UsageError('github needs --git-app <id> (see npm run gitapps -- list)'));
  expect(() => parseCommand(['pagerduty', '--git-app', 'g'])).toThrow(UsageError);
  expect(() => parseCommand(['github', '--git-app', 'g', '--since', '2026-02-30'])).toThrow(/--since must be a day \(YYYY-MM-DD\) or an ISO 8601 time/);
  expect(() => parseCommand(['github', '--git-app', 'g', '--since', '2026-03-02', '--until', '2026-03-01'])).toThrow(/is not before --until/);
  expect(() => parseCommand(['github', '--git-app', 'g', '--base-url', 'ftp://x'])).toThrow(/--base-url must be an http\(s\) URL/);
  expect(parseCommand(['pagerduty', '--app', 'a', '--repos', 'PSVC1, Checkout', '--until', '2026-03-01'])).toEqual({
    kind: 'history',
    provider: 'pagerduty',
    connection: { type: 'app', id: 'a' },
    only: ['PSVC1', 'Checkout'],
    until: new Date('2026-03-01T23:59:59.999Z'),
    json: false,
  });
});

test('the daily catch-up finds the deployment whose webhook never came', async () => {
  const app = await githubApp();
  const deliver = async (event: string, payload: unknown) => (await deliverToGithub(t, app.id, app.secret, { event, payload })).body.data;
  expect(await deliver('pull_request', opened)).toMatchObject({ result: 'applied' });
  expect(await deliver('pull_request_review', reviewed)).toMatchObject({ result: 'applied' });
  expect(await deliver('issues', issue)).toMatchObject({ result: 'applied' });
  expect(await Deployment.count({ where: { git_app_id: app.id } })).toBe(0);
  // The app was read once, at the fake's address, before the deployment was made; its webhook was then lost.
  const [hello] = github.repositories;
  const deployments = hello.deployments;
  hello.deployments = [];
  const first = await imports('github', '--git-app', app.id, '--since', '2019-01-01', '--until', '2019-05-15', '--base-url', github.base);
  hello.deployments = deployments;
  expect(first.code).toBe(0);

  const changes = ChangeRunner.for(t.runtime.sequelize);
  const http = { outbound: outboundPolicy(t.config), sleep: async () => undefined, now: () => new Date() };
  const history = createHistoryImports(t.config, changes, new SecretBox(() => secretsKeyFor(t.config)), providerCatalog(), http);
  // A day later, the catch-up's tick.
  const tomorrow = () => new Date(Date.now() + 86_400_000);
  const caughtUp = await new HistoryCatchUp(history, providerCatalog(), { onImported: () => undefined, onError: (err) => fail(err) }, tomorrow).runDue();

  const mine = caughtUp.find((o) => o.connection_id === app.id);
  expect(mine).toMatchObject({ outcome: 'complete', found: 1 });
  expect((await Deployment.findAll({ where: { git_app_id: app.id } })).map((d) => [d.external_id, d.status])).toEqual([[String(deployed.deployment.id), 'success']]);
});
