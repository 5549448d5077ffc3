import { randomUUID } from 'node:crypto';
import { PullRequest, PullRequestActivity, UserGitApp } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, deliverToGithub, deliverToGitlab, eraseDeletedRepositories, githubExamples, ingestCounts } from '../support/peers/ingest';
import { GITLAB_EVENT_HEADERS, mergeRequestHook, noteHook } from '../support/peers/gitlabPayloads';
import { expectList } from '../support/assertions';

/**
 * Review activity in (docs/metrics.md#ai-review-and-cost-figures): GitHub's own example payloads of `pull_request_review`,
 * `pull_request_review_comment`, `issue_comment` and `pull_request.synchronize`, GitLab's documented `Note Hook`
 * and its merge request approvals and pushes, as `/v1/git/apps/{id}/repositories/{repo}/pull-requests/{pr}/activity`
 * then lists them.
 */
let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
  token = await t.token();
});
afterAll(async () => t.close());

const FIELDS = ['actor_id', 'created_at', 'id', 'kind', 'pull_request_id'];
const example = (event: string, action: string, pick: (p: Record<string, any>) => boolean = () => true) => copy(githubExamples(event).find((p) => p.action === action && pick(p))!);

async function app(provider: 'github' | 'gitlab') {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, provider, `${provider} ${randomUUID().slice(0, 8)}`);
  const deliver = (event: string, payload: unknown) =>
    provider === 'github' ? deliverToGithub(t, gitApp.id, secret, { event, payload }) : deliverToGitlab(t, gitApp.id, secret, { event, payload });
  /** The pull request of that number (the only repository of the app), and its activity as /v1 lists it. */
  const activity = async (number: number) => {
    const prs = await t.get(`/v1/git/apps/${gitApp.id}/repositories/all/pull-requests?per_page=100`, token);
    const pr = prs.body.data.find((p: { number: number }) => p.number === number);
    const res = await t.get(`/v1/git/apps/${gitApp.id}/repositories/${pr.repository_id}/pull-requests/${pr.id}/activity?order=asc`, token);
    expect(res.status).toBe(200);
    expectList(res.body, FIELDS);
    for (const item of res.body.data) expect(item.pull_request_id).toBe(pr.id);
    return { pr, items: res.body.data as { kind: string; actor_id: string | null; created_at: string }[] };
  };
  return { id: gitApp.id, deliver, activity };
}

