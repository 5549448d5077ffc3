import { randomBytes, randomUUID } from 'node:crypto';
import { Incident, Interaction, PullRequestActivity, Task, TaskStatusChange, UserGitApp } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox } from '../../src/secrets/secretBox';
import { AppWriter } from '../../src/services/apps/apps';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { copy, deliverToGitlab, GitlabDelivery, ingestCounts, interactionDay } from '../support/peers/ingest';
import { GITLAB_EVENT_HEADERS, issueHook, mergeRequestHook, noteHook } from '../support/peers/gitlabPayloads';
import { providerCatalog } from '../../src/integrations/catalog';

/**
 * GitLab `Issue Hook` deliveries that are no incidents become tasks of their project (docs/ingest.md#github-and-gitlab-issues),
 * and notes on another member's merge request `code_review` interactions (docs/metrics.md#pull-requests-flow-and-activity): the whole HTTP
 * path with GitLab's documented payloads (test/support/peers/gitlabPayloads.ts). The documentation shows one issue
 * event (`action: "open"`); a close, a reopen and a change of assignees are that issue as GitLab then sends it:
 * `state`, `action`, `updated_at` and `closed_at` as they become, and `changes.state_id` / `changes.assignees`
 * (`{previous, current}`, the shape of every entry of `changes`).
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

const BOARD = issueHook.project.path_with_namespace;
const ISSUE_ID = String(issueHook.object_attributes.id);

/** A fresh GitLab git app of Acme whose accounts user1 (the issue's assignee) and root (the acting user) are Ada and Grace. */
async function gitlabApp() {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'gitlab', `GitLab ${randomUUID().slice(0, 8)}`);
  const now = new Date();
  await UserGitApp.create({ user_id: DEMO.users.ada, git_app_id: gitApp.id, username: issueHook.assignees[0].username, created_at: now });
  await UserGitApp.create({ user_id: DEMO.users.grace, git_app_id: gitApp.id, username: issueHook.user.username, created_at: now });
  const deliver = (d: Omit<GitlabDelivery, 'event'> & { event?: string }) => deliverToGitlab(t, gitApp.id, secret, { event: GITLAB_EVENT_HEADERS.issue, ...d });
  return { id: gitApp.id, deliver };
}

function closedIssue() {
  const payload = copy(issueHook);
  payload.object_attributes = { ...payload.object_attributes, state: 'closed', action: 'close', state_id: 2, updated_at: '2013-12-05T10:00:00Z', closed_at: '2013-12-05T10:00:00Z' };
  payload.changes = { state_id: { previous: 1, current: 2 }, updated_at: { previous: '2013-12-03 17:15:43 UTC', current: '2013-12-05 10:00:00 UTC' } };
  return payload;
}

function reopenedIssue() {
  const payload = copy(issueHook);
  payload.object_attributes = { ...payload.object_attributes, action: 'reopen', updated_at: '2013-12-06T10:00:00Z' };
  payload.changes = { state_id: { previous: 2, current: 1 }, closed_at: { previous: '2013-12-05 10:00:00 UTC', current: null } };
  return payload;
}

/** The documented issue before anyone was assigned. */
function unassignedIssue() {
  const payload = copy(issueHook);
  payload.assignees = [];
  delete payload.assignee;
  payload.object_attributes = { ...payload.object_attributes, assignee_ids: [], assignee_id: null };
  return payload;
}

/** Root (Grace) assigns user1 (Ada). */
function assignedIssue() {
  const payload = copy(issueHook);
  payload.object_attributes = { ...payload.object_attributes, action: 'update', updated_at: '2013-12-04T09:00:00Z' };
  payload.changes = { assignees: { previous: [], current: payload.assignees } };
  return payload;
}

const storedTask = (gitAppId: string) => Task.findOne({ where: { app_id: gitAppId, external_id: ISSUE_ID } });
const history = async (taskId: string) =>
  (await TaskStatusChange.findAll({ where: { task_id: taskId }, order: [['at', 'ASC']] })).map((c) => [c.from_name, c.to_name, c.to_status, c.at.toISOString()]);
