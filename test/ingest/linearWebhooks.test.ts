import { randomBytes, randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import { App, Interaction, Task, TaskStatusChange } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox } from '../../src/secrets/secretBox';
import { AppWriter } from '../../src/services/apps/apps';
import type { TaskSource } from '../../src/services/work/taskInput';
import { TaskWriter } from '../../src/services/work/taskWriter';
import { linearWebhook } from '../../src/integrations/linear/webhook';
import { bodyAuthentication, withSecret } from '../support/webhooks';
import { copy } from '../support/peers/ingest';
import { issueHook } from '../support/peers/gitlabPayloads';
import {
  commentCreated,
  issueCreated,
  issueDescriptionUpdated,
  kintoneIssueCreated,
  kintoneIssueRemoved,
  kintoneIssueUpdated,
  linearDelivery,
  LinearDelivery,
  linearSignature,
} from '../support/peers/linear/webhooks';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { providerCatalog } from '../../src/integrations/catalog';

/**
 * Linear's webhooks (docs/trackers.md#linear) through `linearWebhook` and the TaskWriter, with deliveries Linear sent
 * (test/support/peers/linear/webhooks.ts): who may deliver, what a body means, and what is stored in the end.
 */
let t: TestApp;
let tasks: TaskWriter;
let apps: AppWriter;
/** The app a parse-only test names (Linear's parse does not read it). */
let anyApp: App;
beforeAll(async () => {
  t = await startTestApp();
  const changes = ChangeRunner.for(t.runtime.sequelize);
  tasks = new TaskWriter(changes);
  apps = new AppWriter(changes, new SecretBox(randomBytes(32)), providerCatalog());
  anyApp = (withSecret(await apps.create(DEMO.orgs.acme, 'linear', { name: `Linear ${randomUUID().slice(0, 8)}` }))).app;
});
afterAll(async () => t.close());

interface LinearApp {
  source: TaskSource;
  secret: string;
  /** Authenticates, parses and stores a delivery as the ingest router does; `now` defaults to its dispatch time. */
  deliver(d: LinearDelivery, now?: Date): ReturnType<typeof receive>;
}

async function linearApp(): Promise<LinearApp> {
  const { app, secret } = withSecret(await apps.create(DEMO.orgs.acme, 'linear', { name: `Linear ${randomUUID().slice(0, 8)}` }));
  const source: TaskSource = { appId: app.id, organizationId: app.organization_id, provider: 'linear', accounts: 'app' };
  return { source, secret, deliver: (d, now) => receive(source, app, secret, d, now) };
}

async function receive(source: TaskSource, app: App, secret: string, d: LinearDelivery, now?: Date) {
  bodyAuthentication(linearWebhook)(d.headers, d.body, [secret], now ?? new Date(JSON.parse(d.body.toString()).webhookTimestamp));
  const parsed = linearWebhook.parse({ headers: d.headers, body: d.body, settings: { pointsField: app.points_field } });
  if (!('tasks' in parsed)) return { event: parsed.event, result: 'ignored' as const, tasks: [] };
  return { event: parsed.event, ...(await tasks.receive({ source, id: parsed.id, event: parsed.event }, parsed.tasks)) };
}

const stored = (source: TaskSource, externalId: string) => Task.findOne({ where: { app_id: source.appId, external_id: externalId } });
const history = async (task: Task) =>
  (await TaskStatusChange.findAll({ where: { task_id: task.id }, order: [['at', 'ASC']] })).map((c) => [c.from_name, c.to_name, c.to_status, c.at.toISOString()]);

/** Linear's deliveries carry their dispatch time; the 2021 captures are stamped a few seconds after the change. */
const sentAfter = (payload: Record<string, any>, seconds = 2) => new Date(Date.parse(payload.data.updatedAt) + seconds * 1000);

