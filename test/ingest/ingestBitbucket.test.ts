import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { GitApp, PullRequest, PullRequestActivity } from '../../db/models';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, deliverToGitlab, ingestCounts } from '../support/peers/ingest';
import { BITBUCKET_PAYLOADS, BitbucketDelivery, bitbucketSignature, deliverToBitbucket } from '../support/peers/bitbucket/deliveries';
import { pushHook } from '../support/peers/gitlabPayloads';

/**
 * `POST /ingest/bitbucket/{git_app_id}` (docs/ingest.md#bitbucket-cloud) with Bitbucket Cloud's captured deliveries
 * (test/support/peers/bitbucket/README.md), signed as Bitbucket signs them, and what `/v1` shows afterwards. The
 * same review history as GitHub's and GitLab's gives the same figures: test/metrics/collaborationMetrics.test.ts and
 * test/metrics/aiImpactMetrics.test.ts deliver it as Bitbucket too.
 */

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000', INGEST_BODY_LIMIT_KB: '64' });
  token = await t.token();
});
afterAll(async () => t.close());

async function bitbucketApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'bitbucket', `Bitbucket ${randomUUID().slice(0, 8)}`);
  return { id: gitApp.id, secret, deliver: (d: BitbucketDelivery) => deliverToBitbucket(t, gitApp.id, secret, d) };
}
const v1 = (url: string) => t.get(url, token);
const payload = (event: string) => copy(BITBUCKET_PAYLOADS[event]);

/** The captured push, its one commit written by Linus (his e-mail, rewritten), Bitbucket's account matched to it. */
function linusPush() {
  const push = payload('repo:push');
  push.push.changes[0].commits[0].author.raw = 'Linus Torvalds <linus@demo.test>';
  return push;
}

test('repo:push stores the commits of its changes, matching authors by the e-mail of author.raw; the account Bitbucket matched is learnt', async () => {
  const app = await bitbucketApp();
  const id = randomUUID();
  const res = await app.deliver({ event: 'repo:push', payload: linusPush(), id });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ delivery_id: id, event: 'repo:push', result: 'applied', repository_id: expect.any(String), repository_created: true, commits_added: 1 });

  const repos = (await v1(`/v1/git/apps/${app.id}/repositories`)).body.data;
  expect(repos).toEqual([expect.objectContaining({ name: 'PublicTestRepo', full_name: 'martinherren1984/publictestrepo', default_branch: 'main', is_private: false })]);
  const commits = (await v1(`/v1/git/apps/${app.id}/repositories/${repos[0].id}/commits`)).body.data;
  expect(commits).toEqual([expect.objectContaining({ sha: 'c14c1bb05dfb1fdcdf06b31485fff61b0ea44277', author_id: DEMO.users.linus, author_name: 'Linus Torvalds', message: 'a\n', created_at: '2022-09-07T20:19:25.000Z' })]);
  // The account is Linus's on this git app from now on: pull requests and reviews name accounts only.
  const apps = (await v1(`/v1/users/${DEMO.users.linus}/git/apps`)).body.data;
  expect(apps).toContainEqual(expect.objectContaining({ id: app.id, provider: 'bitbucket', username: '5cf8e3a9678ca90f8e7cc8a8' }));

  const before = await ingestCounts();
  expect((await app.deliver({ event: 'repo:push', payload: linusPush(), id })).body.data.result).toBe('duplicate');
  expect((await app.deliver({ event: 'repo:push', payload: linusPush() })).body.data.commits_added).toBe(0);
  expect({ ...(await ingestCounts()), IngestDelivery: 0 }).toEqual({ ...before, IngestDelivery: 0 });
});

