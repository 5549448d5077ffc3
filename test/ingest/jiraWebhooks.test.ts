import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Op } from 'sequelize';
import { App, Interaction, RemovedTask, Task, TaskStatusChange } from '../../db/models';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { githubExamples, copy, deliverToGithub } from '../support/peers/ingest';
import { commentCreated, deliverToJira, issueAssigned, issueCreated, issueDeleted, issueDone, issueStatusChanged, JiraDelivery, jiraSignature } from '../support/peers/jira/deliveries';
import { unique } from '../support/common';
import { withSecret } from '../support/webhooks';

/**
 * `POST /ingest/jira/{app_id}` (docs/trackers.md#trackers) with Jira Cloud's own deliveries
 * (test/support/peers/jira/README.md), signed as Atlassian documents, and what is stored afterwards.
 */

const BODY_LIMIT_KB = 32;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_BODY_LIMIT_KB: String(BODY_LIMIT_KB) });
});
afterAll(async () => t.close());

async function jiraApp(pointsField = 'customfield_10016') {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}`, pointsField }));
  return { id: app.id, secret, deliver: (d: JiraDelivery) => deliverToJira(t, app.id, secret, d) };
}
const taskOf = (appId: string, externalId: string) => Task.findOne({ where: { app_id: appId, external_id: externalId } });
const historyOf = async (taskId: string) =>
  (await TaskStatusChange.findAll({ where: { task_id: taskId }, order: [['at', 'ASC']] })).map((c) => [c.external_id, c.from_name, c.from_category, c.to_name, c.to_category, c.at.toISOString()]);

test('an issue created, then moved along its workflow: the task with its type, status category and history', async () => {
  const app = await jiraApp();
  const id = randomUUID();
  const created = await app.deliver({ payload: issueCreated, id });
  expect(created.status).toBe(200);
  expect(created.body).toEqual({ status: 'success', data: { delivery_id: id, event: 'jira:issue_created', result: 'applied', tasks: [{ external_id: '30369', result: 'created' }] } });
  expect(await taskOf(app.id, '30369')).toMatchObject({ board_key: 'BBCOM', title: issueCreated.issue.fields.summary, type: 'task', status: 'backlog', status_name: 'Open', organization_id: DEMO.orgs.acme, team_id: null });

  const moved = await app.deliver({ payload: issueStatusChanged });
  expect(moved.body.data).toMatchObject({ event: 'jira:issue_updated', result: 'applied', tasks: [{ external_id: '11442', result: 'created' }] });
  const task = (await taskOf(app.id, '11442'))!;
  // The points field of this app holds a date on that site: not a number, so no points.
  expect(task).toMatchObject({ board_key: 'INDEV', type: 'task', status: 'active', status_name: 'In Progress', story_points: null });
  expect(task.started_at).toEqual(new Date('2019-01-30T12:51:33.199Z'));
  // "To Do" appears nowhere else in the delivery: its category stays unknown.
  expect(await historyOf(task.id)).toEqual([['34911', 'To Do', null, 'In Progress', 'active', '2019-01-30T12:51:33.199Z']]);
});

test('deliveries of one issue out of order and again end in its newest state, with each change of status once', async () => {
  const app = await jiraApp();
  const done = issueDone();
  const doneId = randomUUID();
  const answers = [];
  answers.push(await app.deliver({ payload: done, id: doneId }));
  answers.push(await app.deliver({ payload: issueStatusChanged }));
  answers.push(await app.deliver({ payload: done, id: doneId })); // Jira's retry of the same delivery
  answers.push(await app.deliver({ payload: issueStatusChanged }));
  expect(answers.map((a) => [a.status, a.body.data.result, a.body.data.tasks])).toEqual([
    [200, 'applied', [{ external_id: '11442', result: 'created' }]],
    [200, 'applied', [{ external_id: '11442', result: 'stale' }]],
    [200, 'duplicate', []],
    [200, 'applied', [{ external_id: '11442', result: 'stale' }]],
  ]);
  const task = (await taskOf(app.id, '11442'))!;
  expect(task).toMatchObject({ status: 'done', status_name: 'Done', status_changes: 2 });
  expect(task.completed_at).toEqual(new Date('2019-01-30T13:51:33.199Z'));
  // The Done delivery, stored first, shows "In Progress" nowhere: that change's from category stays unknown.
  expect(await historyOf(task.id)).toEqual([
    ['34911', 'To Do', null, 'In Progress', 'active', '2019-01-30T12:51:33.199Z'],
    ['34950', 'In Progress', null, 'Done', 'done', '2019-01-30T13:51:33.199Z'],
  ]);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(1);
});

test('deliveries of one issue at once, one of them twice, store one task in its newest state', async () => {
  const app = await jiraApp();
  const doneId = randomUUID();
  const sent = [issueStatusChanged, issueDone(), issueStatusChanged, issueDone()];
  const answers = await Promise.all(sent.map((payload, i) => app.deliver({ payload, id: i % 2 ? doneId : undefined })));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  expect(answers.filter((a) => a.body.data.result === 'duplicate')).toHaveLength(1);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(1);
  const task = (await taskOf(app.id, '11442'))!;
  expect(task).toMatchObject({ status: 'done', status_name: 'Done', status_changes: 2 });
  expect((await historyOf(task.id)).map((h) => h[0])).toEqual(['34911', '34950']);
});

test('a deleted issue leaves no task, and a delivery older than the deletion does not bring it back', async () => {
  const app = await jiraApp();
  await app.deliver({ payload: issueStatusChanged });
  const deletedAt = new Date('2019-02-01T09:00:00Z');
  const removed = await app.deliver({ payload: issueDeleted(issueStatusChanged, deletedAt) });
  expect(removed.body.data).toMatchObject({ event: 'jira:issue_deleted', result: 'applied', tasks: [{ external_id: '11442', result: 'removed' }] });
  expect(await taskOf(app.id, '11442')).toBeNull();
  expect((await app.deliver({ payload: issueDone() })).body.data.tasks).toEqual([{ external_id: '11442', result: 'stale' }]);
  expect(await Task.count({ where: { app_id: app.id } })).toBe(0);
  expect(await RemovedTask.count({ where: { app_id: app.id, external_id: '11442' } })).toBe(1);
});

test('an assignment by one member to another is a task_assignment interaction, matched through linked accounts', async () => {
  const app = await jiraApp();
  await t.runtime.writers.apps.linkUser(app.id, DEMO.users.grace, issueAssigned.user.accountId);
  await t.runtime.writers.apps.linkUser(app.id, DEMO.users.linus, issueAssigned.issue.fields.assignee.accountId);
  const id = randomUUID();
  const res = await app.deliver({ payload: issueAssigned, id });
  expect(res.body.data).toMatchObject({ result: 'applied', tasks: [{ external_id: '19435', result: 'created' }] });
  const task = (await taskOf(app.id, '19435'))!;
  expect(task).toMatchObject({ type: 'story', status: 'backlog', assignee_id: DEMO.users.linus, parent_external_id: '11389' });
  const interactions = await Interaction.findAll({ where: { source_ref: { [Op.like]: `assign:${app.id}:%` } } });
  expect(interactions.map((i) => [i.type, i.source, i.user_id, i.counterpart_id, i.source_ref])).toEqual([['task_assignment', 'jira', DEMO.users.grace, DEMO.users.linus, `assign:${app.id}:76941`]]);
  // Jira's retry of the delivery, and the same change in another delivery, add no second interaction.
  await app.deliver({ payload: issueAssigned, id });
  await app.deliver({ payload: issueAssigned });
  expect(await Interaction.count({ where: { source_ref: { [Op.like]: `assign:${app.id}:%` } } })).toBe(1);
});

test('events other than an issue\'s are acknowledged and ignored (202)', async () => {
  const app = await jiraApp();
  const res = await app.deliver({ payload: commentCreated });
  expect(res.status).toBe(202);
  expect(res.body.data).toMatchObject({ event: 'comment_created', result: 'ignored' });
  expect(await Task.count({ where: { app_id: app.id } })).toBe(0);
});

test('during a rotation\'s grace both the previous and the new secret sign', async () => {
  const app = await jiraApp();
  const { secret } = await t.runtime.writers.apps.rotateSecret(app.id);
  expect((await app.deliver({ payload: issueCreated })).status).toBe(200);
  expect((await deliverToJira(t, app.id, secret, { payload: issueStatusChanged })).status).toBe(200);
});

test('an app that took deliveries is disabled, enabled and given a new secret at once, on the next delivery', async () => {
  const app = await jiraApp();
  expect((await app.deliver({ payload: issueCreated })).status).toBe(200);
  await t.runtime.writers.apps.setActive(app.id, false);
  expect((await app.deliver({ payload: issueStatusChanged })).status).toBe(403);
  await t.runtime.writers.apps.setActive(app.id, true);
  expect((await app.deliver({ payload: issueStatusChanged })).status).toBe(200);
  const { secret } = await t.runtime.writers.apps.rotateSecret(app.id);
  expect((await deliverToJira(t, app.id, secret, { payload: issueDone() })).status).toBe(200);
  const provided = `provider-made-${unique()}`;
  await t.runtime.writers.apps.setSecret(app.id, provided);
  expect((await deliverToJira(t, app.id, provided, { payload: issueDone() })).status).toBe(200);
});

describe('refused deliveries store nothing', () => {
  async function refused(send: () => Promise<request.Response>, status: number, code: string, message: RegExp) {
    const before = await Task.count();
    const res = await send();
    expect([res.status, res.body.status, res.body.error?.code]).toEqual([status, 'error', code]);
    expect(res.body.error.message).toMatch(message);
    expect(await Task.count()).toBe(before);
  }

  test('a wrong or missing signature: 401', async () => {
    const app = await jiraApp();
    await refused(() => app.deliver({ payload: issueCreated, signature: jiraSignature('not the secret', JSON.stringify(issueCreated)) }), 401, 'UNAUTHORIZED', /does not match/);
    await refused(() => app.deliver({ payload: issueCreated, signature: null }), 401, 'UNAUTHORIZED', /Missing X-Hub-Signature/);
    await refused(() => app.deliver({ payload: issueCreated, signature: 'sha1=0123' }), 401, 'UNAUTHORIZED', /does not match/);
    // Signed, then changed on the way.
    const body = JSON.stringify(issueCreated);
    await refused(() => app.deliver({ body: body.replace('BBCOM', 'EVIL'), signature: jiraSignature(app.secret, body) }), 401, 'UNAUTHORIZED', /does not match/);
  });

  test('another provider\'s delivery or body: 400 saying where it goes or what is wrong', async () => {
    const app = await jiraApp();
    const github = githubExamples('issues')[0];
    await refused(() => deliverToJira(t, app.id, app.secret, { payload: github, headers: { 'X-GitHub-Event': 'issues' } }), 400, 'VALIDATION_ERROR', /github delivery.*\/ingest\/github\//);
    await refused(() => app.deliver({ payload: github }), 400, 'VALIDATION_ERROR', /Not a Jira webhook delivery: webhookEvent/);
    const noSummary = copy(issueCreated);
    delete noSummary.issue.fields.summary;
    await refused(() => app.deliver({ payload: noSummary }), 400, 'VALIDATION_ERROR', /issue\.fields\.summary/);
    await refused(() => app.deliver({ body: '{"webhookEvent": ' }), 400, 'VALIDATION_ERROR', /not valid JSON/);
    await refused(() => app.deliver({ payload: issueCreated, headers: { 'X-Atlassian-Webhook-Identifier': '' } }), 400, 'VALIDATION_ERROR', /X-Atlassian-Webhook-Identifier/);
    const undated = { ...issueDeleted(issueCreated, new Date()), timestamp: issueCreated.timestamp };
    await refused(() => app.deliver({ payload: undated }), 400, 'VALIDATION_ERROR', /timestamp/);
    // A Linear app's URL under /ingest/jira names the URL its deliveries go to.
    const { app: linear } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'linear', { name: `Linear ${unique()}` }));
    await refused(() => deliverToJira(t, linear.id, 'any', { payload: issueCreated }), 400, 'VALIDATION_ERROR', new RegExp(`linear app; send its deliveries to /ingest/linear/${linear.id}`));
  });

  test('a body over the limit: 413 before it is read', async () => {
    const app = await jiraApp();
    const big = copy(issueCreated);
    big.issue.fields.summary = 'x'.repeat(BODY_LIMIT_KB * 1024);
    await refused(() => app.deliver({ payload: big }), 413, 'PAYLOAD_TOO_LARGE', /larger than/);
  });

  test('an unknown app: 404; an app without a secret: 401; a disabled app: 403 once authenticated', async () => {
    await refused(() => deliverToJira(t, 'app_nobody', 'any', { payload: issueCreated }), 404, 'NOT_FOUND', /App not found/);
    const bare = await jiraApp();
    await App.update({ webhook_secret: null }, { where: { id: bare.id } });
    await refused(() => bare.deliver({ payload: issueCreated }), 401, 'UNAUTHORIZED', /no webhook secret/);
    const app = await jiraApp();
    await t.runtime.writers.apps.setActive(app.id, false);
    await refused(() => app.deliver({ payload: issueCreated, signature: 'sha256=00' }), 401, 'UNAUTHORIZED', /does not match/);
    await refused(() => app.deliver({ payload: issueCreated }), 403, 'FORBIDDEN', /disabled/);
  });
});

test('the git providers keep their own ingest beside the apps\'', async () => {
  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${unique()}`);
  const res = await deliverToGithub(t, gitApp.id, secret, { event: 'ping', payload: githubExamples('ping')[0] });
  expect(res.status).toBe(200);
  expect(res.body.data.result).toBe('pong');
  const unknown = await request(t.runtime.app).post(`/ingest/slack/app_x`).set('Content-Type', 'application/json').send('{}');
  expect(unknown.status).toBe(404);
});

describe('limits', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(async () => limited.close());

  test('an app beyond its deliveries per minute, and a client IP beyond its failed ones, get 429 with Retry-After', async () => {
    const { app, secret } = withSecret(await limited.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await deliverToJira(limited, app.id, secret, { payload: issueCreated }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2].body.error.code).toBe('RATE_LIMITED');
    expect(Number(answers[2].headers['retry-after'])).toBeGreaterThan(0);

    const other = withSecret(await limited.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await deliverToJira(limited, other.app.id, 'a guess', { payload: issueCreated }));
    expect(guesses.map((a) => a.status)).toEqual([401, 401, 429]);
    expect(await Task.count({ where: { app_id: other.app.id } })).toBe(0);
  });
});
