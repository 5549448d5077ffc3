import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, deliverToGitlab, eventsAfter, GitlabDelivery, ingestCounts, lastEventSeq } from '../support/peers/ingest';
import { deploymentHook, GITLAB_EVENT_HEADERS, issueHook, mergeRequestHook, noteHook, pushHook } from '../support/peers/gitlabPayloads';

/**
 * `POST /ingest/gitlab/{git_app_id}` (docs/ingest.md) with GitLab's documented payloads and delivery headers
 * (test/support/peers/gitlabPayloads.ts), and what `/v1` shows afterwards.
 */

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
  token = await t.token();
});
afterAll(async () => t.close());

async function gitlabApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'gitlab', `GitLab ${randomUUID().slice(0, 8)}`);
  return { id: gitApp.id, secret, deliver: (d: GitlabDelivery) => deliverToGitlab(t, gitApp.id, secret, d) };
}
const v1 = (path: string, as = token) => t.get(path, as);

/** The documented issue, made an incident the two ways GitLab users do: the `incident` label, or the Incident type. */
function incidentIssue(how: 'label' | 'type') {
  const payload = copy(issueHook);
  if (how === 'label') payload.labels = [...payload.labels, { ...payload.labels[0], id: 207, title: 'incident' }];
  else payload.object_attributes.type = 'Incident';
  payload.object_attributes.description = 'Exports fail since the deploy. root cause: da1560886d4f094c3e6c9ef40349f7d38b5d27d7';
  return payload;
}

test('a Push Hook stores its commits under the project, matching authors by e-mail; a redelivery adds nothing', async () => {
  const app = await gitlabApp();
  const payload = copy(pushHook);
  payload.commits[1].author.email = 'linus@demo.test';
  const id = randomUUID();
  const res = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload, id });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ delivery_id: id, event: 'Push Hook', result: 'applied', repository_created: true, commits_added: 2 });

  const repos = await v1(`/v1/git/apps/${app.id}/repositories`);
  expect(repos.body.data).toEqual([
    expect.objectContaining({ name: 'Diaspora', full_name: 'mike/diaspora', default_branch: 'master', is_private: true }),
  ]);
  const commits = await v1(`/v1/git/apps/${app.id}/repositories/${repos.body.data[0].id}/commits?sort=created_at&order=asc`);
  expect(commits.body.meta.total).toBe(2);
  expect(commits.body.data.map((c: Record<string, unknown>) => [c.sha, c.author_id, c.created_at])).toEqual([
    ['b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327', null, '2011-12-12T12:27:31.000Z'],
    ['da1560886d4f094c3e6c9ef40349f7d38b5d27d7', DEMO.users.linus, '2012-01-03T21:36:29.000Z'],
  ]);

  const before = await ingestCounts();
  const again = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload, id });
  expect(again.body.data.result).toBe('duplicate');
  // Another delivery of the same push (a new event UUID) meets the commits already stored.
  const other = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload });
  expect(other.body.data.commits_added).toBe(0);
  expect({ ...(await ingestCounts()), IngestDelivery: 0 }).toEqual({ ...before, IngestDelivery: 0 });
});

test('Idempotency-Key (GitLab 17.4+), kept across retries and resends, deduplicates before X-Gitlab-Event-UUID', async () => {
  const app = await gitlabApp();
  const key = randomUUID();
  const first = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload: pushHook, headers: { 'Idempotency-Key': key } });
  const resend = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload: pushHook, headers: { 'Idempotency-Key': key } });
  expect([first.body.data.result, resend.body.data.result]).toEqual(['applied', 'duplicate']);
});

test('Merge Request Hook: opened, then merged; the merge delivered first still ends merged', async () => {
  const app = await gitlabApp();
  const merged = copy(mergeRequestHook);
  merged.object_attributes.state = 'merged';
  merged.object_attributes.action = 'merge';
  merged.object_attributes.updated_at = '2013-12-04T09:00:00Z';
  const seq = await lastEventSeq();
  expect((await app.deliver({ event: GITLAB_EVENT_HEADERS.mergeRequest, payload: merged })).body.data.pull_request).toBe('created');
  expect((await app.deliver({ event: GITLAB_EVENT_HEADERS.mergeRequest, payload: mergeRequestHook })).body.data.pull_request).toBe('stale');
  const prs = await v1(`/v1/git/apps/${app.id}/repositories/all/pull-requests`);
  expect(prs.body.data).toEqual([
    expect.objectContaining({
      number: 1,
      title: 'MS-Viewport',
      state: 'merged',
      created_at: '2013-12-03T17:23:34.000Z',
      merged_at: '2013-12-04T09:00:00.000Z',
      closed_at: '2013-12-04T09:00:00.000Z',
    }),
  ]);
  expect((await eventsAfter(seq)).map((e) => e.type)).toEqual(['repository.created', 'pull_request.opened', 'pull_request.merged']);
});