describe('GitHub', () => {
  test('a submitted review, a review comment, a comment on the pull request and pushed commits, in time order, the reviewer matched by user name', async () => {
    const github = await app('github');
    const review = example('pull_request_review', 'submitted');
    const number = review.pull_request.number;
    // Acme's Grace is this GitHub's review author.
    await UserGitApp.create({ user_id: DEMO.users.grace, git_app_id: github.id, username: review.review.user.login, created_at: new Date() });

    expect((await github.deliver('pull_request_review', review)).body.data).toMatchObject({ result: 'applied', pull_request: 'created', review: 'created' });
    const approval = copy(review);
    approval.review.id += 1;
    approval.review.state = 'approved';
    approval.review.submitted_at = '2030-01-02T10:00:00Z';
    await github.deliver('pull_request_review', approval);
    // The other activity is by someone this git app does not know.
    const comment = example('pull_request_review_comment', 'created');
    comment.pull_request.number = number;
    comment.comment.user.login = 'hubot';
    await github.deliver('pull_request_review_comment', comment);
    // GitHub's issue_comment examples are on issues: the same comment made on this pull request.
    const onPullRequest = example('issue_comment', 'created');
    onPullRequest.issue.number = number;
    onPullRequest.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/' + number, merged_at: null };
    onPullRequest.comment.created_at = '2030-01-03T10:00:00Z';
    onPullRequest.comment.user.login = 'hubot';
    await github.deliver('issue_comment', onPullRequest);
    const pushed = example('pull_request', 'synchronize');
    pushed.pull_request.number = number;
    pushed.pull_request.updated_at = '2030-01-04T10:00:00Z';
    pushed.sender.login = 'hubot';
    await github.deliver('pull_request', pushed);

    const { items } = await github.activity(number);
    const submitted = new Date(review.review.submitted_at).toISOString();
    expect(items.map(({ kind, actor_id, created_at }) => ({ kind, actor_id, created_at }))).toEqual([
      ...[
        { kind: 'comment', actor_id: DEMO.users.grace, created_at: submitted },
        { kind: 'comment', actor_id: null, created_at: new Date(comment.comment.created_at).toISOString() },
      ].sort((a, b) => a.created_at.localeCompare(b.created_at)),
      { kind: 'approved', actor_id: DEMO.users.grace, created_at: '2030-01-02T10:00:00.000Z' },
      { kind: 'comment', actor_id: null, created_at: '2030-01-03T10:00:00.000Z' },
      { kind: 'commit', actor_id: null, created_at: '2030-01-04T10:00:00.000Z' },
    ]);
  });

  test('a review delivered again under a new delivery id adds nothing; dismissed reviews, edited comments and comments on issues add nothing', async () => {
    const github = await app('github');
    const review = example('pull_request_review', 'submitted');
    await github.deliver('pull_request_review', review);
    const before = await ingestCounts();
    const again = await github.deliver('pull_request_review', review);
    expect(again.body.data).toMatchObject({ result: 'applied', review: 'unchanged' });
    expect({ ...(await ingestCounts()), IngestDelivery: before.IngestDelivery }).toEqual(before);

    for (const [event, payload] of [
      ['pull_request_review', example('pull_request_review', 'dismissed')],
      ['pull_request_review_comment', example('pull_request_review_comment', 'edited')],
      ['issue_comment', example('issue_comment', 'created')],
    ] as const) {
      const res = await github.deliver(event, payload);
      expect({ event, status: res.status, result: res.body.data.result }).toEqual({ event, status: 202, result: 'ignored' });
    }
    expect((await github.activity(review.pull_request.number)).items).toHaveLength(1);
  });

  test('an issue comment does not undo a merge it cannot see', async () => {
    const github = await app('github');
    const merged = example('pull_request', 'closed');
    merged.pull_request.merged = true;
    merged.pull_request.merged_at = merged.pull_request.closed_at;
    await github.deliver('pull_request', merged);
    const later = example('issue_comment', 'created');
    later.issue.number = merged.pull_request.number;
    later.issue.state = 'closed';
    later.issue.updated_at = '2030-01-01T00:00:00Z';
    later.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/2' };
    await github.deliver('issue_comment', later);
    const { pr, items } = await github.activity(merged.pull_request.number);
    expect(pr).toMatchObject({ state: 'merged', merged_at: new Date(merged.pull_request.closed_at).toISOString() });
    expect(items.map((i) => i.kind)).toEqual(['comment']);
  });
});

describe('GitLab', () => {
  test('the documented comment on a merge request, an approval and pushed commits; a comment on an issue is ignored', async () => {
    const gitlab = await app('gitlab');
    const number = noteHook.merge_request.iid;
    const res = await gitlab.deliver(GITLAB_EVENT_HEADERS.note, noteHook);
    expect(res.body.data).toMatchObject({ result: 'applied', pull_request: 'created', review: 'created' });
    // GitLab's merge request example is of another project: here, of the commented one.
    const approved = copy(mergeRequestHook);
    approved.project = noteHook.project;
    approved.object_attributes = { ...approved.object_attributes, iid: number, action: 'approved', updated_at: '2030-01-02 10:00:00 UTC' };
    await gitlab.deliver(GITLAB_EVENT_HEADERS.mergeRequest, approved);
    const pushed = copy(mergeRequestHook);
    pushed.project = noteHook.project;
    pushed.object_attributes = { ...pushed.object_attributes, iid: number, action: 'update', oldrev: 'e59094b8de0aa2b5bd2ee5a8d8b4e3c8e4a0f1c2', updated_at: '2030-01-03 10:00:00 UTC' };
    await gitlab.deliver(GITLAB_EVENT_HEADERS.mergeRequest, pushed);

    const { items } = await gitlab.activity(number);
    expect(items.map(({ kind, created_at }) => ({ kind, created_at }))).toEqual([
      { kind: 'comment', created_at: '2015-05-17T18:21:36.000Z' },
      { kind: 'approved', created_at: '2030-01-02T10:00:00.000Z' },
      { kind: 'commit', created_at: '2030-01-03T10:00:00.000Z' },
    ]);

    const onIssue = copy(noteHook);
    onIssue.object_attributes.noteable_type = 'Issue';
    const ignored = await gitlab.deliver(GITLAB_EVENT_HEADERS.note, onIssue);
    expect({ status: ignored.status, result: ignored.body.data.result }).toEqual({ status: 202, result: 'ignored' });
  });
});

