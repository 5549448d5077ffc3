import { randomUUID } from 'node:crypto';
import { PullRequest, PullRequestActivity } from '../../db/models';
import { providerCatalog } from '../../src/integrations/catalog';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import type { HistoryImports } from '../../src/services/history/historyImport';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { fakeGitlab, gitlabObject } from '../support/peers/gitlabApi';
import { GITLAB_EVENT_HEADERS, mergeRequestHook, noteHook } from '../support/peers/gitlabPayloads';
import { deliverToGitlab } from '../support/peers/ingest';

/**
 * A GitLab merge request with its approval and its comment, delivered by webhook and then read from the API (and the
 * other way round), is one pull request with one approval and one comment; the import's second run finds nothing.
 * The deliveries are GitLab's documented hooks (test/support/peers/gitlabPayloads.ts), derived here to be of one merge
 * request: the Merge Request Hook (`open`, gitlabhq/gitlab-test !1); the same hook as an `approval` by its reviewer
 * user1 (GitLab documents no approval payload); the Note Hook's note (1244, by root) on that merge request. The fake
 * API serves the same objects in the API's shape, field for field: the project's `visibility` for its hook's
 * `visibility_level`, the merge request's `sha` for its `last_commit.id` and `author` for its `author_id` (named as
 * the hook names the user who opened it), the note's `author` for its hook's `user`; the approvals endpoint answers
 * GitLab's example (test/fixtures/history/gitlab/merge_request_approvals.json) naming user1.
 */
const WINDOW = { since: new Date('2013-01-01T00:00:00Z'), until: new Date('2016-01-01T00:00:00Z') };
const { action: _opened, ...mr } = mergeRequestHook.object_attributes;
const approvalHook = { ...mergeRequestHook, user: mergeRequestHook.reviewers[0], object_attributes: { ...mr, action: 'approval' } };
const commentHook = { ...noteHook, project_id: mergeRequestHook.project.id, project: mergeRequestHook.project, merge_request: mr };

const approvals = gitlabObject('merge_request_approvals');
const project = mergeRequestHook.project;
const served = {
  project: { id: project.id, name: project.name, path_with_namespace: project.path_with_namespace, default_branch: project.default_branch, visibility: 'public' },
  mergeRequests: [
    { id: mr.id, iid: mr.iid, project_id: project.id, title: mr.title, description: mr.description, state: mr.state, created_at: mr.created_at, updated_at: mr.updated_at, merged_at: null, closed_at: null, sha: mr.last_commit.id, merge_commit_sha: null, author: { id: mr.author_id, username: mergeRequestHook.user.username } },
  ],
  notes: [{ id: noteHook.object_attributes.id, body: noteHook.object_attributes.note, author: { id: noteHook.user.id, username: noteHook.user.username }, created_at: '2015-05-17T18:21:36.000Z', system: false, noteable_id: mr.id, noteable_type: 'MergeRequest', noteable_iid: mr.iid }],
  approvals: new Map([[mr.iid, { ...approvals, approved_by: [{ user: mergeRequestHook.reviewers[0] }] }]]),
};

const TOKEN = `glpat-${randomUUID()}`;
const peer = fakeGitlab({ token: TOKEN, projects: [served] });

let t: TestApp;
let imports: HistoryImports;
let credentials: ConnectionCredentials;
beforeAll(async () => {
  t = await startTestApp();
  await peer.start();
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const secrets = new SecretBox(() => secretsKeyFor(t.config));
  credentials = new ConnectionCredentials(changes, secrets, providerCatalog());
  // The fake answers on loopback, which the operator's allowance lets calls reach; waits take no time.
  const http = { outbound: { ...outboundPolicy(t.config), allowPrivate: true }, sleep: async () => undefined, now: () => new Date() };
  imports = createHistoryImports(t.config, changes, secrets, providerCatalog(), http);
});
afterAll(async () => {
  await peer.stop();
  await t.close();
});

/** An Acme GitLab git app with its webhook secret and an access token to read the API with. */
async function gitlabApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'gitlab', `GitLab ${randomUUID().slice(0, 8)}`);
  await credentials.setCredential({ type: 'git_app', id: gitApp.id }, { kind: 'token', token: TOKEN });
  const deliver = async (event: string, payload: unknown) => (await deliverToGitlab(t, gitApp.id, secret, { event, payload })).body.data;
  return {
    deliverAll: async () => [
      await deliver(GITLAB_EVENT_HEADERS.mergeRequest, mergeRequestHook),
      await deliver(GITLAB_EVENT_HEADERS.mergeRequest, approvalHook),
      await deliver(GITLAB_EVENT_HEADERS.note, commentHook),
    ],
    importHistory: () => imports.run({ connection: { type: 'git_app', id: gitApp.id }, ...WINDOW, baseUrl: `${peer.base}/api/v4` }),
    stored: async () => {
      const pullRequests = await PullRequest.findAll({ where: { git_app_id: gitApp.id }, order: [['created_at', 'ASC']] });
      const activity = await PullRequestActivity.findAll({ where: { git_app_id: gitApp.id }, order: [['external_id', 'ASC']] });
      return {
        pullRequests: pullRequests.map((pr) => [pr.number, pr.state, pr.head_sha, pr.author_provider_id, pr.created_at.toISOString()]),
        activity: activity.map((a) => [a.kind, a.external_id, a.actor_provider_id, a.created_at.toISOString()]),
      };
    },
  };
}

const ONE = {
  pullRequests: [[1, 'open', 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', '51', '2013-12-03T17:23:34.000Z']],
  activity: [
    ['approved', 'approval:user1', '6', '2013-12-03T17:23:34.000Z'],
    ['comment', 'note:1244', '1', '2015-05-17T18:21:36.000Z'],
  ],
};

test('delivered by webhook, then imported: one pull request, one approval and one comment, and the import finds nothing new', async () => {
  const app = await gitlabApp();
  expect(await app.deliverAll()).toMatchObject([{ result: 'applied' }, { result: 'applied' }, { result: 'applied' }]);
  expect(await app.stored()).toEqual(ONE);
  const imported = await app.importHistory();
  expect(imported).toMatchObject({ outcome: 'complete', message: null, read: 1, found: 0 });
  expect(imported.scopes.map((s) => [s.scope, s.kind, s.read, s.complete])).toEqual([
    ['gitlabhq/gitlab-test', 'pull_requests', 1, true],
    ['gitlabhq/gitlab-test', 'deployments', 0, true],
    ['gitlabhq/gitlab-test', 'issues', 0, true],
  ]);
  expect(await app.stored()).toEqual(ONE);
});

test('imported, then delivered by webhook: the deliveries add nothing; a second run finds nothing', async () => {
  const app = await gitlabApp();
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 3 });
  expect(await app.stored()).toEqual(ONE);
  await app.deliverAll();
  expect(await app.stored()).toEqual(ONE);
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 0 });
  expect(await app.stored()).toEqual(ONE);
});
