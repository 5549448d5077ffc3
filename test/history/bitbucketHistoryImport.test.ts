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
import { BITBUCKET_PAYLOADS, deliverToBitbucket } from '../support/peers/bitbucket/deliveries';
import { ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * A Bitbucket pull request delivered by webhook and then read from the API's history (and the other way round) is one
 * pull request with one approval; the import's second run finds nothing. The deliveries are the raw bodies Bitbucket
 * sent for `arolgroup/j0664-ns2-firmware` #6 (test/support/peers/bitbucket/README.md: B-AROL-O/ble-testsuite): its
 * approval, then its merge. The API serves the same objects: a webhook's `repository` and `pullrequest` are the REST
 * API's representations of them, and the approval is the log's `approval` entry, `{date, user}`, with the pull request
 * it is on.
 */
const approved = BITBUCKET_PAYLOADS['pullrequest:approved'];
const merged = BITBUCKET_PAYLOADS['pullrequest:fulfilled'];
const FULL_NAME = 'arolgroup/j0664-ns2-firmware';
const WINDOW = { since: new Date('2023-05-01T00:00:00Z'), until: new Date('2023-06-01T00:00:00Z') };
const page = (values: unknown[]) => ({ pagelen: 50, values });

const peer = new ScriptedPeer((_request, url) => {
  if (url.pathname === '/2.0/repositories') return { status: 200, body: page([merged.repository]) };
  if (url.pathname === `/2.0/repositories/${FULL_NAME}`) return { status: 200, body: merged.repository };
  if (url.pathname === `/2.0/repositories/${FULL_NAME}/pullrequests`) return { status: 200, body: page([merged.pullrequest]) };
  if (url.pathname === `/2.0/repositories/${FULL_NAME}/pullrequests/6/activity`) {
    const { type, id, title, links } = merged.pullrequest;
    return { status: 200, body: page([{ approval: approved.approval, pull_request: { type, id, title, links } }]) };
  }
  return { status: 404, body: { type: 'error', error: { message: 'Not found' } } };
});

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

/** An Acme Bitbucket git app with its webhook secret and an access token to read the API with. */
async function bitbucketApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'bitbucket', `Bitbucket ${randomUUID().slice(0, 8)}`);
  await credentials.setCredential({ type: 'git_app', id: gitApp.id }, { kind: 'token', token: `ATCTT3x-${randomUUID()}` });
  const deliver = async (event: 'pullrequest:approved' | 'pullrequest:fulfilled') => (await deliverToBitbucket(t, gitApp.id, secret, { event, payload: BITBUCKET_PAYLOADS[event] })).body.data;
  return {
    deliverBoth: async () => [await deliver('pullrequest:approved'), await deliver('pullrequest:fulfilled')],
    importHistory: () => imports.run({ connection: { type: 'git_app', id: gitApp.id }, ...WINDOW, baseUrl: `${peer.base}/2.0` }),
    stored: async () => {
      const pullRequests = await PullRequest.findAll({ where: { git_app_id: gitApp.id } });
      const activity = await PullRequestActivity.findAll({ where: { git_app_id: gitApp.id } });
      return {
        pullRequests: pullRequests.map((pr) => [pr.number, pr.state, pr.head_sha, pr.merge_commit_sha, pr.merged_at?.toISOString()]),
        activity: activity.map((a) => [a.kind, a.external_id, a.created_at.toISOString()]),
      };
    },
  };
}

const ONE = {
  pullRequests: [[6, 'merged', 'ed0e0bfd9a94', '6ca069123978', '2023-05-12T11:45:48.675Z']],
  activity: [['approved', 'approved:{18aaf105-e666-439e-b95a-85c00651a267}:2023-05-12T11:45:41.426Z', '2023-05-12T11:45:41.426Z']],
};

test('delivered by webhook, then imported: one pull request with one approval, and the import finds nothing new', async () => {
  const app = await bitbucketApp();
  expect(await app.deliverBoth()).toMatchObject([{ result: 'applied' }, { result: 'applied' }]);
  const imported = await app.importHistory();
  expect(imported).toMatchObject({ outcome: 'complete', message: null, read: 1, found: 0, scopes: [{ scope: FULL_NAME, kind: 'pull_requests', read: 1, found: 0, complete: true }] });
  expect(await app.stored()).toEqual(ONE);
});

test('imported, then delivered by webhook: the deliveries add nothing; a second run finds nothing', async () => {
  const app = await bitbucketApp();
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 2 });
  expect(await app.stored()).toEqual(ONE);
  await app.deliverBoth();
  expect(await app.stored()).toEqual(ONE);
  expect(await app.importHistory()).toMatchObject({ outcome: 'complete', read: 1, found: 0 });
  expect(await app.stored()).toEqual(ONE);
});