/** Each activity of the git app, oldest first: kind, member, whose pull request it is on, and whether it is a peer review. */
async function judged(gitAppId: string) {
  const rows = await PullRequestActivity.findAll({ where: { git_app_id: gitAppId }, order: [['created_at', 'ASC']] });
  return rows.map((a) => [a.kind, a.actor_id, a.pull_request_author_id, Boolean(Number(a.peer_review))]);
}

describe("someone other than the author: the provider's user ids of both, whether or not either is a member", () => {
  test('GitLab: notes and an approval arriving before the merge request names its author by user name; its opening then makes her the member it was', async () => {
    const gitlab = await app('gitlab');
    // GitLab's documented Note Hook: the merge request (iid 1) is by user 8; the note by user 1 ("root", here Grace).
    await UserGitApp.create({ user_id: DEMO.users.grace, git_app_id: gitlab.id, username: noteHook.user.username, created_at: new Date() });
    await UserGitApp.create({ user_id: DEMO.users.ada, git_app_id: gitlab.id, username: 'ada', created_at: new Date() });
    const author = { ...noteHook.user, id: noteHook.merge_request.author_id, username: 'ada' };
    const byAuthor = copy(noteHook);
    byAuthor.user = author;
    byAuthor.object_attributes = { ...byAuthor.object_attributes, id: 1300, created_at: '2015-05-17 17:00:00 UTC' };
    await gitlab.deliver(GITLAB_EVENT_HEADERS.note, byAuthor);
    await gitlab.deliver(GITLAB_EVENT_HEADERS.note, noteHook);
    // Her own approval, where the project lets authors approve.
    const selfApproved = copy(mergeRequestHook);
    selfApproved.project = noteHook.project;
    selfApproved.user = author;
    selfApproved.object_attributes = { ...selfApproved.object_attributes, iid: noteHook.merge_request.iid, author_id: author.id, action: 'approved', updated_at: '2015-05-17 19:00:00 UTC' };
    await gitlab.deliver(GITLAB_EVENT_HEADERS.mergeRequest, selfApproved);
    // Before anything names her as a member: only Grace's note is a review.
    expect(await judged(gitlab.id)).toEqual([
      ['comment', DEMO.users.ada, null, false],
      ['comment', DEMO.users.grace, null, true],
      ['approved', DEMO.users.ada, null, false],
    ]);
    const stored = await PullRequest.findOne({ where: { git_app_id: gitlab.id } });
    expect([stored!.first_review_at?.toISOString(), stored!.first_approval_at]).toEqual(['2015-05-17T18:21:36.000Z', null]);

    // The opening, delivered late (an older state than stored): the acting user is the author, a member.
    const opened = copy(mergeRequestHook);
    opened.project = noteHook.project;
    opened.user = author;
    opened.object_attributes = { ...opened.object_attributes, iid: noteHook.merge_request.iid, author_id: author.id, action: 'open' };
    await gitlab.deliver(GITLAB_EVENT_HEADERS.mergeRequest, opened);
    expect(await judged(gitlab.id)).toEqual([
      ['comment', DEMO.users.ada, DEMO.users.ada, false],
      ['comment', DEMO.users.grace, DEMO.users.ada, true],
      ['approved', DEMO.users.ada, DEMO.users.ada, false],
    ]);
    expect((await gitlab.activity(noteHook.merge_request.iid)).pr.author_id).toBe(DEMO.users.ada);
  });

  test('GitHub: a pull request stored before its author’s id was kept learns it from the next delivery, and her own comment is no review', async () => {
    const github = await app('github');
    // GitHub's example pull request is by Codertocat, no member here.
    const opened = example('pull_request', 'opened');
    await github.deliver('pull_request', opened);
    await PullRequest.update({ author_provider_id: null }, { where: { git_app_id: github.id } });
    const comment = (id: number, user: Record<string, unknown>, at: string) => {
      const payload = example('issue_comment', 'created');
      payload.repository = opened.repository;
      payload.issue = { ...payload.issue, number: opened.pull_request.number, user: opened.pull_request.user, pull_request: { url: opened.pull_request.url, merged_at: null } };
      payload.comment = { ...payload.comment, id, user, created_at: at };
      return payload;
    };
    await github.deliver('issue_comment', comment(1, opened.pull_request.user, '2030-01-01T10:00:00Z'));
    await github.deliver('issue_comment', comment(2, { ...opened.pull_request.user, login: 'hubot', id: 7 }, '2030-01-01T12:00:00Z'));
    expect(await judged(github.id)).toEqual([
      ['comment', null, null, false],
      ['comment', null, null, true],
    ]);
    const stored = await PullRequest.findOne({ where: { git_app_id: github.id } });
    expect([stored!.author_provider_id, stored!.first_review_at?.toISOString()]).toEqual([String(opened.pull_request.user.id), '2030-01-01T12:00:00.000Z']);
  });
});

