import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { GitApp } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, deliverToGithub, eventsAfter, githubExamples, GithubDelivery, ingestCounts, lastEventSeq } from '../support/peers/ingest';

/**
 * `POST /ingest/github/{git_app_id}` (docs/ingest.md) with GitHub's own example payloads (@octokit/webhooks-examples),
 * signed by GitHub's own helper (@octokit/webhooks-methods), and what `/v1` shows afterwards.
 */

const HANDLED = ['ping', 'push', 'pull_request', 'pull_request_review', 'pull_request_review_comment', 'issue_comment', 'repository', 'deployment_status', 'issues'];

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000', INGEST_BODY_LIMIT_KB: '512' });
  token = await t.token();
});
afterAll(async () => t.close());

/** A fresh GitHub git app of Acme, so each test starts with no repositories. */
async function githubApp(organizationId: string = DEMO.orgs.acme) {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(organizationId, 'github', `GitHub ${randomUUID().slice(0, 8)}`);
  const deliver = (d: GithubDelivery) => deliverToGithub(t, gitApp.id, secret, d);
  return { id: gitApp.id, secret, deliver };
}

const v1 = (path: string, as = token) => t.get(path, as);

describe('GitHub example payloads', () => {
  test('every example of every handled event is accepted, and each redelivery changes nothing', async () => {
    const app = await githubApp();
    const seen: Record<string, number> = {};
    for (const event of HANDLED) {
      for (const payload of githubExamples(event)) {
        const id = randomUUID();
        const first = await app.deliver({ event, payload, id });
        // Labelled, so a failure names the example.
        expect({ event, action: payload.action, accepted: [200, 202].includes(first.status) }).toEqual({ event, action: payload.action, accepted: true });
        expect(first.body).toMatchObject({ status: 'success', data: { delivery_id: id, event } });
        seen[first.body.data.result] = (seen[first.body.data.result] ?? 0) + 1;

        const before = await ingestCounts();
        const again = await app.deliver({ event, payload, id });
        expect([200, 202]).toContain(again.status);
        if (first.status === 200 && first.body.data.result !== 'pong') expect(again.body.data.result).toBe('duplicate');
        expect(await ingestCounts()).toEqual(before);
      }
    }
    // Every push (7), pull request (29), submitted review (3), created review comment (3), repository (13),
    // finished deployment (3) and issue but the pinned and unpinned ones (27, none labelled 'incident': tasks) was
    // stored; those 2 issues (their issue is partial), the in_progress deployment status, the dismissed review, the
    // edited and deleted review comments and the issue comments (9, all on issues) were acknowledged and ignored.
    expect(seen).toEqual({ pong: 4, applied: 7 + 29 + 3 + 3 + 13 + 3 + 27, ignored: 2 + 1 + 1 + 2 + 9 });
  });

  test('a push with a commit shows in /v1 at once, with its author matched by e-mail to a member', async () => {
    const app = await githubApp();
    const payload = copy(githubExamples('push').find((p) => p.commits.length === 1)!);
    payload.commits[0].author.email = 'Ada@Demo.test'; // GitHub keeps the case the author configured
    const res = await app.deliver({ event: 'push', payload });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ result: 'applied', repository_created: true, commits_added: 1 });

    const repos = await v1(`/v1/git/apps/${app.id}/repositories`);
    expect(repos.body.meta.total).toBe(1);
    expect(repos.body.data[0]).toMatchObject({ name: 'Hello-World', full_name: 'Codertocat/Hello-World', default_branch: 'master', is_private: false });
    const repoId = repos.body.data[0].id;
    const commits = await v1(`/v1/git/apps/${app.id}/repositories/${repoId}/commits`);
    expect(commits.body.meta.total).toBe(1);
    expect(commits.body.data[0]).toEqual({
      id: expect.stringMatching(/^cmt_/),
      repository_id: repoId,
      sha: payload.commits[0].id,
      message: payload.commits[0].message,
      author_id: DEMO.users.ada,
      author_name: payload.commits[0].author.name,
      additions: 0,
      deletions: 0,
      ai_assisted: false,
      created_at: new Date(payload.commits[0].timestamp).toISOString(),
    });
    const all = await v1(`/v1/commits?created_at[eq]=${payload.commits[0].timestamp.slice(0, 10)}`);
    expect(all.body.data.map((c: { sha: string }) => c.sha)).toContain(payload.commits[0].id);
  });

  test('the change and its events commit together: repository.created, then commit.created listing the commits', async () => {
    const app = await githubApp();
    const seq = await lastEventSeq();
    const payload = githubExamples('push').find((p) => p.commits.length === 1)!;
    await app.deliver({ event: 'push', payload });
    const events = await eventsAfter(seq);
    expect(events.map((e) => e.type)).toEqual(['repository.created', 'commit.created']);
    expect(events[1].data).toMatchObject({ repository: { full_name: 'Codertocat/Hello-World' }, commits: [{ sha: payload.commits[0].id }] });
  });

  test('pull requests: opened, then closed; a closed delivered before its opened still ends closed', async () => {
    const app = await githubApp();
    const opened = githubExamples('pull_request').find((p) => p.action === 'opened')!;
    const closed = githubExamples('pull_request').find((p) => p.action === 'closed')!;
    const seq = await lastEventSeq();
    expect((await app.deliver({ event: 'pull_request', payload: closed })).body.data.pull_request).toBe('created');
    expect((await app.deliver({ event: 'pull_request', payload: opened })).body.data.pull_request).toBe('stale');
    const repo = (await v1(`/v1/git/apps/${app.id}/repositories`)).body.data[0].id;
    const prs = await v1(`/v1/git/apps/${app.id}/repositories/${repo}/pull-requests`);
    expect(prs.body.meta.total).toBe(1);
    expect(prs.body.data[0]).toMatchObject({
      number: closed.pull_request.number,
      title: closed.pull_request.title,
      state: 'closed',
      closed_at: new Date(closed.pull_request.closed_at).toISOString(),
      merged_at: null,
    });
    expect((await eventsAfter(seq)).map((e) => e.type)).toEqual(['repository.created', 'pull_request.opened', 'pull_request.closed']);

    // In order on another app: opened, then closed (merged this time), then reopened.
    const other = await githubApp();
    const merged = copy(closed);
    merged.pull_request.merged = true;
    merged.pull_request.merged_at = closed.pull_request.closed_at;
    // GitHub's reopened example is older than its closed one; a real reopening comes later.
    const reopened = copy(githubExamples('pull_request').find((p) => p.action === 'reopened')!);
    reopened.pull_request.updated_at = '2019-05-15T15:30:00Z';
    const states: string[] = [];
    for (const payload of [opened, merged, reopened]) {
      await other.deliver({ event: 'pull_request', payload });
      const r = (await v1(`/v1/git/apps/${other.id}/repositories/all/pull-requests`)).body.data[0];
      states.push(r.state);
    }
    expect(states).toEqual(['open', 'merged', 'open']);
    const [pr] = (await v1(`/v1/git/apps/${other.id}/repositories/all/pull-requests`)).body.data;
    expect(pr).toMatchObject({ merged_at: null, closed_at: null });
  });

  test("AI tools' marks: a commit with Claude Code's trailer and footer, a pull request whose description has the footer; its size as GitHub counts it", async () => {
    const app = await githubApp();
    const push = copy(githubExamples('push').find((p) => p.commits.length === 1)!);
    // Claude Code ends the commits it writes so; the footer lies past the 500 characters the message column keeps.
    push.commits[0].message = `Add a health check\n\n${'Explains why. '.repeat(40)}\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\nCo-Authored-By: Claude <noreply@anthropic.com>`;
    await app.deliver({ event: 'push', payload: push });
    const [commit] = (await v1(`/v1/git/apps/${app.id}/repositories/all/commits`)).body.data;
    expect(commit).toMatchObject({ sha: push.commits[0].id, ai_assisted: true });
    expect(commit.message.length).toBeLessThanOrEqual(500);

    const opened = copy(githubExamples('pull_request').find((p) => p.action === 'opened')!);
    expect({ additions: opened.pull_request.additions, deletions: opened.pull_request.deletions }).toEqual({ additions: expect.any(Number), deletions: expect.any(Number) });
    await app.deliver({ event: 'pull_request', payload: opened });
    const pr = () => v1(`/v1/git/apps/${app.id}/repositories/all/pull-requests`).then((r) => r.body.data[0]);
    expect(await pr()).toMatchObject({ number: opened.pull_request.number, additions: opened.pull_request.additions, deletions: opened.pull_request.deletions, ai_assisted: false });
    // New commits pushed (GitHub's synchronize example, on this pull request), and the description edited meanwhile.
    const edited = copy(githubExamples('pull_request').find((p) => p.action === 'synchronize')!);
    edited.pull_request.number = opened.pull_request.number;
    edited.pull_request.updated_at = '2030-01-01T00:00:00Z';
    edited.pull_request.body = 'Adds a health check.\n\n🤖 Generated with [Claude Code](https://claude.ai/code)';
    await app.deliver({ event: 'pull_request', payload: edited });
    expect(await pr()).toMatchObject({ ai_assisted: true, additions: edited.pull_request.additions, deletions: edited.pull_request.deletions });
  });

  test('deployment statuses: success and failure are deployments; pending and in_progress are not', async () => {
    const app = await githubApp();
    const [success, inProgress] = githubExamples('deployment_status');
    expect((await app.deliver({ event: 'deployment_status', payload: inProgress })).status).toBe(202);
    const ok = await app.deliver({ event: 'deployment_status', payload: success });
    expect(ok.body.data.deployment).toBe('created');
    const failure = copy(success);
    failure.deployment.id += 1;
    failure.deployment_status.state = 'error';
    expect((await app.deliver({ event: 'deployment_status', payload: failure })).body.data.deployment).toBe('created');

    const list = await v1(`/v1/git/apps/${app.id}/repositories/all/deployments?sort=created_at&order=asc`);
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.map((d: { status: string }) => d.status).sort()).toEqual(['failure', 'success']);
    expect(list.body.data[0]).toMatchObject({
      environment: success.deployment.environment,
      sha: success.deployment.sha,
      created_at: new Date(success.deployment.created_at).toISOString(),
    });
  });

  test("issues labelled 'incident': opened makes an incident naming its root cause, closed resolves it", async () => {
    const app = await githubApp();
    const opened = copy(githubExamples('issues').find((p) => p.action === 'opened')!);
    opened.issue.labels = [...opened.issue.labels, { ...opened.issue.labels[0], id: 1, name: 'Incident' }];
    opened.issue.body = 'Checkout is down.\n\nroot cause: F95F852BD8FCA8FCC58A9A2D6C842781E32A215E';
    const seq = await lastEventSeq();
    expect((await app.deliver({ event: 'issues', payload: opened })).body.data.incident).toBe('created');
    const closed = copy(opened);
    closed.action = 'closed';
    closed.issue.state = 'closed';
    closed.issue.closed_at = '2019-05-15T16:00:00Z';
    closed.issue.updated_at = '2019-05-15T16:00:00Z';
    expect((await app.deliver({ event: 'issues', payload: closed })).body.data.incident).toBe('updated');

    const list = await v1(`/v1/git/apps/${app.id}/repositories/all/incidents`);
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0]).toEqual({
      id: expect.stringMatching(/^inc_/),
      repository_id: expect.stringMatching(/^repo_/),
      app_id: null,
      service: null,
      title: opened.issue.title,
      cause_sha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
      fix_sha: null,
      created_at: new Date(opened.issue.created_at).toISOString(),
      resolved_at: '2019-05-15T16:00:00.000Z',
    });
    expect((await eventsAfter(seq)).map((e) => e.type)).toEqual(['repository.created', 'incident.opened', 'incident.resolved']);
  });

  test('repository events: a rename keeps one repository; a deletion hides it, with its commits, until its grace has passed (deletedRepositories.test.ts)', async () => {
    const app = await githubApp();
    const [created] = githubExamples('repository').filter((p) => p.action === 'created');
    const renamed = githubExamples('repository').find((p) => p.action === 'renamed')!;
    await app.deliver({ event: 'repository', payload: created });
    const moved = copy(renamed);
    moved.repository.name = 'Hello-Octo';
    moved.repository.full_name = 'Octocoders/Hello-Octo';
    await app.deliver({ event: 'repository', payload: moved });
    const repos = await v1(`/v1/git/apps/${app.id}/repositories`);
    expect(repos.body.data.map((r: { full_name: string }) => r.full_name)).toEqual(['Octocoders/Hello-Octo']);

    const deleted = copy(moved);
    deleted.action = 'deleted';
    const res = await app.deliver({ event: 'repository', payload: deleted });
    expect(res.body.data).toMatchObject({ result: 'applied', repository_deleted: true });
    expect((await v1(`/v1/git/apps/${app.id}/repositories`)).body.meta.total).toBe(0);
  });

  test('other events are acknowledged with 202 and stored nowhere, their bodies unread', async () => {
    const app = await githubApp();
    const before = await ingestCounts();
    const unparsed = await app.deliver({ event: 'workflow_job', payload: null, body: '{not json' });
    expect(unparsed.status).toBe(202);
    for (const event of ['star', 'check_run', 'workflow_run']) {
      const payload = githubExamples(event)[0];
      const res = await app.deliver({ event, payload });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ result: 'ignored', reason: `event '${event}' is not stored by this service` });
    }
    expect(await ingestCounts()).toEqual(before);
  });

  test('members of the organization only: Globex sees neither the git app nor its activity', async () => {
    const app = await githubApp();
    await app.deliver({ event: 'push', payload: githubExamples('push').find((p) => p.commits.length === 1)! });
    const outsider = await t.token({ user: 'outsider@demo.test' });
    expect((await v1(`/v1/git/apps/${app.id}/repositories/all/commits`, outsider)).status).toBe(403);
    expect((await v1(`/v1/git/apps/${app.id}/repositories/all/deployments`, outsider)).status).toBe(403);
    const repo = (await v1(`/v1/git/apps/${app.id}/repositories`)).body.data[0].id;
    expect((await v1(`/v1/commits?created_at[eq]=2019-05-15`)).body.data.map((c: { repository_id: string }) => c.repository_id)).toContain(repo);
    expect((await v1('/v1/commits?created_at[eq]=2019-05-15', outsider)).body).toMatchObject({ data: [], meta: { total: 0 } });
  });
});