const KINTONE_ISSUE = kintoneIssueCreated.data.id;
const TODO_ID = kintoneIssueUpdated.data.state.id;
const STARTED = { id: '5d1c7a52-6f0e-4d0b-9a53-0c3bf1f7d8a1', name: 'In Progress', color: '#f2c94c', type: 'started' };
const COMPLETED = { id: 'a4b1e7c0-3c55-4b8e-8a0c-5f7e2d9b6c14', name: 'Done', color: '#5e6ad2', type: 'completed' };
const CANCELED = { id: '9e3f0b6d-2a71-4c8e-b5d4-7a1c0e8f3b25', name: 'Canceled', color: '#95a2b3', type: 'canceled' };

/** The kintone issue moved on from Todo: a later update of Linear's own, in its shape. */
function moved(state: typeof STARTED, from: { stateId: string; updatedAt: string }, updatedAt: string, extra: Record<string, unknown> = {}) {
  const payload = copy(kintoneIssueUpdated);
  payload.createdAt = updatedAt;
  payload.data = { ...payload.data, stateId: state.id, state, updatedAt, ...extra };
  payload.updatedFrom = { updatedAt: from.updatedAt, stateId: from.stateId };
  return payload;
}

describe('authenticity: Linear-Signature, then webhookTimestamp', () => {
  const payload = issueDescriptionUpdated;
  const sentAt = new Date(payload.webhookTimestamp);

  test('the hex HMAC-SHA256 of the raw body with the secret (or a previous one still in grace) is accepted', () => {
    const d = linearDelivery(payload, 'current');
    expect(d.headers['linear-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['current'], sentAt)).not.toThrow();
    expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['next', 'current'], sentAt)).not.toThrow();
    // Upper-case hex is the same digest.
    const upper = { ...d.headers, 'linear-signature': d.headers['linear-signature'].toUpperCase() };
    expect(() => bodyAuthentication(linearWebhook)(upper, d.body, ['current'], sentAt)).not.toThrow();
  });

  test.each([
    ['a signature made with another secret', (d: LinearDelivery) => ({ ...d, headers: { ...d.headers, 'linear-signature': linearSignature('other', d.body) } })],
    ['no Linear-Signature', (d: LinearDelivery) => ({ ...d, headers: { ...d.headers, 'linear-signature': '' } })],
    ['a body changed after signing', (d: LinearDelivery) => ({ ...d, body: Buffer.from(d.body.toString().replace('Foobar', 'Foobaz')) })],
    ['a signature that is not hex', (d: LinearDelivery) => ({ ...d, headers: { ...d.headers, 'linear-signature': 'sha256=' + d.headers['linear-signature'] } })],
    ['a truncated signature', (d: LinearDelivery) => ({ ...d, headers: { ...d.headers, 'linear-signature': d.headers['linear-signature'].slice(0, 62) } })],
  ])('%s is unauthenticated (401), whatever the body says', (_, tamper) => {
    const d = tamper(linearDelivery(payload, 'current'));
    expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['current'], sentAt)).toThrow(expect.objectContaining({ kind: 'unauthenticated' }));
  });

  test('a delivery sent more than 60 s before or after now is refused as stale (400), once it is known to be Linear', () => {
    const d = linearDelivery(payload, 'current');
    const at = (ms: number) => new Date(sentAt.getTime() + ms);
    expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['current'], at(59_000))).not.toThrow();
    expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['current'], at(-59_000))).not.toThrow();
    for (const skew of [61_000, -61_000, 3_600_000]) {
      expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['current'], at(skew))).toThrow(
        expect.objectContaining({ kind: 'invalid', message: expect.stringMatching(/^stale delivery: webhookTimestamp 2023-07-11T13:36:45\.387Z is more than 60 s from now .*check the server clock or replay$/) }),
      );
    }
    // The signature is checked first: a stale body with a wrong signature says nothing of its timestamp.
    expect(() => bodyAuthentication(linearWebhook)(d.headers, d.body, ['other'], at(3_600_000))).toThrow(expect.objectContaining({ kind: 'unauthenticated' }));
  });

  test('a signed body without webhookTimestamp, or not JSON, is not a Linear delivery (400)', () => {
    for (const body of [Buffer.from(JSON.stringify(kintoneIssueCreated)), Buffer.from('not json')]) {
      const headers = { 'linear-signature': linearSignature('current', body) };
      expect(() => bodyAuthentication(linearWebhook)(headers, body, ['current'], sentAt)).toThrow(expect.objectContaining({ kind: 'invalid' }));
    }
  });
});

