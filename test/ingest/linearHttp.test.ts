import request from 'supertest';
import { Op } from 'sequelize';
import { App, Task } from '../../db/models';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { jiraSignature } from '../support/peers/jira/deliveries';
import { commentCreated, issueCreated, kintoneIssueRemoved, linearDelivery, LinearDelivery } from '../support/peers/linear/webhooks';
import { withSecret } from '../support/webhooks';

/**
 * `POST /ingest/linear/{app_id}` over HTTP (docs/trackers.md#linear): Linear's own deliveries (test/support/peers/linear),
 * signed as Linear documents, through the apps' router; every refusal stores nothing (rows counted around it).
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_BODY_LIMIT_KB: '32' });
});
afterAll(async () => t.close());

const send = (appId: string, d: LinearDelivery) => request(t.runtime.app).post(`/ingest/linear/${appId}`).set(d.headers).send(d.body.toString('utf8'));

async function linearApp() {
  const { app, secret } = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'linear', { name: `Linear ${unique()}` }));
  return { id: app.id, secret, delivery: (payload = issueCreated, options: { id?: string } = {}) => linearDelivery(payload, secret, { sentAt: new Date(), ...options }) };
}

const tasksOf = (appId: string) => Task.count({ where: { app_id: appId } });
const board = String((issueCreated.data as { team: { key: string } }).team.key);

test('a signed issue is stored once, placed when its team is mapped, and gone when Linear removes it', async () => {
  const app = await linearApp();
  const delivery = app.delivery();
  const first = await send(app.id, delivery);
  expect(first.status).toBe(200);
  expect(first.body.data).toMatchObject({ event: 'Issue:create', result: 'applied', tasks: [{ result: 'created' }] });
  expect((await send(app.id, delivery)).body.data).toEqual({ delivery_id: delivery.headers['linear-delivery'], event: 'Issue:create', result: 'duplicate', tasks: [] });
  expect(await tasksOf(app.id)).toBe(1);

  await t.runtime.writers.apps.map(app.id, board, { teamId: DEMO.teams.platform });
  const token = await t.token({ user: DEMO.users.grace });
  const listed = await t.get(`/v1/teams/${DEMO.teams.platform}/tasks?per_page=100`, token);
  expect(listed.body.data.map((task: { title: string }) => task.title)).toContain((issueCreated.data as { title: string }).title);

  const removed = { ...kintoneIssueRemoved, data: { ...(kintoneIssueRemoved.data as object), id: (issueCreated.data as { id: string }).id } };
  expect((await send(app.id, app.delivery(removed))).body.data).toMatchObject({ event: 'Issue:remove', tasks: [{ result: 'removed' }] });
  expect(await tasksOf(app.id)).toBe(0);
});

test('a comment is acknowledged and ignored (202)', async () => {
  const app = await linearApp();
  const answer = await send(app.id, app.delivery(commentCreated));
  expect([answer.status, answer.body.data.result]).toEqual([202, 'ignored']);
  expect(await tasksOf(app.id)).toBe(0);
});

test('refusals in the ingest format, nothing stored', async () => {
  const app = await linearApp();
  const before = await Task.count({ where: { app_id: { [Op.ne]: null } } });
  const refused = async (d: LinearDelivery, appId = app.id) => {
    const answer = await send(appId, d);
    return [answer.status, answer.body.status, answer.body.error?.code] as const;
  };
  const wrongSecret = linearDelivery(issueCreated, 'not the secret', { sentAt: new Date() });
  expect(await refused(wrongSecret)).toEqual([401, 'error', 'UNAUTHORIZED']);
  expect((await send(app.id, wrongSecret)).body.error.message).toBe(
    "Linear-Signature does not match the body: the Linear webhook's signing secret differs from the app's (store Linear's with npm run apps -- set-secret)",
  );
  const unsigned = app.delivery();
  delete unsigned.headers['linear-signature'];
  expect(await refused(unsigned)).toEqual([401, 'error', 'UNAUTHORIZED']);
  // Linear makes the signing secret in its settings: the refusal says how to store it (docs/trackers.md#linear).
  expect((await send(app.id, unsigned)).body.error.message).toBe(
    "Missing Linear-Signature: store the signing secret Linear shows on the webhook's page in this app (npm run apps -- set-secret --app <app id> --secret-file <file>)",
  );
  const stale = linearDelivery(issueCreated, app.secret, { sentAt: new Date(Date.now() - 5 * 60_000) });
  const staleAnswer = await send(app.id, stale);
  expect([staleAnswer.status, staleAnswer.body.error.message]).toEqual([400, expect.stringContaining('stale delivery')]);
  const unnamed = app.delivery();
  delete unnamed.headers['linear-delivery'];
  expect(await refused(unnamed)).toEqual([400, 'error', 'VALIDATION_ERROR']);
  // A Jira delivery sent here: its own header says where it belongs.
  const jira = app.delivery();
  jira.headers['x-atlassian-webhook-identifier'] = unique();
  jira.headers['x-hub-signature'] = jiraSignature(app.secret, jira.body.toString('utf8'));
  const misdirected = await send(app.id, jira);
  expect([misdirected.status, misdirected.body.error.message]).toEqual([400, expect.stringContaining('/ingest/jira/')]);
  expect(await refused(app.delivery(), 'app_nobody')).toEqual([404, 'error', 'NOT_FOUND']);
  // The demo's Linear app was never given a secret: the refusal names both ways to give it one.
  const secretless = await App.findOne({ where: { provider: 'linear', webhook_secret: null } });
  const noSecret = await send(secretless!.id, app.delivery());
  expect([noSecret.status, noSecret.body.error.message]).toEqual([
    401,
    `App ${secretless!.id} has no webhook secret yet: store the one its provider made (Linear, Slack and PagerDuty make their own) with npm run apps -- set-secret --app ${secretless!.id} --secret-file <file>, or make one with npm run apps -- rotate-secret ${secretless!.id}`,
  ]);
  const jiraApp = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` }));
  expect((await refused(app.delivery(), jiraApp.app.id))[0]).toBe(400);
  const big = linearDelivery({ ...issueCreated, padding: 'x'.repeat(40 * 1024) }, app.secret, { sentAt: new Date() });
  expect((await refused(big))[0]).toBe(413);
  await t.runtime.writers.apps.setActive(app.id, false);
  expect(await refused(app.delivery())).toEqual([403, 'error', 'FORBIDDEN']);
  expect(await Task.count({ where: { app_id: { [Op.ne]: null } } })).toBe(before);
});
