import { randomBytes } from 'node:crypto';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox } from '../../src/secrets/secretBox';
import { AppWriter } from '../../src/services/apps/apps';
import type { StatusTransition, TaskInput, TaskSource } from '../../src/services/work/taskInput';
import { TaskWriter } from '../../src/services/work/taskWriter';
import type { TaskStatus } from '../../db/models';
import { callerFor } from '../support/callers';
import { createLab } from '../support/data/metricsHistory';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { providerCatalog } from '../../src/integrations/catalog';

/**
 * The flow figures that stand on the tasks' status history (docs/metrics.md#flow), on a small history written
 * through the task writer into a fresh organization. Its Jira board CORE is mapped to team Core; OPS is not mapped
 * (its tasks are the organization's only). Hours count from Tuesday 2026-09-01 00:00 UTC; the window is
 * September 1 to 7 (hours 0 to 168); "now" is September 10 00:00 (hour 216).
 *
 *   task  board type  assignee  history (hour: to status)                       state now
 *   A     CORE  story ada       created −24; 0 active; 10 paused; 16 active; 30 done          done
 *   B     CORE  bug   ada       created 0; 2 active; 8 done; 50 active (reopened); 60 done   done
 *   C     OPS   task  nobody    created 12, resolved 36, no history                          done
 *   D     CORE  story ada       created 4; 6 active; 20 canceled                             canceled
 *   E     CORE  task  nobody    created 40; 100 active                                       active
 *   F     OPS   story nobody    created 50, no history                                       backlog
 *   G     OPS   bug   ada       created 120, no history                                      active
 *   H     CORE  story ada       created 70; 80 done (never active)                           done
 *   I     CORE  story ada       created −100; −90 active; −50 done (before the window)       done
 *
 * Completed in the window: A (hour 30), B (60: its last move to done), C (36), H (80); D was canceled, not completed.
 *   lead time (completed − created):           A 54, B 60, C 24, H 10
 *   cycle time (completed − first active, or
 *   created with no history or never active):  A 30, B 58, C 24, H 10
 *   time in status (seconds the writer keeps, up to completion; done time between B's two completions is none):
 *     A backlog 24 h, active 10 + 14 = 24 h, paused 6 h; B backlog 2 h, active 6 + 10 = 16 h, paused 0; H backlog 10 h,
 *     active 0, paused 0; C has no history.
 */
let t: TestApp;
let token: string;
let organizationId: string;
let core: string;

const HOUR = 3_600_000;
const START = Date.parse('2026-09-01T00:00:00Z');
const at = (hours: number) => new Date(START + hours * HOUR);
const NOW = at(216);
const WINDOW = { from: '2026-09-01', to: '2026-09-07' };

const NAMES: Record<TaskStatus, string> = { backlog: 'To Do', active: 'In Progress', paused: 'Blocked', done: 'Done', canceled: "Won't Do" };

interface Spec {
  key: string;
  board: 'CORE' | 'OPS';
  type: TaskInput['type'];
  ada: boolean;
  created: number;
  /** The moves of its history, in order; the task's state now is the last one's, or `status`. */
  moves: [number, TaskStatus][];
  status?: TaskStatus;
  resolved?: number;
}

const TASKS: Spec[] = [
  { key: 'A', board: 'CORE', type: 'story', ada: true, created: -24, moves: [[0, 'active'], [10, 'paused'], [16, 'active'], [30, 'done']] },
  { key: 'B', board: 'CORE', type: 'bug', ada: true, created: 0, moves: [[2, 'active'], [8, 'done'], [50, 'active'], [60, 'done']] },
  { key: 'C', board: 'OPS', type: 'task', ada: false, created: 12, moves: [], status: 'done', resolved: 36 },
  { key: 'D', board: 'CORE', type: 'story', ada: true, created: 4, moves: [[6, 'active'], [20, 'canceled']] },
  { key: 'E', board: 'CORE', type: 'task', ada: false, created: 40, moves: [[100, 'active']] },
  { key: 'F', board: 'OPS', type: 'story', ada: false, created: 50, moves: [], status: 'backlog' },
  { key: 'G', board: 'OPS', type: 'bug', ada: true, created: 120, moves: [], status: 'active' },
  { key: 'H', board: 'CORE', type: 'story', ada: true, created: 70, moves: [[80, 'done']] },
  { key: 'I', board: 'CORE', type: 'story', ada: true, created: -100, moves: [[-90, 'active'], [-50, 'done']] },
];

function input(spec: Spec): TaskInput {
  let from: TaskStatus = 'backlog';
  const transitions: StatusTransition[] = spec.moves.map(([hour, to], i) => {
    const move = { externalId: `${spec.key}-${i}`, fromName: NAMES[from], fromCategory: from, toName: NAMES[to], toCategory: to, at: at(hour) };
    from = to;
    return move;
  });
  const status = spec.status ?? from;
  const last = spec.moves.at(-1)?.[0] ?? spec.resolved ?? spec.created;
  return {
    board: spec.board,
    externalId: spec.key,
    title: `Task ${spec.key}`,
    type: spec.type,
    statusName: NAMES[status],
    statusCategory: status,
    assignee: spec.ada ? { externalId: 'jira-ada', email: DEMO.emails.ada } : null,
    storyPoints: 2,
    parentExternalId: null,
    createdAt: at(spec.created),
    updatedAt: at(last),
    resolvedAt: spec.resolved === undefined ? null : at(spec.resolved),
    transitions,
  };
}