describe('what a body means', () => {
  test('an Issue is a task on its team key; the delivery id is Linear-Delivery and the event type:action', () => {
    const d = linearDelivery(issueCreated, 's', { id: 'f0e6cb3a-7b8c-4d55-9a4e-1f2f3c4d5e6f' });
    const parsed = linearWebhook.parse({ headers: d.headers, body: d.body, settings: { pointsField: anyApp.points_field } });
    expect(parsed).toMatchObject({ id: 'f0e6cb3a-7b8c-4d55-9a4e-1f2f3c4d5e6f', event: 'Issue:create' });
    expect('tasks' in parsed && { tasks: parsed.tasks }).toEqual({
      tasks: [
        {
          kind: 'upsert',
          task: {
            board: 'POR',
            externalId: 'd62a755d-5389-4dbd-98bb-3db03f239d9d',
            title: 'New issue again',
            type: 'task',
            statusName: 'Todo',
            statusCategory: 'backlog',
            assignee: null,
            storyPoints: null,
            parentExternalId: null,
            createdAt: new Date('2024-05-19T17:55:29.277Z'),
            updatedAt: new Date('2024-05-19T17:55:29.277Z'),
            resolvedAt: null,
            transitions: [],
          },
        },
      ],
    });
  });

  test('other types (a comment) are acknowledged and ignored', () => {
    const d = linearDelivery(commentCreated, 's');
    expect(linearWebhook.parse({ headers: d.headers, body: d.body, settings: { pointsField: anyApp.points_field } })).toMatchObject({ event: 'Comment:create', ignored: 'Linear Comment changes are not stored; only Issues are' });
  });

  test('another provider’s body, a missing Linear-Delivery or an Issue without its fields is refused (400) saying what is wrong', () => {
    const gitlab = linearDelivery(issueHook, 's');
    expect(() => linearWebhook.parse({ headers: gitlab.headers, body: gitlab.body, settings: { pointsField: anyApp.points_field } })).toThrow(expect.objectContaining({ kind: 'invalid', message: expect.stringMatching(/^Not a Linear webhook payload: /) }));
    const anonymous = linearDelivery(issueCreated, 's');
    delete anonymous.headers['linear-delivery'];
    expect(() => linearWebhook.parse({ headers: anonymous.headers, body: anonymous.body, settings: { pointsField: anyApp.points_field } })).toThrow(expect.objectContaining({ kind: 'invalid', message: expect.stringContaining('Linear-Delivery') }));
    const stateless = copy(issueCreated);
    delete stateless.data.state;
    const d = linearDelivery(stateless, 's');
    expect(() => linearWebhook.parse({ headers: d.headers, body: d.body, settings: { pointsField: anyApp.points_field } })).toThrow(expect.objectContaining({ kind: 'invalid', message: expect.stringMatching(/^Not a Linear Issue webhook payload: data\.state: /) }));
  });
});

