import { randomBytes, randomUUID } from 'node:crypto';
import { Incident, Interaction, PullRequestActivity, Task, TaskStatusChange, UserGitApp } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox } from '../../src/secrets/secretBox';
import { AppWriter } from '../../src/services/apps/apps';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { copy, deliverToGithub, githubExamples, GithubDelivery, ingestCounts, interactionDay } from '../support/peers/ingest';
import { providerCatalog } from '../../src/integrations/catalog';

/**
 * GitHub `issues` deliveries that are no incidents become tasks of their repository (docs/ingest.md#github-and-gitlab-issues),
 * and each peer review between members a `code_review` interaction (docs/metrics.md#pull-requests-flow-and-activity): the whole HTTP path,
 * with GitHub's own example payloads (@octokit/webhooks-examples) signed as GitHub signs them, rewritten only in
 * ids and logins. The examples have no `closed` action: it is the `reopened` example's issue as GitHub closed it
 * (its own `closed_at`), with the `closed` event's documented shape (@octokit/webhooks-types `IssuesClosedEvent`:
 * `action: "closed"`, `issue.state: "closed"`) and the REST API's `state_reason` (`completed` | `not_planned`).
 */
let t: TestApp;
let token: string;
let apps: AppWriter;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
  token = await t.token();
  apps = new AppWriter(ChangeRunner.for(t.runtime.sequelize), new SecretBox(randomBytes(32)), providerCatalog());
});
afterAll(async () => t.close());

const BOARD = 'Codertocat/Hello-World';
const ISSUE_ID = '444500041';
/** Acme's Ada is the examples' Codertocat (the issue's author and assignee, the pull request's author). */
const ADA_LOGIN = 'Codertocat';
/** Acme's Grace, acting on Ada's issue and pull request. */
const GRACE = { login: 'grace-hopper', id: 4100001 };