test("Bitbucket's own signature of a captured body (the Jenkins plugin's test vector) is accepted; the push's five commits are stored", async () => {
  const app = await bitbucketApp();
  const body = fs.readFileSync(path.join(__dirname, '../support/peers/bitbucket/repoPushSigned.json'), 'utf8');
  expect(bitbucketSignature('Gkvl$k$wyNpQAF42', body)).toBe('sha256=f205c729821c6954aff2afe72b965c34015b4baf96ea8ddc2cc44999c014a035');
  await GitApp.update({ webhook_secret: new SecretBox(() => secretsKeyFor(t.config)).seal('Gkvl$k$wyNpQAF42') }, { where: { id: app.id } });
  const res = await deliverToBitbucket(t, app.id, 'Gkvl$k$wyNpQAF42', { event: 'repo:push', body });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ result: 'applied', repository_created: true, commits_added: 5 });
  // A commit whose e-mail Bitbucket matched to no account still has its author's name.
  const commits = (await v1(`/v1/git/apps/${app.id}/repositories/${res.body.data.repository_id}/commits`)).body.data;
  expect(commits.map((c: { author_name: string }) => c.author_name).sort()).toEqual(['Antonio Muniz', 'Antonio Muniz', 'Nikolas Falco', 'Nikolas Falco', 'Nikolas Falco']);
});

test('a push Bitbucket truncated says so: the commits it lists are stored, the rest come with the import', async () => {
  const app = await bitbucketApp();
  const push = linusPush();
  push.push.changes[0].truncated = true;
  const res = await app.deliver({ event: 'repo:push', payload: push });
  expect(res.body.data).toMatchObject({ commits_added: 1, commits_truncated: true });
});

test('pullrequest:created, then rejected: open, then closed, with its author as Bitbucket names them', async () => {
  const app = await bitbucketApp();
  expect((await app.deliver({ event: 'pullrequest:created', payload: payload('pullrequest:created') })).body.data).toMatchObject({ result: 'applied', pull_request: 'created' });
  const repo = (await v1(`/v1/git/apps/${app.id}/repositories`)).body.data[0];
  const list = () => v1(`/v1/git/apps/${app.id}/repositories/${repo.id}/pull-requests`);
  expect((await list()).body.data).toEqual([
    expect.objectContaining({ number: 735, title: 'BUILD test', state: 'open', created_at: '2024-11-09T13:02:56.285Z', merged_at: null, closed_at: null }),
  ]);
  expect((await app.deliver({ event: 'pullrequest:rejected', payload: payload('pullrequest:rejected') })).body.data.pull_request).toBe('updated');
  expect((await list()).body.data).toEqual([expect.objectContaining({ number: 735, state: 'closed', merged_at: null, closed_at: '2024-11-09T13:14:33.659Z' })]);
  const stored = await PullRequest.findOne({ where: { repository_id: repo.id, number: 735 } });
  // Bitbucket's uuid of the author; its head, named by 12 digits, stays so until the commit is pushed.
  expect(stored).toMatchObject({ author_provider_id: payload('pullrequest:created').pullrequest.author.uuid, head_sha: 'd31df3425c5b' });
});

test('an approval, then the merge: the merge commit Bitbucket names by 12 digits is completed when the push of it arrives', async () => {
  const app = await bitbucketApp();
  const approval = await app.deliver({ event: 'pullrequest:approved', payload: payload('pullrequest:approved') });
  expect(approval.body.data).toMatchObject({ result: 'applied', pull_request: 'created', review: 'created' });
  expect((await app.deliver({ event: 'pullrequest:fulfilled', payload: payload('pullrequest:fulfilled') })).body.data.pull_request).toBe('updated');
  const repositoryId = approval.body.data.repository_id;
  const merged = (await v1(`/v1/git/apps/${app.id}/repositories/${repositoryId}/pull-requests`)).body.data[0];
  expect(merged).toMatchObject({ number: 6, state: 'merged', merged_at: '2023-05-12T11:45:48.675Z' });
  const activity = await PullRequestActivity.findAll({ where: { repository_id: repositoryId } });
  expect(activity.map((a) => [a.kind, a.created_at.toISOString()])).toEqual([['approved', '2023-05-12T11:45:41.426Z']]);
  expect(await PullRequest.findOne({ where: { repository_id: repositoryId } })).toMatchObject({ merge_commit_sha: '6ca069123978' });

  // The merge commit itself, pushed to main (the same repository; a push names commits in full).
  const push = payload('repo:push');
  push.repository = payload('pullrequest:fulfilled').repository;
  push.push.changes[0].commits[0].hash = '6ca0691239785a619fa1dce7bf1073f50499cd60';
  expect((await app.deliver({ event: 'repo:push', payload: push })).body.data.commits_added).toBe(1);
  expect(await PullRequest.findOne({ where: { repository_id: repositoryId } })).toMatchObject({ merge_commit_sha: '6ca0691239785a619fa1dce7bf1073f50499cd60' });
});

