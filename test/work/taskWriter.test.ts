import { randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { Interaction, RemovedTask, Task, TaskStatusChange, UserApp } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox } from '../../src/secrets/secretBox';
import { AppWriter } from '../../src/services/apps/apps';
import type { StatusTransition, TaskInput, TaskSource } from '../../src/services/work/taskInput';
import { TaskWriter } from '../../src/services/work/taskWriter';
import { createSequelize } from '../../db/connection';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { providerCatalog } from '../../src/integrations/catalog';

/**
 * The one writer of tracker tasks (docs/trackers.md#trackers), below any transport: history, flow facts, order,
 * removal, placement by mapping, status overrides, identity and assignment interactions.
 */
let t: TestApp;
let tasks: TaskWriter;
let apps: AppWriter;
beforeAll(async () => {
  t = await startTestApp();
  const changes = ChangeRunner.for(t.runtime.sequelize);
  tasks = new TaskWriter(changes);
  apps = new AppWriter(changes, new SecretBox(randomBytes(32)), providerCatalog());
});
afterAll(async () => t.close());

const HOUR = 3_600_000;
const START = Date.parse('2026-09-01T00:00:00Z');
const at = (hours: number) => new Date(START + hours * HOUR);

async function newSource(): Promise<TaskSource> {
  const { app } = await apps.create(DEMO.orgs.acme, 'jira', { name: `Jira ${unique()}` });
  return { appId: app.id, organizationId: app.organization_id, provider: 'jira', accounts: 'app' };
}

const move = (id: string, from: [string, TaskInput['statusCategory']] | null, to: [string, TaskInput['statusCategory']], hours: number): StatusTransition => ({
  externalId: id,
  fromName: from?.[0] ?? null,
  fromCategory: from?.[1] ?? null,
  toName: to[0],
  toCategory: to[1],
  at: at(hours),
});

function issue(overrides: Partial<TaskInput> = {}): TaskInput {
  return {
    board: 'PLAT',
    externalId: '10001',
    title: 'Health checks',
    type: 'story',
    statusName: 'To Do',
    statusCategory: 'backlog',
    assignee: null,
    storyPoints: 3,
    parentExternalId: null,
    createdAt: at(0),
    updatedAt: at(0),
    resolvedAt: null,
    transitions: [],
    ...overrides,
  };
}

const stored = (source: TaskSource, externalId = '10001') => Task.findOne({ where: { app_id: source.appId, external_id: externalId } });
const deliver = (source: TaskSource, input: TaskInput, id = unique()) => tasks.receive({ source, id, event: 'jira:issue_updated' }, [{ kind: 'upsert', task: input }]);

const TODO: [string, 'backlog'] = ['To Do', 'backlog'];
const DOING: [string, 'active'] = ['In Progress', 'active'];
const BLOCKED: [string, 'active'] = ['Blocked', 'active'];
const DONE: [string, 'done'] = ['Done', 'done'];

test('a task keeps its history and the flow facts it gives: first active, time in each category, completion', async () => {
  const source = await newSource();
  await deliver(source, issue());
  await deliver(source, issue({ statusName: 'In Progress', statusCategory: 'active', updatedAt: at(10), transitions: [move('c1', TODO, DOING, 10)] }));
  await deliver(source, issue({ statusName: 'Blocked', statusCategory: 'active', updatedAt: at(14), transitions: [move('c2', DOING, BLOCKED, 14)] }));
  await deliver(source, issue({ statusName: 'Done', statusCategory: 'done', updatedAt: at(20), transitions: [move('c3', BLOCKED, DONE, 20)] }));
  const task = (await stored(source))!;
  expect(task).toMatchObject({ status: 'done', team_id: null, organization_id: DEMO.orgs.acme, status_changes: 3, backlog_seconds: 10 * 3600, active_seconds: 10 * 3600, paused_seconds: 0 });
  expect(task.started_at).toEqual(at(10));
  expect(task.completed_at).toEqual(at(20));

  // "Blocked" counted as paused from now on, for this task's past too.
  await deliver(source, issue({ externalId: 'untouched', statusName: 'In Progress', statusCategory: 'active', updatedAt: at(3), transitions: [move('u1', TODO, DOING, 3)] }));
  const untouched = (await stored(source, 'untouched'))!;
  expect(await apps.mapStatus(source.appId, 'BLOCKED', 'paused')).toEqual({ tasks: 1 });
  await task.reload();
  expect(task).toMatchObject({ active_seconds: 4 * 3600, paused_seconds: 6 * 3600 });
  const changes = await TaskStatusChange.findAll({ where: { task_id: task.id }, order: [['at', 'ASC']] });
  expect(changes.map((c) => [c.from_status, c.to_status])).toEqual([['backlog', 'active'], ['active', 'paused'], ['paused', 'done']]);
  expect((await untouched.reload()).get({ plain: true })).toEqual(untouched.get({ plain: true }));
});