describe('one body, one event: a signed body resent under another X-GitHub-Event (unsigned) is refused and changes nothing', () => {
  const example = (event: string, action?: string) => copy(githubExamples(event).find((p) => p.action === action && (event !== 'push' || p.commits.length === 1))!);
  const DELETION_REFUSED = "bodies carry no such field, and a deletion is read only from its own event's body: this is another event's body under the";

  test("a deleted comment's body sent as a repository deletion, an issue deletion or a push; a star's and a push's as a repository event: 400 naming the field", async () => {
    const app = await githubApp();
    // The repository of GitHub's examples, with a commit, and its issue #1 as a task.
    const pushed = await app.deliver({ event: 'push', payload: example('push') });
    expect(pushed.body.data).toMatchObject({ repository_created: true, commits_added: 1 });
    expect((await app.deliver({ event: 'issues', payload: example('issues', 'opened') })).body.data.tasks).toBeDefined();
    const before = await ingestCounts();

    const comment = example('issue_comment', 'deleted');
    const cases: [event: string, payload: unknown, message: string | RegExp][] = [
      ['repository', comment, `Not a repository payload: issue: repository ${DELETION_REFUSED} repository name`],
      ['repository', example('star', 'deleted'), `Not a repository payload: starred_at: repository ${DELETION_REFUSED} repository name`],
      ['issues', comment, "Not an issues payload: comment: a field of another event's body, never of issues bodies: this is another event's body under the issues name"],
      ['push', comment, "Not a push payload: action: a field of another event's body, never of push bodies: this is another event's body under the push name"],
      ['repository', example('push'), /^Not a repository payload: action: /],
    ];
    for (const [event, payload, message] of cases) {
      const res = await app.deliver({ event, payload });
      expect({ event, status: res.status, body: res.body }).toEqual({ event, status: 400, body: { status: 'error', error: { code: 'VALIDATION_ERROR', message: typeof message === 'string' ? message : expect.stringMatching(message) } } });
    }
    expect(await ingestCounts()).toEqual(before);
    const repos = (await v1(`/v1/git/apps/${app.id}/repositories`)).body;
    expect(repos).toMatchObject({ data: [{ id: pushed.body.data.repository_id }], meta: { total: 1 } });
    expect((await v1(`/v1/git/apps/${app.id}/repositories/${pushed.body.data.repository_id}/commits`)).body.meta.total).toBe(1);
  });

  test('no example of any other GitHub event with action "deleted" is taken as a repository deletion, nor as an issue deletion', async () => {
    const app = await githubApp();
    await app.deliver({ event: 'push', payload: example('push') });
    const before = await ingestCounts();
    const others = (require('@octokit/webhooks-examples') as { name: string; examples: Record<string, any>[] }[]).filter((e) => e.name !== 'repository' && e.name !== 'issues');
    const deletions = others.flatMap((e) => e.examples.filter((p) => p.action === 'deleted').map((payload) => ({ name: e.name, payload })));
    // branch_protection_rule, discussion_comment, installation, issue_comment, label, meta, milestone, project_card, pull_request_review_comment, release, star, team.
    expect(new Set(deletions.map((d) => d.name)).size).toBe(12);
    for (const { name, payload } of deletions) {
      for (const event of ['repository', 'issues']) {
        const res = await app.deliver({ event, payload });
        expect({ name, event, status: res.status, message: res.body.error?.message }).toEqual({ name, event, status: 400, message: expect.stringMatching(new RegExp(`^Not an? ${event} payload: `)) });
      }
    }
    expect(await ingestCounts()).toEqual(before);
  });
});