test('a merge named by 12 digits after its commit arrived is stored in full; a head whose 12 digits two stored commits share stays as Bitbucket named it', async () => {
  const app = await bitbucketApp();
  const fulfilled = payload('pullrequest:fulfilled');
  const head: string = fulfilled.pullrequest.source.commit.hash;
  const push = payload('repo:push');
  push.repository = fulfilled.repository;
  const commit = push.push.changes[0].commits[0];
  push.push.changes[0].commits = ['6ca0691239785a619fa1dce7bf1073f50499cd60', `${head}${'a'.repeat(28)}`, `${head}${'b'.repeat(28)}`].map((hash) => ({ ...copy(commit), hash }));
  expect((await app.deliver({ event: 'repo:push', payload: push })).body.data.commits_added).toBe(3);
  const merged = await app.deliver({ event: 'pullrequest:fulfilled', payload: fulfilled });
  expect(merged.body.data).toMatchObject({ pull_request: 'created' });
  expect(await PullRequest.findOne({ where: { repository_id: merged.body.data.repository_id } })).toMatchObject({ merge_commit_sha: '6ca0691239785a619fa1dce7bf1073f50499cd60', head_sha: head });
});

test('pullrequest:updated is pushed commits only when the head moves; an edit, or a first sight, is none', async () => {
  const app = await bitbucketApp();
  const first = payload('pullrequest:updated');
  const seen = await app.deliver({ event: 'pullrequest:updated', payload: first });
  expect(seen.body.data).toMatchObject({ pull_request: 'created', review: 'unchanged' });
  const pushed = copy(first);
  pushed.pullrequest.source.commit.hash = '0123456789ab';
  pushed.pullrequest.updated_on = '2026-07-30T02:00:00.000000+00:00';
  expect((await app.deliver({ event: 'pullrequest:updated', payload: pushed })).body.data).toMatchObject({ pull_request: 'updated', review: 'created' });
  const edited = copy(pushed);
  edited.pullrequest.title = 'A better title';
  edited.pullrequest.updated_on = '2026-07-30T03:00:00.000000+00:00';
  expect((await app.deliver({ event: 'pullrequest:updated', payload: edited })).body.data).toMatchObject({ pull_request: 'updated', review: 'unchanged' });
  const activity = await PullRequestActivity.findAll({ where: { repository_id: seen.body.data.repository_id } });
  expect(activity.map((a) => [a.kind, a.external_id, a.created_at.toISOString()])).toEqual([['commit', 'commit:0123456789ab', '2026-07-30T02:00:00.000Z']]);
});

test('a comment and a request for changes are review activity, each once', async () => {
  const app = await bitbucketApp();
  const comment = payload('pullrequest:comment_created');
  const commented = await app.deliver({ event: 'pullrequest:comment_created', payload: comment });
  expect(commented.body.data).toMatchObject({ pull_request: 'created', review: 'created' });
  expect((await app.deliver({ event: 'pullrequest:comment_created', payload: comment })).body.data.review).toBe('unchanged');
  const changes = await app.deliver({ event: 'pullrequest:changes_request_created', payload: payload('pullrequest:changes_request_created') });
  expect(changes.body.data).toMatchObject({ pull_request: 'created', review: 'created' });
  const kinds = async (repositoryId: string) => (await PullRequestActivity.findAll({ where: { repository_id: repositoryId } })).map((a) => [a.kind, a.external_id]);
  expect(await kinds(commented.body.data.repository_id)).toEqual([['comment', 'comment:311512047']]);
  // Bitbucket gives a request for changes no id: who and when name it.
  expect(await kinds(changes.body.data.repository_id)).toEqual([['changes_requested', expect.stringMatching(/^changes_requested:\{[0-9a-f-]{36}\}:2023-05-12T11:45:41\.426Z$/)]]);
});