test('the documented MR, in order, is open and authored by the acting user when bound to the git app', async () => {
  const app = await gitlabApp();
  // Acme's Linus is `root` on this GitLab.
  const { UserGitApp } = await import('../../db/models');
  await UserGitApp.create({ user_id: DEMO.users.linus, git_app_id: app.id, username: 'root', created_at: new Date() });
  await app.deliver({ event: GITLAB_EVENT_HEADERS.mergeRequest, payload: mergeRequestHook });
  const [pr] = (await v1(`/v1/git/apps/${app.id}/repositories/all/pull-requests`)).body.data;
  expect(pr).toMatchObject({ state: 'open', author_id: DEMO.users.linus, merged_at: null, closed_at: null });
  // GitLab's hook counts no lines; its description carries no AI tool's mark.
  expect(pr).toMatchObject({ additions: null, deletions: null, ai_assisted: false });
});

test("an MR whose description ends with Claude Code's footer is AI-assisted", async () => {
  const app = await gitlabApp();
  const marked = copy(mergeRequestHook);
  marked.object_attributes.description = `${marked.object_attributes.description}\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)`;
  await app.deliver({ event: GITLAB_EVENT_HEADERS.mergeRequest, payload: marked });
  const [pr] = (await v1(`/v1/git/apps/${app.id}/repositories/all/pull-requests`)).body.data;
  expect(pr).toMatchObject({ number: mergeRequestHook.object_attributes.iid, ai_assisted: true });
});

test('Deployment Hook: success is a deployment at the full sha, timed by status_changed_at; running is not', async () => {
  const app = await gitlabApp();
  const running = copy(deploymentHook);
  running.status = 'running';
  expect((await app.deliver({ event: GITLAB_EVENT_HEADERS.deployment, payload: running })).status).toBe(202);
  const ok = await app.deliver({ event: GITLAB_EVENT_HEADERS.deployment, payload: deploymentHook });
  expect(ok.body.data.deployment).toBe('created');
  const failed = copy(deploymentHook);
  failed.deployment_id = 16;
  failed.status = 'failed';
  await app.deliver({ event: GITLAB_EVENT_HEADERS.deployment, payload: failed });
  const list = await v1(`/v1/git/apps/${app.id}/repositories/all/deployments`);
  expect(list.body.meta.total).toBe(2);
  expect(list.body.data.find((d: { status: string }) => d.status === 'success')).toEqual({
    id: expect.stringMatching(/^dep_/),
    repository_id: expect.stringMatching(/^repo_/),
    app_id: null,
    service: null,
    environment: 'staging',
    status: 'success',
    sha: '279484c09fbe69ededfced8c1bb6e6d24616b468',
    created_at: '2021-04-28T19:50:00.000Z',
    finished_at: '2021-04-28T19:50:00.000Z',
  });
});

test.each(['label', 'type'] as const)('Issue Hook: an incident by %s is opened, then resolved when closed', async (how) => {
  const app = await gitlabApp();
  const opened = incidentIssue(how);
  expect((await app.deliver({ event: GITLAB_EVENT_HEADERS.issue, payload: opened })).body.data.incident).toBe('created');
  const closed = copy(opened);
  closed.object_attributes.state = 'closed';
  closed.object_attributes.action = 'close';
  closed.object_attributes.updated_at = '2013-12-03T19:00:00Z';
  await app.deliver({ event: GITLAB_EVENT_HEADERS.issue, payload: closed });
  const [incident] = (await v1(`/v1/git/apps/${app.id}/repositories/all/incidents`)).body.data;
  expect(incident).toMatchObject({
    title: 'New API: create/update/delete file',
    cause_sha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    created_at: '2013-12-03T17:15:43.000Z',
    resolved_at: '2013-12-03T19:00:00.000Z',
  });
});