test('a pull request of another repository, or of another git app, is not found under this one', async () => {
  const github = await app('github');
  await github.deliver('pull_request_review', example('pull_request_review', 'submitted'));
  const res = await t.get(`/v1/git/apps/${github.id}/repositories/all/pull-requests/${DEMO.pullRequests.acmeApi1}/activity`, token);
  expect(res.status).toBe(404);
  expect(res.body.error.message).toBe('Pull request not found');
});

test('a deleted repository takes its pull requests’ activity with it', async () => {
  const github = await app('github');
  const review = example('pull_request_review', 'submitted');
  await github.deliver('pull_request_review', review);
  expect(await PullRequestActivity.count({ where: { git_app_id: github.id } })).toBe(1);
  // GitHub's examples have no deletion: its creation example, deleted, of the reviewed repository.
  const deleted = example('repository', 'created');
  deleted.action = 'deleted';
  deleted.repository = review.repository;
  expect((await github.deliver('repository', deleted)).body.data).toMatchObject({ result: 'applied', repository_deleted: true });
  // Hidden until its grace has passed, then erased with its activity.
  expect(await PullRequestActivity.count({ where: { git_app_id: github.id } })).toBe(1);
  await eraseDeletedRepositories(t);
  expect(await PullRequestActivity.count({ where: { git_app_id: github.id } })).toBe(0);
});

test('an approval by a user with a name longer than the provider ids column holds is stored once, on both databases', async () => {
  const gitlab = await app('gitlab');
  const approved = copy(mergeRequestHook);
  approved.user = { ...approved.user, username: `reviewer-${'x'.repeat(290)}` };
  approved.object_attributes = { ...approved.object_attributes, action: 'approved', updated_at: '2030-01-02 10:00:00 UTC' };
  for (let i = 0; i < 2; i++) {
    const res = await gitlab.deliver(GITLAB_EVENT_HEADERS.mergeRequest, approved);
    expect({ status: res.status, review: res.body.data.review }).toEqual({ status: 200, review: i === 0 ? 'created' : 'unchanged' });
  }
  expect((await gitlab.activity(approved.object_attributes.iid)).items.map((i) => i.kind)).toEqual(['approved']);
});