test('repo:updated renames the repository Bitbucket names by its uuid', async () => {
  const app = await bitbucketApp();
  const renamed = payload('repo:updated');
  const push = linusPush();
  push.repository = { ...renamed.repository, name: renamed.changes.name.old, full_name: renamed.changes.full_name.old };
  const created = await app.deliver({ event: 'repo:push', payload: push });
  const res = await app.deliver({ event: 'repo:updated', payload: renamed });
  expect(res.body.data).toMatchObject({ result: 'applied', repository_id: created.body.data.repository_id, repository_created: false });
  expect((await v1(`/v1/git/apps/${app.id}/repositories`)).body.data).toEqual([expect.objectContaining({ id: created.body.data.repository_id, name: 'new-name', full_name: 'webhooktest/new-name' })]);
});

test('repo:deleted (a workspace webhook) hides the repository with what it holds, until its grace has passed (deletedRepositories.test.ts)', async () => {
  const app = await bitbucketApp();
  const created = await app.deliver({ event: 'repo:push', payload: linusPush() });
  // No capture of this event was found: Atlassian documents its body as the repository and the actor.
  const push = payload('repo:push');
  const res = await app.deliver({ event: 'repo:deleted', payload: { repository: push.repository, actor: push.actor } });
  expect(res.body.data).toMatchObject({ result: 'applied', repository_id: created.body.data.repository_id, repository_deleted: true });
  expect((await v1(`/v1/git/apps/${app.id}/repositories`)).body.data).toEqual([]);
  expect((await v1(`/v1/users/${DEMO.users.linus}/git/apps`)).body.data).toContainEqual(expect.objectContaining({ id: app.id }));
});

describe('one body, one event: a signed body resent under another X-Event-Key (unsigned) is refused and changes nothing', () => {
  const DELETION_REFUSED = "Not a repo:deleted payload: push: repo:deleted bodies carry no such field, and a deletion is read only from its own event's body: this is another event's body under the repo:deleted name";

  test("Bitbucket's own signed push (the Jenkins plugin's test vector) resent as repo:deleted with a fresh X-Request-UUID: 400, the repository and its commits stay", async () => {
    const app = await bitbucketApp();
    const body = fs.readFileSync(path.join(__dirname, '../support/peers/bitbucket/repoPushSigned.json'), 'utf8');
    await GitApp.update({ webhook_secret: new SecretBox(() => secretsKeyFor(t.config)).seal('Gkvl$k$wyNpQAF42') }, { where: { id: app.id } });
    const pushed = await deliverToBitbucket(t, app.id, 'Gkvl$k$wyNpQAF42', { event: 'repo:push', body });
    expect(pushed.body.data).toMatchObject({ repository_created: true, commits_added: 5 });
    const before = await ingestCounts();

    const relabelled = await deliverToBitbucket(t, app.id, 'Gkvl$k$wyNpQAF42', { event: 'repo:deleted', body, id: randomUUID() });
    expect(relabelled.status).toBe(400);
    expect(relabelled.body).toEqual({ status: 'error', error: { code: 'VALIDATION_ERROR', message: DELETION_REFUSED } });
    expect(await ingestCounts()).toEqual(before);
    expect((await v1(`/v1/git/apps/${app.id}/repositories`)).body.data).toEqual([expect.objectContaining({ id: pushed.body.data.repository_id })]);
    expect((await v1(`/v1/git/apps/${app.id}/repositories/${pushed.body.data.repository_id}/commits`)).body.meta.total).toBe(5);
  });

  test('every captured body of another event is refused as repo:deleted; a push as repo:updated, an approval as pullrequest:created, a comment as pullrequest:fulfilled', async () => {
    const app = await bitbucketApp();
    const created = await app.deliver({ event: 'repo:push', payload: linusPush() });
    const before = await ingestCounts();
    const cases: [event: string, payloadOf: string, field: string][] = [
      // The first field a deletion's body (the actor and the repository) does not have.
      ...Object.entries(BITBUCKET_PAYLOADS).map(([e, body]): [string, string, string] => ['repo:deleted', e, Object.keys(body).find((k) => k !== 'actor' && k !== 'repository')!]),
      ['repo:updated', 'repo:push', 'push'],
      ['pullrequest:created', 'pullrequest:approved', 'approval'],
      ['pullrequest:fulfilled', 'pullrequest:comment_created', 'comment'],
    ];
    for (const [event, payloadOf, field] of cases) {
      const p = payload(payloadOf);
      // Each body names the git app's repository, as a relabelled delivery of its own would.
      p.repository = linusPush().repository;
      const res = await app.deliver({ event, payload: p });
      expect({ event, payloadOf, status: res.status, message: res.body.error?.message }).toEqual({ event, payloadOf, status: 400, message: expect.stringMatching(new RegExp(`^Not an? ${event} payload: ${field}: `)) });
    }
    expect(await ingestCounts()).toEqual(before);
    expect((await v1(`/v1/git/apps/${app.id}/repositories`)).body.data).toEqual([expect.objectContaining({ id: created.body.data.repository_id })]);
  });
});