describe('refusals: a clear 4xx, nothing written', () => {
  const pushPayload = () => githubExamples('push').find((p) => p.commits.length === 1)!;

  test.each([
    ['a wrong signature', { signature: 'sha256=' + '0'.repeat(64) }, 401, /does not match the body/],
    ['no signature', { signature: null }, 401, /Missing X-Hub-Signature-256/],
    ['a SHA-1 signature', { signature: 'sha1=' + '0'.repeat(40) }, 401, /does not match/],
    ['no delivery id', { headers: { 'X-GitHub-Delivery': '' } }, 400, /Missing X-GitHub-Delivery/],
    ['a malformed delivery id', { id: 'a b c' }, 400, /X-GitHub-Delivery must be/],
    ['a GitLab delivery', { headers: { 'X-Gitlab-Event': 'Push Hook' } }, 400, /This is a gitlab delivery; send it to \/ingest\/gitlab\//],
  ] as const)('%s', async (_name, change, status, message) => {
    const app = await githubApp();
    const before = await ingestCounts();
    const res = await app.deliver({ event: 'push', payload: pushPayload(), ...(change as Partial<GithubDelivery>) });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ status: 'error', error: { code: expect.any(String), message: expect.stringMatching(message) } });
    expect(await ingestCounts()).toEqual(before);
  });

  test('malformed JSON, signed correctly', async () => {
    const app = await githubApp();
    const before = await ingestCounts();
    const res = await app.deliver({ event: 'push', payload: null, body: '{"ref": "refs/heads/main", ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'The body is not valid JSON' });
    expect(await ingestCounts()).toEqual(before);
  });

  test('a payload that is not what the event says names the field', async () => {
    const app = await githubApp();
    const broken = copy(pushPayload());
    broken.commits[0].id = 'not-a-sha';
    const res = await app.deliver({ event: 'push', payload: broken });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Not a push payload: commits.0.id: a commit id is 40 hex digits');
    const noRepo = await app.deliver({ event: 'pull_request', payload: { action: 'opened' } });
    expect(noRepo.body.error.message).toMatch(/^Not a pull_request payload: repository: /);
    // A number past the INT column is the client's mistake, not a database error.
    const huge = copy(githubExamples('pull_request').find((p) => p.action === 'opened')!);
    huge.pull_request.number = 2 ** 31;
    const res2 = await app.deliver({ event: 'pull_request', payload: huge });
    expect(res2.status).toBe(400);
    expect(res2.body.error.message).toMatch(/^Not a pull_request payload: pull_request\.number: /);
  });

  test('an unknown git app is 404; a GitLab app on the GitHub URL is 400; an app without a secret is 401', async () => {
    const unknown = await deliverToGithub(t, 'gapp_nope', 'x', { event: 'ping', payload: { zen: 'hi' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/^Git app not found: "gapp_nope"/);
    const { gitApp } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'gitlab', 'GitLab acme');
    const wrong = await deliverToGithub(t, gitApp.id, 'x', { event: 'ping', payload: { zen: 'hi' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/is a gitlab app; this URL takes GitHub deliveries/);
    const demoApp = await deliverToGithub(t, DEMO.gitApps.acmeGithub, 'x', { event: 'ping', payload: { zen: 'hi' } });
    expect(demoApp.status).toBe(401);
    expect(demoApp.body.error.message).toMatch(/has no webhook secret yet: make one with npm run gitapps -- rotate-secret/);
  });

  test('an inactive git app is 403 once the delivery is authenticated', async () => {
    const app = await githubApp();
    await GitApp.update({ is_active: false }, { where: { id: app.id } });
    const res = await app.deliver({ event: 'ping', payload: githubExamples('ping')[0] });
    expect(res.status).toBe(403);
  });

  test('a body over INGEST_BODY_LIMIT_KB is 413; an unknown path is 404; GET is 404', async () => {
    const app = await githubApp();
    const big = copy(pushPayload());
    big.commits[0].message = 'x'.repeat(600 * 1024);
    const res = await app.deliver({ event: 'push', payload: big });
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than 524288 bytes (INGEST_BODY_LIMIT_KB)' });
    expect((await request(t.runtime.app).post('/ingest/bitbucket/x').send('{}')).status).toBe(404);
    expect((await request(t.runtime.app).get(`/ingest/github/${app.id}`)).status).toBe(404);
  });

  test('a form-encoded delivery (the webhook\'s other content type) is read from its payload field', async () => {
    const app = await githubApp();
    const payload = pushPayload();
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const res = await app.deliver({ event: 'push', payload, body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(200);
    expect(res.body.data.commits_added).toBe(1);
  });

  test('after a secret rotation the previous secret is still accepted for a while; an unknown one is not', async () => {
    const app = await githubApp();
    const { secret } = await t.runtime.writers.gitApps.rotateSecret(app.id);
    expect(secret).not.toBe(app.secret);
    expect((await app.deliver({ event: 'ping', payload: githubExamples('ping')[0] })).status).toBe(200);
    expect((await deliverToGithub(t, app.id, secret, { event: 'ping', payload: githubExamples('ping')[0] })).status).toBe(200);
    expect((await deliverToGithub(t, app.id, 'guess', { event: 'ping', payload: githubExamples('ping')[0] })).status).toBe(401);
  });
});

describe('limits', () => {
  test('per git app: the 4th delivery in a minute over a limit of 3 is 429 with Retry-After', async () => {
    const limited = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const { gitApp, secret } = await limited.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'limited');
      const ping = githubExamples('ping')[0];
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await deliverToGithub(limited, gitApp.id, secret, { event: 'ping', payload: ping });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(last!.headers['retry-after']).toMatch(/^\d+$/);
      expect(last!.body.error.code).toBe('RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});