/** A fresh GitHub git app of Acme whose accounts Codertocat and grace-hopper are Ada and Grace. */
async function githubApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${randomUUID().slice(0, 8)}`);
  const now = new Date();
  await UserGitApp.create({ user_id: DEMO.users.ada, git_app_id: gitApp.id, username: ADA_LOGIN, created_at: now });
  await UserGitApp.create({ user_id: DEMO.users.grace, git_app_id: gitApp.id, username: GRACE.login, created_at: now });
  const deliver = (d: GithubDelivery) => deliverToGithub(t, gitApp.id, secret, d);
  return { id: gitApp.id, deliver };
}

const example = (event: string, action: string) => copy(githubExamples(event).find((p) => p.action === action)!);
const issueExample = (action: string) => example('issues', action);

/** The sender of an example rewritten to Grace (login and id only). */
function byGrace(payload: Record<string, any>): Record<string, any> {
  payload.sender = { ...payload.sender, login: GRACE.login, id: GRACE.id };
  return payload;
}

function closed(reason: 'completed' | 'not_planned') {
  const payload = issueExample('reopened');
  payload.action = 'closed';
  payload.issue.state = 'closed';
  payload.issue.state_reason = reason;
  payload.issue.updated_at = payload.issue.closed_at;
  return payload;
}

const storedTask = (gitAppId: string) => Task.findOne({ where: { app_id: gitAppId, external_id: ISSUE_ID } });
const history = async (taskId: string) =>
  (await TaskStatusChange.findAll({ where: { task_id: taskId }, order: [['at', 'ASC']] })).map((c) => [c.from_name, c.to_name, c.to_status, c.at.toISOString()]);
const teamTasks = async (teamId: string) => (await t.get(`/v1/teams/${teamId}/tasks?per_page=100`, token)).body.data as { id: string }[];

test("an issue's life on a mapped repository: opened, assigned by another member, closed as completed, reopened", async () => {
  const app = await githubApp();
  await apps.map(app.id, BOARD, { teamId: DEMO.teams.mobile });
  const dayBefore = await interactionDay(DEMO.teams.mobile, '2019-05-15', 'task_assignment');

  const opened = await app.deliver({ event: 'issues', payload: issueExample('opened') });
  expect(opened.status).toBe(200);
  expect(opened.body.data).toMatchObject({ event: 'issues', result: 'applied', tasks: [{ external_id: ISSUE_ID, result: 'created' }] });
  expect(await storedTask(app.id)).toMatchObject({ status: 'active', status_name: 'assigned', type: 'bug', assignee_id: DEMO.users.ada, team_id: DEMO.teams.mobile, board_key: BOARD, story_points: null, parent_id: null });

  const assigned = await app.deliver({ event: 'issues', payload: byGrace(issueExample('assigned')) });
  expect(assigned.body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'updated' }]);
  expect((await app.deliver({ event: 'issues', payload: closed('completed') })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'updated' }]);
  let task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ status: 'done', status_name: 'closed', completed_at: new Date('2021-07-05T18:07:10Z') });

  await app.deliver({ event: 'issues', payload: issueExample('reopened') });
  task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ status: 'active', status_name: 'assigned', completed_at: null });
  expect(await history(task.id)).toEqual([
    ['open', 'assigned', 'active', '2019-05-15T15:20:18.000Z'],
    ['assigned', 'closed', 'done', '2021-07-05T18:07:10.000Z'],
    ['closed', 'assigned', 'active', '2021-10-11T16:40:56.000Z'],
  ]);
  const listed = (await teamTasks(DEMO.teams.mobile)).find((x) => x.id === task.id);
  expect(listed).toMatchObject({ team_id: DEMO.teams.mobile, title: 'Spelling error in the README file', type: 'bug', status: 'active', assignee_id: DEMO.users.ada, story_points: null });

  // Grace assigned Ada: one task_assignment, in the team's and Grace's lists and in the team's day.
  const made = await Interaction.findAll({ where: { organization_id: DEMO.orgs.acme, type: 'task_assignment', team_id: DEMO.teams.mobile, user_id: DEMO.users.grace } });
  expect(made.map((i) => [i.source, i.counterpart_id, i.created_at.toISOString()])).toEqual([['github', DEMO.users.ada, '2019-05-15T15:20:18.000Z']]);
  const item = { id: made[0].id, type: 'task_assignment', source: 'github', user_id: DEMO.users.grace, counterpart_id: DEMO.users.ada, team_id: DEMO.teams.mobile, created_at: '2019-05-15T15:20:18.000Z' };
  expect((await t.get(`/v1/teams/${DEMO.teams.mobile}/interactions?per_page=100`, token)).body.data).toContainEqual(item);
  expect((await t.get(`/v1/users/${DEMO.users.grace}/interactions?per_page=100`, token)).body.data).toContainEqual(item);
  expect(await interactionDay(DEMO.teams.mobile, '2019-05-15', 'task_assignment')).toBe(dayBefore + 1);
});

test('an unmapped repository: stored for the organization with no team; closed as not planned it is canceled; mapped later, it is placed', async () => {
  const app = await githubApp();
  await app.deliver({ event: 'issues', payload: issueExample('opened') });
  await app.deliver({ event: 'issues', payload: closed('not_planned') });
  const task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ team_id: null, organization_id: DEMO.orgs.acme, status: 'canceled', status_name: 'not planned', completed_at: null, canceled_at: new Date('2021-07-05T18:07:10Z') });
  expect((await teamTasks(DEMO.teams.platform)).map((x) => x.id)).not.toContain(task.id);

  await apps.map(app.id, BOARD, { teamId: DEMO.teams.platform });
  expect((await teamTasks(DEMO.teams.platform)).find((x) => x.id === task.id)).toMatchObject({ status: 'canceled', completed_at: null });
});

test('unassigned of the only assignee, the issue is back in the backlog; with no bug label it is a task', async () => {
  const app = await githubApp();
  const opened = issueExample('opened');
  opened.issue.labels = [];
  await app.deliver({ event: 'issues', payload: opened });
  // Every example still lists Codertocat after `unassigned` (they were made with two assignees): here the only one goes.
  const unassigned = issueExample('unassigned');
  unassigned.issue.labels = [];
  unassigned.issue.assignee = null;
  unassigned.issue.assignees = [];
  expect((await app.deliver({ event: 'issues', payload: unassigned })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'updated' }]);
  const task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ status: 'backlog', status_name: 'open', type: 'task', assignee_id: null });
  expect(await history(task.id)).toEqual([['assigned', 'open', 'backlog', '2019-05-15T15:20:25.000Z']]);
});

test('out of order and redelivered: the newest state stands, every change is in the history once; deleted, nothing brings it back', async () => {
  const app = await githubApp();
  const reopened = { event: 'issues', payload: issueExample('reopened'), id: randomUUID() };
  expect((await app.deliver(reopened)).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'created' }]);
  // Older deliveries arrive late: their changes join the history, the state stays the reopened one.
  expect((await app.deliver({ event: 'issues', payload: closed('completed') })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'stale' }]);
  expect((await app.deliver({ event: 'issues', payload: issueExample('opened') })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'stale' }]);
  const task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ status: 'active', status_name: 'assigned', completed_at: null });
  expect(await history(task.id)).toEqual([
    ['assigned', 'closed', 'done', '2021-07-05T18:07:10.000Z'],
    ['closed', 'assigned', 'active', '2021-10-11T16:40:56.000Z'],
  ]);

  // GitHub redelivers with the same X-GitHub-Delivery: a duplicate, nothing written.
  const before = await ingestCounts();
  const again = await app.deliver(reopened);
  expect(again.status).toBe(200);
  expect(again.body.data).toMatchObject({ delivery_id: reopened.id, result: 'duplicate', tasks: [] });
  expect(await ingestCounts()).toEqual(before);

  const deleted = await app.deliver({ event: 'issues', payload: issueExample('deleted') });
  expect(deleted.body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'removed' }]);
  expect(await storedTask(app.id)).toBeNull();
  expect(await TaskStatusChange.count({ where: { task_id: task.id } })).toBe(0);
  // A late delivery of an older state does not bring it back.
  expect((await app.deliver({ event: 'issues', payload: issueExample('reopened') })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'stale' }]);
  expect(await storedTask(app.id)).toBeNull();
});

test("an issue labelled 'incident' stays an incident and makes no task", async () => {
  const app = await githubApp();
  const payload = issueExample('opened');
  payload.issue.labels = [...payload.issue.labels, { ...payload.issue.labels[0], id: 1362934390, name: 'incident' }];
  const res = await app.deliver({ event: 'issues', payload });
  expect(res.body.data).toMatchObject({ result: 'applied', incident: 'created' });
  expect(res.body.data.tasks).toBeUndefined();
  expect(await Incident.count({ where: { git_app_id: app.id } })).toBe(1);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(0);
});

test('pinned and unpinned (a partial issue) are acknowledged and ignored', async () => {
  const app = await githubApp();
  for (const action of ['pinned', 'unpinned']) {
    const res = await app.deliver({ event: 'issues', payload: issueExample(action) });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ result: 'ignored', reason: `an issue ${action} changes no task` });
  }
});

describe('code_review interactions', () => {
  /** GitHub's submitted review of Codertocat's pull request, by Grace (review user rewritten in login and id). */
  function graceReview() {
    const payload = example('pull_request_review', 'submitted');
    payload.review.user = { ...payload.review.user, login: GRACE.login, id: GRACE.id };
    return payload;
  }

  test("a review of another member's pull request is one interaction, reviewer → author, however often it arrives", async () => {
    const app = await githubApp();
    const review = graceReview();
    const day = review.review.submitted_at.slice(0, 10);
    const orgDay = await interactionDay(DEMO.orgs.acme, day, 'code_review');
    const first = { event: 'pull_request_review', payload: review, id: randomUUID() };
    expect((await app.deliver(first)).body.data).toMatchObject({ result: 'applied', review: 'created' });
    expect((await app.deliver(first)).body.data.result).toBe('duplicate');
    // The same review in another delivery (a second webhook of the repository): the activity is stored once.
    expect((await app.deliver({ event: 'pull_request_review', payload: review })).body.data.review).toBe('unchanged');

    const activity = (await PullRequestActivity.findOne({ where: { git_app_id: app.id, external_id: `review:${review.review.id}` } }))!;
    const made = await Interaction.findAll({ where: { source_ref: `review:${activity.id}` } });
    expect(made.map((i) => ({ type: i.type, source: i.source, user_id: i.user_id, counterpart_id: i.counterpart_id, team_id: i.team_id, at: i.created_at.toISOString() }))).toEqual([
      { type: 'code_review', source: 'github', user_id: DEMO.users.grace, counterpart_id: DEMO.users.ada, team_id: null, at: new Date(review.review.submitted_at).toISOString() },
    ]);
    const listed = (await t.get(`/v1/users/${DEMO.users.grace}/interactions?per_page=100`, token)).body.data;
    expect(listed).toContainEqual(expect.objectContaining({ id: made[0].id, type: 'code_review', user_id: DEMO.users.grace, counterpart_id: DEMO.users.ada, team_id: null }));
    expect(await interactionDay(DEMO.orgs.acme, day, 'code_review')).toBe(orgDay + 1);
  });

  test("the author's own review, pushed commits and an unknown reviewer make none", async () => {
    const app = await githubApp();
    const before = await Interaction.count({ where: { type: 'code_review' } });
    const own = example('pull_request_review', 'submitted'); // Codertocat reviewing Codertocat's pull request
    expect((await app.deliver({ event: 'pull_request_review', payload: own })).body.data.review).toBe('created');
    const pushed = byGrace(example('pull_request', 'synchronize'));
    expect((await app.deliver({ event: 'pull_request', payload: pushed })).body.data.review).toBe('created');
    const stranger = example('pull_request_review', 'submitted');
    stranger.review.id += 1;
    stranger.review.user = { ...stranger.review.user, login: 'hubot', id: 4100002 };
    expect((await app.deliver({ event: 'pull_request_review', payload: stranger })).body.data.review).toBe('created');
    expect(await Interaction.count({ where: { type: 'code_review' } })).toBe(before);
  });
});
