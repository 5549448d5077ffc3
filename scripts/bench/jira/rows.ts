/**
 * The rows the service writes for a Jira delivery (src/services/work/taskWriter.ts, tasks.ts), worked out once
 * before the load so the ingest floor (floor/ingest.ts) only writes them: the delivery's row in ingest_deliveries,
 * the task (inserted for a new issue, updated for a known one) with its status, status name and flow facts, and
 * the status changes its changelog brings. The body is read by the service's own translation (src/integrations/jira/tasks.ts)
 * and the facts derived by its own flowFacts, for a new app: no boards mapped, no status overrides, no accounts
 * linked (the deliveries carry no e-mail), so no team, no assignee and no interaction.
 */
import { format } from 'mysql2';
import { newId } from '../../../src/persistence/changes/ids';
import { clip, LIMITS } from '../../../src/services/git/text';
import { flowFacts, Transition } from '../../../db/rollups/flowFacts';
import { jiraWebhookTasks } from '../../../src/integrations/jira/tasks';
import type { BenchApp } from '../apps/ingest';

/** What the floor knows of the issues it has written so far, as the service reads it back from its rows. */
export type KnownTasks = Map<string, { id: string; history: Transition[] }>;

/** What one delivery becomes: its statements, in the writer's order, and how many rows of each kind. */
export interface JiraRowSet {
  statements: string[];
  created: boolean;
  statusChanges: number;
}

/** DATETIME(3) in UTC, as the API's Sequelize (timezone +00:00) writes it. */
const utc = (d: Date | null) => (d ? d.toISOString().slice(0, 23).replace('T', ' ') : null);

const insert = (table: string, row: Record<string, unknown>) => format(`INSERT INTO ${table} SET ?`, [row]);

/** The rows of one delivery to `app`, received at `receivedAt`; `known` gains what it writes. */
export function jiraRowSet(app: BenchApp, deliveryId: string, body: Buffer, receivedAt: Date, known: KnownTasks): JiraRowSet {
  const outcome = jiraWebhookTasks(JSON.parse(body.toString('utf8')), app.points_field);
  if ('ignored' in outcome) throw new Error(`the service would ignore a benchmark delivery: ${outcome.ignored}`);
  const [event, ...more] = outcome.tasks;
  if (!event || more.length || event.kind !== 'upsert') throw new Error('a benchmark delivery must store exactly one task');
  const input = event.task;
  const before = known.get(input.externalId);
  const taskId = before?.id ?? newId('task');
  // A new app has no status overrides: every status counts in the category Jira gives it.
  const changes = input.transitions.map((t) => ({
    task_id: taskId,
    external_id: clip(t.externalId, 200),
    organization_id: app.organization_id,
    from_name: t.fromName === null ? null : clip(t.fromName, LIMITS.name),
    to_name: clip(t.toName, LIMITS.name),
    from_category: t.fromCategory,
    to_category: t.toCategory,
    from_status: t.fromCategory,
    to_status: t.toCategory,
    at: t.at,
  }));
  const history = [...(before?.history ?? []), ...changes.map((c) => ({ from_status: c.from_status, to_status: c.to_status, at: c.at }))];
  known.set(input.externalId, { id: taskId, history });
  const facts = flowFacts({ status: input.statusCategory, createdAt: input.createdAt, resolvedAt: input.resolvedAt, updatedAt: input.updatedAt }, history);
  const fields = {
    team_id: null,
    organization_id: app.organization_id,
    title: clip(input.title, LIMITS.title),
    type: input.type,
    status: input.statusCategory,
    assignee_id: null,
    // A parent the app has not brought yet is known by its provider id until it arrives.
    parent_id: null,
    parent_external_id: input.parentExternalId ? clip(input.parentExternalId, 100) : null,
    story_points: input.storyPoints === null ? null : Math.round(input.storyPoints),
    created_at: utc(input.createdAt),
    board_key: input.board,
    status_name: clip(input.statusName, LIMITS.name),
    provider_updated_at: utc(input.updatedAt),
    completed_at: utc(facts.completed_at),
    canceled_at: utc(facts.canceled_at),
    started_at: utc(facts.started_at),
    backlog_seconds: facts.backlog_seconds,
    active_seconds: facts.active_seconds,
    paused_seconds: facts.paused_seconds,
    status_changes: facts.status_changes,
  };
  const task = before
    ? format('UPDATE tasks SET ? WHERE app_id = ? AND external_id = ?', [fields, app.id, input.externalId])
    : insert('tasks', { id: taskId, app_id: app.id, external_id: input.externalId, ...fields });
  return {
    statements: [
      insert('ingest_deliveries', { app_id: app.id, delivery_id: deliveryId, event: outcome.event, received_at: utc(receivedAt) }),
      task,
      ...changes.map((c) => insert('task_status_changes', { ...c, at: utc(c.at) })),
    ],
    created: !before,
    statusChanges: changes.length,
  };
}