const teamTasks = async (teamId: string) => (await t.get(`/v1/teams/${teamId}/tasks?per_page=100`, token)).body.data as { id: string }[];

test("an issue's life on a mapped project: opened, assigned by another member, closed, reopened", async () => {
  const app = await gitlabApp();
  await apps.map(app.id, BOARD, { teamId: DEMO.teams.mobile });
  const dayBefore = await interactionDay(DEMO.teams.mobile, '2013-12-04', 'task_assignment');

  const opened = await app.deliver({ payload: unassignedIssue() });
  expect(opened.status).toBe(200);
  expect(opened.body.data).toMatchObject({ event: 'Issue Hook', result: 'applied', tasks: [{ external_id: ISSUE_ID, result: 'created' }] });
  expect(await storedTask(app.id)).toMatchObject({ status: 'backlog', status_name: 'open', type: 'task', assignee_id: null, team_id: DEMO.teams.mobile, board_key: BOARD });

  expect((await app.deliver({ payload: assignedIssue() })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'updated' }]);
  expect(await storedTask(app.id)).toMatchObject({ status: 'active', status_name: 'assigned', assignee_id: DEMO.users.ada });
  await app.deliver({ payload: closedIssue() });
  expect(await storedTask(app.id)).toMatchObject({ status: 'done', status_name: 'closed', completed_at: new Date('2013-12-05T10:00:00Z') });
  await app.deliver({ payload: reopenedIssue() });

  const task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ status: 'active', completed_at: null });
  expect(await history(task.id)).toEqual([
    ['open', 'assigned', 'active', '2013-12-04T09:00:00.000Z'],
    ['assigned', 'closed', 'done', '2013-12-05T10:00:00.000Z'],
    ['closed', 'assigned', 'active', '2013-12-06T10:00:00.000Z'],
  ]);
  expect((await teamTasks(DEMO.teams.mobile)).find((x) => x.id === task.id)).toMatchObject({ title: issueHook.object_attributes.title, type: 'task', status: 'active', assignee_id: DEMO.users.ada });

  const made = await Interaction.findAll({ where: { organization_id: DEMO.orgs.acme, type: 'task_assignment', user_id: DEMO.users.grace, counterpart_id: DEMO.users.ada, source: 'gitlab' } });
  expect(made.map((i) => [i.team_id, i.created_at.toISOString()])).toEqual([[DEMO.teams.mobile, '2013-12-04T09:00:00.000Z']]);
  expect((await t.get(`/v1/teams/${DEMO.teams.mobile}/interactions?per_page=100`, token)).body.data).toContainEqual(expect.objectContaining({ id: made[0].id, type: 'task_assignment' }));
  expect((await t.get(`/v1/users/${DEMO.users.grace}/interactions?per_page=100`, token)).body.data).toContainEqual(expect.objectContaining({ id: made[0].id, counterpart_id: DEMO.users.ada }));
  expect(await interactionDay(DEMO.teams.mobile, '2013-12-04', 'task_assignment')).toBe(dayBefore + 1);
});

test('an unmapped project keeps its tasks for the organization; a bug label makes a bug; GitLab gives no reason, so closed is done', async () => {
  const app = await gitlabApp();
  const payload = closedIssue();
  payload.labels = [{ ...payload.labels[0], id: 208, title: 'bug' }];
  expect((await app.deliver({ payload })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'created' }]);
  const task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ team_id: null, organization_id: DEMO.orgs.acme, type: 'bug', status: 'done', completed_at: new Date('2013-12-05T10:00:00Z') });
  expect((await teamTasks(DEMO.teams.platform)).map((x) => x.id)).not.toContain(task.id);
  await apps.map(app.id, BOARD, { teamId: DEMO.teams.platform });
  expect((await teamTasks(DEMO.teams.platform)).find((x) => x.id === task.id)).toMatchObject({ type: 'bug', status: 'done' });
});