describe('stored through the TaskWriter', () => {
  test('out of order and redelivered, one issue ends as one task in its final state with its whole history once', async () => {
    const app = await linearApp();
    const created = kintoneIssueCreated;
    const todo = kintoneIssueUpdated;
    const started = moved(STARTED, { stateId: TODO_ID, updatedAt: todo.data.updatedAt }, '2021-01-30T12:00:00.000Z', { estimate: 3 });
    const done = moved(COMPLETED, { stateId: STARTED.id, updatedAt: '2021-01-30T12:00:00.000Z' }, '2021-01-30T15:00:00.000Z', { estimate: 3, completedAt: '2021-01-30T15:00:00.000Z' });
    const deliveries = [created, todo, started, done].map((p) => linearDelivery(p, app.secret, { sentAt: sentAfter(p) }));

    const results = [];
    for (const i of [3, 0, 2, 1]) results.push(await app.deliver(deliveries[i]));
    expect(results.map((r) => r.tasks[0]?.result)).toEqual(['created', 'stale', 'stale', 'stale']);
    // Linear retries a delivery with the same Linear-Delivery, stamped and signed anew: nothing changes.
    const retry = linearDelivery(done, app.secret, { sentAt: sentAfter(done, 600), id: deliveries[3].headers['linear-delivery'] });
    expect(await app.deliver(retry)).toMatchObject({ result: 'duplicate', tasks: [] });
    // The same change sent again as a new delivery adds nothing either.
    expect((await app.deliver(linearDelivery(started, app.secret, { sentAt: sentAfter(started) }))).tasks).toEqual([{ external_id: KINTONE_ISSUE, result: 'stale' }]);

    const task = (await stored(app.source, KINTONE_ISSUE))!;
    expect(task).toMatchObject({ status: 'done', status_name: 'Done', board_key: 'KOR', story_points: 3, type: 'task', status_changes: 3, title: 'webhook test' });
    expect(task.started_at).toEqual(new Date('2021-01-30T12:00:00.000Z'));
    expect(task.completed_at).toEqual(new Date('2021-01-30T15:00:00.000Z'));
    // Linear names only the previous state's id: its name stays unknown.
    expect(await history(task)).toEqual([
      [null, 'Todo', 'backlog', '2021-01-30T11:24:17.747Z'],
      [null, 'In Progress', 'active', '2021-01-30T12:00:00.000Z'],
      [null, 'Done', 'done', '2021-01-30T15:00:00.000Z'],
    ]);
  });

  test("an issue's description is never stored: no row the delivery wrote holds it", async () => {
    const app = await linearApp();
    const secretText = `Customer ${randomUUID()} reported the outage`;
    const payload = copy(issueDescriptionUpdated);
    payload.data = { ...payload.data, description: secretText, descriptionData: JSON.stringify({ type: 'doc', content: [{ type: 'text', text: secretText }] }) };
    expect((await app.deliver(linearDelivery(payload, app.secret, { sentAt: sentAfter(payload) }))).result).toBe('applied');
    const task = (await stored(app.source, payload.data.id))!;
    const written = [
      task.get({ plain: true }),
      ...(await TaskStatusChange.findAll({ where: { task_id: task.id } })).map((c) => c.get({ plain: true })),
      ...(await Interaction.findAll({ where: { organization_id: app.source.organizationId, source_ref: { [Op.like]: `%${app.source.appId}%` } } })).map((i) => i.get({ plain: true })),
    ];
    expect(written[0]).toMatchObject({ title: payload.data.title });
    expect(JSON.stringify(written)).not.toContain(secretText.slice(9, 45));
  });

  test('a removed issue leaves no task, and an older delivery does not bring it back', async () => {
    const app = await linearApp();
    const removed = kintoneIssueRemoved;
    const earlier = copy(kintoneIssueCreated);
    earlier.data = { ...earlier.data, id: removed.data.id, createdAt: removed.data.createdAt, updatedAt: removed.data.updatedAt };
    await app.deliver(linearDelivery(earlier, app.secret, { sentAt: sentAfter(earlier) }));
    expect(await stored(app.source, removed.data.id)).not.toBeNull();
    const removal = await app.deliver(linearDelivery(removed, app.secret, { sentAt: new Date(Date.parse(removed.createdAt) + 1000) }));
    expect(removal).toMatchObject({ event: 'Issue:remove', result: 'applied', tasks: [{ external_id: removed.data.id, result: 'removed' }] });
    expect(await stored(app.source, removed.data.id)).toBeNull();
    expect((await app.deliver(linearDelivery(earlier, app.secret, { sentAt: sentAfter(earlier, 3) }))).tasks).toEqual([{ external_id: removed.data.id, result: 'stale' }]);
    expect(await stored(app.source, removed.data.id)).toBeNull();
  });

  test('a canceled state is canceled, never done; a bug label makes a bug; estimate and parent are kept', async () => {
    const app = await linearApp();
    const parent = copy(issueCreated);
    const child = copy(issueCreated);
    child.data = {
      ...child.data,
      id: '0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5',
      parentId: parent.data.id,
      estimate: 5,
      labels: [{ id: '402b218c-938c-4ddf-85db-0019bc632316', name: 'Bug', color: '#eb5757' }],
    };
    await app.deliver(linearDelivery(child, app.secret, { sentAt: sentAfter(child) }));
    await app.deliver(linearDelivery(parent, app.secret, { sentAt: sentAfter(parent) }));
    const canceled = copy(child);
    canceled.action = 'update';
    canceled.data = { ...canceled.data, stateId: CANCELED.id, state: CANCELED, updatedAt: '2024-05-20T09:00:00.000Z', canceledAt: '2024-05-20T09:00:00.000Z' };
    canceled.updatedFrom = { updatedAt: child.data.updatedAt, stateId: child.data.stateId, canceledAt: null };
    await app.deliver(linearDelivery(canceled, app.secret, { sentAt: sentAfter(canceled) }));

    const task = (await stored(app.source, child.data.id))!;
    expect(task).toMatchObject({ status: 'canceled', type: 'bug', story_points: 5, parent_id: (await stored(app.source, parent.data.id))!.id, completed_at: null });
    expect(task.canceled_at).toEqual(new Date('2024-05-20T09:00:00.000Z'));
    expect(await history(task)).toEqual([[null, 'Canceled', 'canceled', '2024-05-20T09:00:00.000Z']]);
  });

  test('an assignment by another member is a task_assignment interaction, once however often it is delivered', async () => {
    const app = await linearApp();
    const assignee = kintoneIssueUpdated.data.assigneeId;
    const actorId = '11c5ce7d-229b-4487-b23b-f404e4a8c85d';
    await apps.linkUser(app.source.appId, DEMO.users.linus, assignee);
    await apps.linkUser(app.source.appId, DEMO.emails.grace, actorId);
    // Linear now sends who acted, and lists the assignee an update replaced (none here) in updatedFrom.
    const assigned: Record<string, any> = { ...copy(kintoneIssueUpdated), actor: { ...issueCreated.actor, id: actorId } };
    assigned.updatedFrom.assigneeId = null;
    const sentAt = sentAfter(assigned);
    await app.deliver(linearDelivery(assigned, app.secret, { sentAt }));
    await app.deliver(linearDelivery(assigned, app.secret, { sentAt }));
    expect((await stored(app.source, KINTONE_ISSUE))!.assignee_id).toBe(DEMO.users.linus);
    const made = await Interaction.findAll({ where: { source_ref: `assign:${app.source.appId}:${KINTONE_ISSUE}:assignee@2021-01-30T11:24:17.747Z` } });
    expect(made.map((i) => [i.type, i.source, i.user_id, i.counterpart_id])).toEqual([['task_assignment', 'linear', DEMO.users.grace, DEMO.users.linus]]);

    // An update that leaves the assignee alone assigns nobody.
    const retitled = moved(STARTED, { stateId: TODO_ID, updatedAt: kintoneIssueUpdated.data.updatedAt }, '2021-01-30T13:00:00.000Z');
    await app.deliver(linearDelivery({ ...retitled, actor: assigned.actor }, app.secret, { sentAt: sentAfter(retitled) }));
    expect(await Interaction.count({ where: { source_ref: { [Op.like]: `assign:${app.source.appId}:%` } } })).toBe(1);
  });
});
