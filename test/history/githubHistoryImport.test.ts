import { randomUUID } from 'node:crypto';
import { Deployment, PullRequest, PullRequestActivity, Task } from '../../db/models';
import { providerCatalog } from '../../src/integrations/catalog';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import type { HistoryImports } from '../../src/services/history/historyImport';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { FakeGitHubApi } from '../support/peers/github/fakeGitHubApi';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';

/**
 * A pull request with its review and review comment, a deployment and an issue, delivered by GitHub's webhooks and
 * then read from its REST API by the history runner (and the other way round), are one pull request with one review
 * and one comment, one deployment and one task; the import's second run finds nothing. The deliveries are GitHub's
 * own examples (@octokit/webhooks-examples: Codertocat/Hello-World, pull request #2); the fake API serves the very
 * objects those deliveries carry, as the REST API answers them (a webhook's `pull_request`, `review`, `comment`,
 * `deployment`, `deployment_status`, `issue` and `repository` are the REST objects): the pull request as its list
 * shows it, in its last state (the review's delivery's, which like the list's names no line counts).
 */
const example = (event: string, action: string) => copy(githubExamples(event).find((e) => e.action === action)!);
const opened = example('pull_request', 'opened');
const reviewed = example('pull_request_review', 'submitted');
const commented = example('pull_request_review_comment', 'created');
const deployed = example('deployment_status', 'created');
const issue = example('issues', 'opened');
const WINDOW = { since: new Date('2019-01-01T00:00:00Z'), until: new Date('2020-01-01T00:00:00Z') };

const TOKEN = `github_pat_${randomUUID().replaceAll('-', '')}`;
const github = new FakeGitHubApi();

let t: TestApp;
let imports: HistoryImports;
let credentials: ConnectionCredentials;
beforeAll(async () => {
  t = await startTestApp();
  await github.start();
  github.tokens.add(TOKEN);
  github.repositories.push({
    repository: opened.repository,
    pulls: [reviewed.pull_request],
    reviews: new Map([[reviewed.pull_request.number, [reviewed.review]]]),
    comments: new Map([[commented.pull_request.number, [commented.comment]]]),
    deployments: [deployed.deployment],
    statuses: new Map([[deployed.deployment.id, [deployed.deployment_status]]]),
    issues: [issue.issue],
  });
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const secrets = new SecretBox(() => secretsKeyFor(t.config));
  credentials = new ConnectionCredentials(changes, secrets, providerCatalog());
  // The fake answers on loopback, which the operator's allowance lets calls reach; waits take no time.
  const http = { outbound: { ...outboundPolicy(t.config), allowPrivate: true }, sleep: async () => undefined, now: () => new Date() };
  imports = createHistoryImports(t.config, changes, secrets, providerCatalog(), http);
});
afterAll(async () => {
  await github.stop();
  await t.close();
});

/** An Acme GitHub git app with its webhook secret and a token to read the API with. */
async function githubApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${randomUUID().slice(0, 8)}`);
  await credentials.setCredential({ type: 'git_app', id: gitApp.id }, { kind: 'token', token: TOKEN });
  const deliver = async (event: string, payload: unknown) => (await deliverToGithub(t, gitApp.id, secret, { event, payload })).body.data;
  return {
    deliverAll: async () => [
      await deliver('pull_request', opened),
      await deliver('pull_request_review', reviewed),
      await deliver('pull_request_review_comment', commented),
      await deliver('deployment_status', deployed),
      await deliver('issues', issue),
    ],
    importHistory: () => imports.run({ connection: { type: 'git_app', id: gitApp.id }, ...WINDOW, baseUrl: github.base }),
    stored: async () => {
      const where = { git_app_id: gitApp.id };
      const pullRequests = await PullRequest.findAll({ where });
      const activity = await PullRequestActivity.findAll({ where, order: [['external_id', 'ASC']] });
      const deployments = await Deployment.findAll({ where });
      const tasks = await Task.findAll({ where: { app_id: gitApp.id } });
      return {
        pullRequests: pullRequests.map((pr) => [pr.number, pr.state, pr.head_sha, pr.author_provider_id, pr.additions, pr.created_at.toISOString()]),
        activity: activity.map((a) => [a.kind, a.external_id, a.actor_provider_id, a.created_at.toISOString()]),
        deployments: deployments.map((d) => [d.external_id, d.environment, d.status, d.sha, d.finished_at.toISOString()]),
        tasks: tasks.map((task) => [task.board_key, task.external_id, task.type, task.status, task.status_changes]),
      };
    },
  };
}

const ONE = {
  pullRequests: [[2, 'open', 'ec26c3e57ca3a959ca5aad62de7213c562f8c821', '21031067', 1, '2019-05-15T15:20:33.000Z']],
  activity: [
    ['comment', 'review:237895671', '21031067', '2019-05-15T15:20:38.000Z'],
    ['comment', 'review_comment:284312630', '21031067', '2019-05-15T15:20:37.000Z'],
  ],
  deployments: [['145988746', 'production', 'success', 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e', '2019-05-15T15:20:55.000Z']],
  tasks: [['Codertocat/Hello-World', '444500041', 'bug', 'active', 0]],
};

test('delivered by webhook, then imported: one of each, and the import finds nothing new', async () => {
  const app = await githubApp();
  expect(await app.deliverAll()).toMatchObject(Array(5).fill({ result: 'applied' }));
  expect(await app.stored()).toEqual(ONE);

  const imported = await app.importHistory();

  expect(imported).toMatchObject({ outcome: 'complete', message: null, found: 0 });
  expect(imported.scopes.map((s) => [s.scope, s.kind, s.read, s.complete])).toEqual([
    ['Codertocat/Hello-World', 'pull_requests', 1, true],
    ['Codertocat/Hello-World', 'review_comments', 1, true],
    ['Codertocat/Hello-World', 'deployments', 1, true],
    ['Codertocat/Hello-World', 'issues', 1, true],
  ]);
  expect(await app.stored()).toEqual(ONE);
});

test('imported, then delivered by webhook: the deliveries add nothing; a second run finds nothing', async () => {
  const app = await githubApp();
  const first = await app.importHistory();
  expect(first).toMatchObject({ outcome: 'complete', read: 4 });
  expect(first.found).toBeGreaterThan(0);
  // GitHub's list of pull requests names no line counts: the import stores none. The opening's delivery, which
  // does, is older than the state the import stored, so it changes nothing else, but its lines are taken.
  const imported = { ...ONE, pullRequests: [[...ONE.pullRequests[0].slice(0, 4), null, ONE.pullRequests[0][5]]] };
  expect(await app.stored()).toEqual(imported);

  expect(await app.deliverAll()).toMatchObject(Array(5).fill({ result: 'applied' }));
  expect(await app.stored()).toEqual(ONE);
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 4, found: 0 });
  expect(await app.stored()).toEqual(ONE);
});