test('out of order and redelivered: the close arrives before the opening; a resend (same Idempotency-Key) is a duplicate', async () => {
  const app = await gitlabApp();
  const close = { payload: closedIssue(), headers: { 'Idempotency-Key': randomUUID() } };
  expect((await app.deliver(close)).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'created' }]);
  expect((await app.deliver({ payload: issueHook })).body.data.tasks).toEqual([{ external_id: ISSUE_ID, result: 'stale' }]);
  const task = (await storedTask(app.id))!;
  expect(task).toMatchObject({ status: 'done', status_name: 'closed' });
  expect(await history(task.id)).toEqual([['assigned', 'closed', 'done', '2013-12-05T10:00:00.000Z']]);

  const before = await ingestCounts();
  const again = await app.deliver(close);
  expect(again.body.data).toMatchObject({ result: 'duplicate', tasks: [] });
  expect(await ingestCounts()).toEqual(before);
});

test("an issue labelled 'incident' stays an incident and makes no task", async () => {
  const app = await gitlabApp();
  const payload = copy(issueHook);
  payload.labels = [...payload.labels, { ...payload.labels[0], id: 207, title: 'incident' }];
  expect((await app.deliver({ payload })).body.data).toMatchObject({ result: 'applied', incident: 'created' });
  expect(await Incident.count({ where: { git_app_id: app.id } })).toBe(1);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(0);
});

test("code_review: a note on a merge request whose author is known only later is one interaction, once she is", async () => {
  const app = await gitlabApp();
  // GitLab's documented note is by root (Grace) on a merge request by user 8, here Ada, user1.
  const orgDay = await interactionDay(DEMO.orgs.acme, '2015-05-17', 'code_review');
  const note = { event: GITLAB_EVENT_HEADERS.note, payload: noteHook, headers: { 'Idempotency-Key': randomUUID() } };
  expect((await app.deliver(note)).body.data).toMatchObject({ result: 'applied', review: 'created' });
  const activity = (await PullRequestActivity.findOne({ where: { git_app_id: app.id } }))!;
  const made = () => Interaction.findAll({ where: { source_ref: `review:${activity.id}` } });
  expect(await made()).toEqual([]);

  const author = { ...noteHook.user, id: noteHook.merge_request.author_id, username: issueHook.assignees[0].username };
  const opened = copy(mergeRequestHook);
  opened.project = noteHook.project;
  opened.user = author;
  opened.object_attributes = { ...opened.object_attributes, iid: noteHook.merge_request.iid, author_id: author.id, action: 'open' };
  await app.deliver({ event: GITLAB_EVENT_HEADERS.mergeRequest, payload: opened });
  // Again later (a resend, then the merge request updated): nothing more.
  await app.deliver(note);
  const updated = copy(opened);
  updated.object_attributes = { ...updated.object_attributes, action: 'update', updated_at: '2030-01-01 10:00:00 UTC' };
  await app.deliver({ event: GITLAB_EVENT_HEADERS.mergeRequest, payload: updated });

  expect((await made()).map((i) => ({ type: i.type, source: i.source, user_id: i.user_id, counterpart_id: i.counterpart_id, team_id: i.team_id, at: i.created_at.toISOString() }))).toEqual([
    { type: 'code_review', source: 'gitlab', user_id: DEMO.users.grace, counterpart_id: DEMO.users.ada, team_id: null, at: '2015-05-17T18:21:36.000Z' },
  ]);
  const listed = (await t.get(`/v1/users/${DEMO.users.grace}/interactions?per_page=100`, token)).body.data;
  expect(listed).toContainEqual(expect.objectContaining({ type: 'code_review', user_id: DEMO.users.grace, counterpart_id: DEMO.users.ada, created_at: '2015-05-17T18:21:36.000Z' }));
  expect(await interactionDay(DEMO.orgs.acme, '2015-05-17', 'code_review')).toBe(orgDay + 1);
});