beforeAll(async () => {
  t = await startTestApp({}, { clock: () => NOW });
  const { lab } = await createLab(t, 'Flow lab');
  ({ organizationId, core } = lab);
  const changes = ChangeRunner.for(t.runtime.sequelize);
  const apps = new AppWriter(changes, new SecretBox(randomBytes(32)), providerCatalog());
  const { app } = await apps.create(organizationId, 'jira', { name: 'Flow lab Jira' });
  await apps.map(app.id, 'CORE', { teamId: core });
  const source: TaskSource = { appId: app.id, organizationId, provider: 'jira', accounts: 'app' };
  await new TaskWriter(changes, () => NOW).importPage(source, TASKS.map(input));
  token = await t.token();
});
afterAll(async () => t.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the figures' shape is the FlowMetrics schema's, checked on the wire elsewhere
async function flow(query: Record<string, string>): Promise<any> {
  const caller = await callerFor(t, token);
  return (await caller.metrics.flow(query)).data;
}

test('the organization: lead and cycle time, efficiency, time in status, rework, cancellation, work in progress', async () => {
  expect(await flow({ organization_id: organizationId, ...WINDOW })).toEqual({
    scope: { organization_id: organizationId, team_id: null, repositories: 'all' },
    ...WINDOW,
    interval: null,
    // A, B, C, H.
    completed: 4,
    // [10, 24, 54, 60]: median rank ⌈0.5·4⌉ = 2, p75 rank 3, p90 rank ⌈3.6⌉ = 4.
    lead_time_hours: { median: 24, p75: 54, p90: 60 },
    // [10, 24, 30, 58]: C counts from its creation (no history), H too (never active).
    cycle_time_hours: { median: 24, p75: 30, p90: 58 },
    // A, B and H; C has none.
    completed_with_history: 3,
    // Active A 24 + B 16 + H 0 = 40 h over active or paused 30 + 16 + 0 = 46 h: 0.869565…
    flow_efficiency: 0.8696,
    // Backlog [2, 10, 24], active [0, 16, 24], paused [0, 0, 6]: rank 2 of each.
    time_in_status_hours: { backlog: 10, active: 16, paused: 0 },
    // B, reopened at hour 50.
    reworked: 1,
    // D, at hour 20.
    canceled: 1,
    // E and G.
    in_progress_now: 2,
    // G 216 − 120 = 96 (no history: from its creation), E 216 − 100 = 116: median rank 1, p90 rank 2.
    wip_age_hours: { median: 96, p90: 116 },
    // E (active) and F (backlog); C is done, D canceled.
    unassigned_now: 2,
    by_type: { story: 2, bug: 1, task: 1, epic: 0 },
  });
});

test('the team: its board only, and the daily series of the window figures', async () => {
  const data = await flow({ team_id: core, ...WINDOW, interval: 'day' });
  const none = { median: null, p75: null, p90: null };
  const noTypes = { story: 0, bug: 0, task: 0, epic: 0 };
  expect(data).toEqual({
    scope: { organization_id: organizationId, team_id: core, repositories: 'authored' },
    ...WINDOW,
    interval: 'day',
    // A, B, H.
    completed: 3,
    // [10, 54, 60]: median rank 2, p75 and p90 rank 3.
    lead_time_hours: { median: 54, p75: 60, p90: 60 },
    // [10, 30, 58].
    cycle_time_hours: { median: 30, p75: 58, p90: 58 },
    completed_with_history: 3,
    flow_efficiency: 0.8696,
    time_in_status_hours: { backlog: 10, active: 16, paused: 0 },
    reworked: 1,
    canceled: 1,
    // E alone (G and F are on the unmapped board).
    in_progress_now: 1,
    wip_age_hours: { median: 116, p90: 116 },
    unassigned_now: 1,
    by_type: { story: 2, bug: 1, task: 0, epic: 0 },
    series: [
      // D canceled at hour 20; B's first completion (hour 8) is not its completion: it was reopened.
      { start: '2026-09-01', completed: 0, lead_time_hours: none, cycle_time_hours: none, reworked: 0, canceled: 1, by_type: noTypes },
      { start: '2026-09-02', completed: 1, lead_time_hours: { median: 54, p75: 54, p90: 54 }, cycle_time_hours: { median: 30, p75: 30, p90: 30 }, reworked: 0, canceled: 0, by_type: { ...noTypes, story: 1 } },
      { start: '2026-09-03', completed: 1, lead_time_hours: { median: 60, p75: 60, p90: 60 }, cycle_time_hours: { median: 58, p75: 58, p90: 58 }, reworked: 1, canceled: 0, by_type: { ...noTypes, bug: 1 } },
      { start: '2026-09-04', completed: 1, lead_time_hours: { median: 10, p75: 10, p90: 10 }, cycle_time_hours: { median: 10, p75: 10, p90: 10 }, reworked: 0, canceled: 0, by_type: { ...noTypes, story: 1 } },
      ...['2026-09-05', '2026-09-06', '2026-09-07'].map((start) => ({ start, completed: 0, lead_time_hours: none, cycle_time_hours: none, reworked: 0, canceled: 0, by_type: noTypes })),
    ],
  });
});

test('a window with nothing completed: every figure of completed tasks is null, the "now" ones stay', async () => {
  expect(await flow({ organization_id: organizationId, from: '2026-08-01', to: '2026-08-07' })).toMatchObject({
    completed: 0,
    lead_time_hours: { median: null, p75: null, p90: null },
    cycle_time_hours: { median: null, p75: null, p90: null },
    completed_with_history: 0,
    flow_efficiency: null,
    time_in_status_hours: { backlog: null, active: null, paused: null },
    reworked: 0,
    canceled: 0,
    in_progress_now: 2,
    unassigned_now: 2,
  });
});