test('the documented issue (labelled API) is no incident: a task of its project (test/ingest/gitlabIssues.test.ts)', async () => {
  const app = await gitlabApp();
  const res = await app.deliver({ event: GITLAB_EVENT_HEADERS.issue, payload: issueHook });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ result: 'applied', tasks: [{ external_id: String(issueHook.object_attributes.id), result: 'created' }] });
  expect(res.body.data.incident).toBeUndefined();
});

describe('refusals: a clear 4xx, nothing written', () => {
  test.each([
    ['a wrong token', { token: 'not-the-secret' }, 401, "X-Gitlab-Token does not match the git app's webhook secret"],
    ['no token', { token: null }, 401, /^Missing X-Gitlab-Token/],
    ['no event UUID', { headers: { 'X-Gitlab-Event-UUID': '' } }, 400, /^Missing X-Gitlab-Event-UUID header/],
    ['a body of another kind than the header says', { event: 'Merge Request Hook' }, 400, "A Merge Request Hook carries object_kind 'merge_request'; this body has \"push\""],
    ['a GitHub delivery', { headers: { 'X-GitHub-Event': 'push' } }, 400, /^This is a github delivery; send it to \/ingest\/github\//],
    ['malformed JSON', { body: '{"object_kind":' }, 400, 'The body is not valid JSON'],
    ['form-encoded', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }, 400, /^Send the body as application\/json/],
    ['an unparsable timestamp', { payload: { ...pushHook, commits: [{ ...pushHook.commits[0], timestamp: 'yesterday' }] } }, 400, /^commits\.0\.timestamp must be a time/],
  ] as const)('%s', async (_name, change, status, message) => {
    const app = await gitlabApp();
    const before = await ingestCounts();
    const res = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload: pushHook, ...(change as Partial<GitlabDelivery>) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ status: 'error', error: { code: expect.any(String), message: typeof message === 'string' ? message : expect.stringMatching(message) } });
    expect(await ingestCounts()).toEqual(before);
  });

  test('one body, one event: each documented body under every other hook header is refused by its object_kind; the project stays as it was', async () => {
    const app = await gitlabApp();
    const pushed = await app.deliver({ event: GITLAB_EVENT_HEADERS.push, payload: pushHook });
    expect(pushed.body.data).toMatchObject({ repository_created: true, commits_added: 2 });
    const before = await ingestCounts();
    const bodies = { [GITLAB_EVENT_HEADERS.push]: pushHook, [GITLAB_EVENT_HEADERS.mergeRequest]: mergeRequestHook, [GITLAB_EVENT_HEADERS.deployment]: deploymentHook, [GITLAB_EVENT_HEADERS.issue]: issueHook, [GITLAB_EVENT_HEADERS.note]: noteHook };
    for (const [header, kind] of [[GITLAB_EVENT_HEADERS.push, 'push'], [GITLAB_EVENT_HEADERS.mergeRequest, 'merge_request'], [GITLAB_EVENT_HEADERS.deployment, 'deployment'], [GITLAB_EVENT_HEADERS.issue, 'issue'], [GITLAB_EVENT_HEADERS.note, 'note']]) {
      for (const [of, payload] of Object.entries(bodies).filter(([of]) => of !== header)) {
        const res = await app.deliver({ event: header, payload });
        expect({ header, of, status: res.status, message: res.body.error?.message }).toEqual({ header, of, status: 400, message: `A ${header} carries object_kind '${kind}'; this body has "${payload.object_kind}"` });
      }
    }
    expect(await ingestCounts()).toEqual(before);
    expect((await v1(`/v1/git/apps/${app.id}/repositories/${pushed.body.data.repository_id}/commits`)).body.meta.total).toBe(2);
  });

  test('a GitHub app on the GitLab URL is 400', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'GitHub');
    const res = await deliverToGitlab(t, gitApp.id, secret, { event: GITLAB_EVENT_HEADERS.push, payload: pushHook });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/is a github app; this URL takes GitLab deliveries/);
  });

  test('other hooks are acknowledged with 202', async () => {
    const app = await gitlabApp();
    const res = await app.deliver({ event: 'Pipeline Hook', payload: { object_kind: 'pipeline' } });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ result: 'ignored', reason: "event 'Pipeline Hook' is not stored by this service" });
  });
});