test('deliveries out of order, and again, end in the newest state with the whole history once', async () => {
  const source = await newSource();
  const states = [
    issue(),
    issue({ statusName: 'In Progress', statusCategory: 'active', updatedAt: at(5), transitions: [move('c1', TODO, DOING, 5)] }),
    issue({ statusName: 'Done', statusCategory: 'done', updatedAt: at(9), transitions: [move('c2', DOING, DONE, 9)], title: 'Health checks, all services' }),
  ];
  for (const i of [2, 0, 1, 2, 1]) await deliver(source, states[i]);
  const task = (await stored(source))!;
  expect(task).toMatchObject({ status: 'done', title: 'Health checks, all services', status_changes: 2, backlog_seconds: 5 * 3600, active_seconds: 4 * 3600 });
  expect(await TaskStatusChange.count({ where: { task_id: task.id } })).toBe(2);

  // A redelivery (same id) changes nothing and says so.
  const id = unique();
  expect((await deliver(source, states[2], id)).result).toBe('applied');
  expect(await deliver(source, states[2], id)).toEqual({ result: 'duplicate', tasks: [] });
});

test('two instances storing deliveries of the same issues at once, each several times over: one task per issue, newest state, each change once', async () => {
  const source = await newSource();
  // A second instance: its own connection pool, change runner and writer, as another process of the service would have.
  const other = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
  try {
    const writers = [tasks, new TaskWriter(ChangeRunner.for(other))];
    const lives = ['1', '2', '3'].map((key) => [
      issue({ externalId: key }),
      issue({ externalId: key, statusName: 'In Progress', statusCategory: 'active', updatedAt: at(5), transitions: [move(`${key}-c1`, TODO, DOING, 5)] }),
      issue({ externalId: key, statusName: 'Done', statusCategory: 'done', updatedAt: at(9), transitions: [move(`${key}-c2`, DOING, DONE, 9)] }),
    ]);
    const sends = lives.flatMap((states, k) => states.flatMap((state, i) => [0, 1, 2].map((copy) => ({ state, id: `d-${k}-${i}`, writer: writers[(i + copy) % 2] }))));
    const answers = await Promise.all(sends.map(({ state, id, writer }) => writer.receive({ source, id, event: 'jira:issue_updated' }, [{ kind: 'upsert', task: state }])));
    expect(answers.filter((a) => a.result === 'applied')).toHaveLength(9);
    for (const key of ['1', '2', '3']) {
      const task = (await stored(source, key))!;
      expect(task).toMatchObject({ status: 'done', status_changes: 2, backlog_seconds: 5 * 3600, active_seconds: 4 * 3600 });
      expect((await TaskStatusChange.findAll({ where: { task_id: task.id }, order: [['at', 'ASC']] })).map((c) => c.external_id)).toEqual([`${key}-c1`, `${key}-c2`]);
    }
    expect(await Task.count({ where: { app_id: source.appId } })).toBe(3);
  } finally {
    await other.close();
  }
});

test('a removed task leaves no row, and an older delivery does not bring it back; a newer one does', async () => {
  const source = await newSource();
  await deliver(source, issue({ updatedAt: at(1) }));
  const removal = await tasks.receive({ source, id: unique(), event: 'jira:issue_deleted' }, [{ kind: 'remove', board: 'PLAT', externalId: '10001', at: at(2) }]);
  expect(removal.tasks).toEqual([{ external_id: '10001', result: 'removed' }]);
  expect(await stored(source)).toBeNull();
  expect((await deliver(source, issue({ updatedAt: at(1) }))).tasks).toEqual([{ external_id: '10001', result: 'stale' }]);
  expect(await stored(source)).toBeNull();
  expect((await deliver(source, issue({ updatedAt: at(3) }))).tasks).toEqual([{ external_id: '10001', result: 'created' }]);
  expect(await RemovedTask.count({ where: { app_id: source.appId } })).toBe(0);
});