describe('refusals: a clear 4xx, nothing written', () => {
  /** Linus's push, and what each refusal changes of it. */
  const withDate = (date: string) => {
    const push = linusPush();
    push.push.changes[0].commits[0].date = date;
    return push;
  };
  test.each<[string, Partial<BitbucketDelivery>, number, string | RegExp]>([
    ['a wrong signature', { signature: 'sha256=' + '0'.repeat(64) }, 401, "X-Hub-Signature does not match the body: the webhook's secret differs from the git app's"],
    ['no signature', { signature: null }, 401, /^Missing X-Hub-Signature:/],
    ['a SHA-1 signature', { signature: 'sha1=' + '0'.repeat(40) }, 401, /^X-Hub-Signature does not match/],
    ['no request UUID', { headers: { 'X-Request-UUID': '' } }, 400, /^Missing X-Request-UUID header/],
    ['no event key', { event: '' }, 400, /^Missing X-Event-Key header/],
    ['a GitHub delivery', { headers: { 'X-GitHub-Event': 'push' } }, 400, /^This is a github delivery; send it to \/ingest\/github\//],
    ['malformed JSON', { body: '{"push":' }, 400, 'The body is not valid JSON'],
    ["a GitLab body under Bitbucket's headers", { payload: pushHook }, 400, 'Not a repo:push payload: repository.uuid: an id is a number or 1 to 100 characters'],
    ['an unparsable commit date', { payload: withDate('yesterday') }, 400, /^push\.changes\.0\.commits\.0\.date must be a time/],
    ['a body over INGEST_BODY_LIMIT_KB', { body: JSON.stringify({ push: { changes: [] }, padding: 'x'.repeat(70_000) }) }, 413, 'The body is larger than 65536 bytes (INGEST_BODY_LIMIT_KB)'],
  ])('%s', async (_name, change, status, message) => {
    const app = await bitbucketApp();
    const before = await ingestCounts();
    const res = await app.deliver({ event: 'repo:push', payload: linusPush(), ...change });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ status: 'error', error: { code: expect.any(String), message: typeof message === 'string' ? message : expect.stringMatching(message) } });
    expect(await ingestCounts()).toEqual(before);
  });

  test('a GitLab app on the Bitbucket URL, and a Bitbucket delivery on the GitLab URL, are 400', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'gitlab', 'GitLab');
    const wrongApp = await deliverToBitbucket(t, gitApp.id, secret, { event: 'repo:push', payload: linusPush() });
    expect([wrongApp.status, wrongApp.body.error.message]).toEqual([400, `Git app ${gitApp.id} is a gitlab app; this URL takes Bitbucket deliveries`]);
    const wrongUrl = await deliverToGitlab(t, gitApp.id, secret, { event: 'Push Hook', payload: pushHook, headers: { 'X-Event-Key': 'repo:push' } });
    expect([wrongUrl.status, wrongUrl.body.error.message]).toEqual([400, `This is a bitbucket delivery; send it to /ingest/bitbucket/${gitApp.id}`]);
  });

  test('an approval withdrawn and events not stored are acknowledged with 202', async () => {
    const app = await bitbucketApp();
    const unapproved = await app.deliver({ event: 'pullrequest:unapproved', payload: payload('pullrequest:unapproved') });
    expect([unapproved.status, unapproved.body.data.reason]).toEqual([202, 'an approval withdrawn is no review activity; the approval stays as given']);
    const fork = await app.deliver({ event: 'repo:fork', payload: {} });
    expect([fork.status, fork.body.data]).toEqual([202, { delivery_id: expect.any(String), event: 'repo:fork', result: 'ignored', reason: "event 'repo:fork' is not stored by this service" }]);
  });
});