test('an unmapped board keeps its tasks for the organization; mapping it places them, unmapping takes them back', async () => {
  const source = await newSource();
  await deliver(source, issue({ board: 'MOB', externalId: '1' }));
  expect((await stored(source, '1'))!.team_id).toBeNull();
  await apps.map(source.appId, 'MOB', { teamId: DEMO.teams.mobile });
  expect((await stored(source, '1'))!.team_id).toBe(DEMO.teams.mobile);
  await deliver(source, issue({ board: 'MOB', externalId: '2' }));
  expect((await stored(source, '2'))!.team_id).toBe(DEMO.teams.mobile);
  expect(await apps.unmap(source.appId, 'MOB')).toBe(true);
  expect((await stored(source, '2'))!.team_id).toBeNull();
  await expect(apps.map(source.appId, 'MOB', { teamId: DEMO.teams.globexCore })).rejects.toMatchObject({ kind: 'not_found' });
});

test('people: matched by e-mail (and linked), then by the linked account; an assignment by another member is an interaction', async () => {
  const source = await newSource();
  const linus = { externalId: `acc-${unique()}`, email: DEMO.emails.linus };
  const grace = { externalId: `acc-${unique()}`, email: DEMO.emails.grace };
  await deliver(source, issue({ assignee: linus, assignment: { externalId: 'a1', by: grace, at: at(1) }, updatedAt: at(1) }));
  const task = (await stored(source))!;
  expect(task.assignee_id).toBe(DEMO.users.linus);
  expect(await UserApp.findOne({ where: { app_id: source.appId, user_id: DEMO.users.linus } })).toMatchObject({ external_user_id: linus.externalId });
  const made = await Interaction.findAll({ where: { source_ref: `assign:${source.appId}:a1` } });
  expect(made.map((i) => [i.type, i.user_id, i.counterpart_id])).toEqual([['task_assignment', DEMO.users.grace, DEMO.users.linus]]);

  // Without the e-mail (Jira's privacy settings), the linked account still finds linus; an unknown one is nobody.
  await deliver(source, issue({ externalId: '2', assignee: { externalId: linus.externalId, email: null }, updatedAt: at(2) }));
  expect((await stored(source, '2'))!.assignee_id).toBe(DEMO.users.linus);
  await deliver(source, issue({ externalId: '3', assignee: { externalId: 'stranger', email: 'stranger@elsewhere.test' }, updatedAt: at(2) }));
  expect((await stored(source, '3'))!.assignee_id).toBeNull();
  // Assigning oneself is no interaction; the same assignment delivered again is not counted twice.
  await deliver(source, issue({ externalId: '4', assignee: linus, assignment: { externalId: 'a2', by: linus, at: at(3) }, updatedAt: at(3) }));
  await deliver(source, issue({ assignee: linus, assignment: { externalId: 'a1', by: grace, at: at(1) }, updatedAt: at(4) }));
  expect(await Interaction.count({ where: { source_ref: { [Op.like]: `assign:${source.appId}:%` } } })).toBe(1);
});

test('a child stored before its parent is placed under it when the parent arrives', async () => {
  const source = await newSource();
  await deliver(source, issue({ externalId: 'child', parentExternalId: 'epic' }));
  expect((await stored(source, 'child'))!.parent_id).toBeNull();
  await deliver(source, issue({ externalId: 'epic', type: 'epic' }));
  expect((await stored(source, 'child'))!.parent_id).toBe((await stored(source, 'epic'))!.id);
});

test('one change of status seen by a webhook and by an import, under two ids, is kept once', async () => {
  const source = await newSource();
  await deliver(source, issue({ statusName: 'In Progress', statusCategory: 'active', updatedAt: at(5), transitions: [move('state-a->state-b@5h', TODO, DOING, 5)] }));
  const imported = issue({ statusName: 'In Progress', statusCategory: 'active', updatedAt: at(5), transitions: [{ ...move('history-uuid-1', TODO, DOING, 5), at: new Date(at(5).getTime() + 800) }] });
  await tasks.importPage(source, [imported]);
  const task = (await stored(source))!;
  expect(await TaskStatusChange.count({ where: { task_id: task.id } })).toBe(1);
  expect(task.status_changes).toBe(1);
});

test('a board key or issue id longer than its column is refused whole, with nothing written', async () => {
  const source = await newSource();
  const tooLong = [issue({ externalId: 'ok-1' }), issue({ externalId: 'x'.repeat(101) })];
  await expect(tasks.receive({ source, id: unique(), event: 'jira:issue_created' }, tooLong.map((task) => ({ kind: 'upsert', task })))).rejects.toMatchObject({ kind: 'invalid' });
  await expect(tasks.importPage(source, [issue({ board: 'B'.repeat(201) })])).rejects.toMatchObject({ kind: 'invalid' });
  expect(await Task.count({ where: { app_id: source.appId } })).toBe(0);
});
