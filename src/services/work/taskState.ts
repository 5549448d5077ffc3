import type { Attributes } from 'sequelize';
import type { Task, TaskStatusChange } from '../../../db/models';
import { newId } from '../../persistence/changes/ids';
import { flowFacts } from '../../../db/rollups/flowFacts';
import type { InteractionInput } from '../activity/interactions';
import { clip, LIMITS } from '../git/text';
import type { SourceContext } from './tasks';
import type { TaskInput, TaskResult } from './taskInput';

export type TaskRow = Attributes<Task>;
export type StatusChangeRow = Attributes<TaskStatusChange>;
/** What the writer reads of a stored change: enough to know it again and to derive the flow facts. */
export type KnownChange = Pick<StatusChangeRow, 'external_id' | 'to_name' | 'from_status' | 'to_status' | 'at'>;

/** One issue of a source as stored, then as the events of a change leave it. */
export interface IssueState {
  /** When its provider deleted it: a state no newer than this brings nothing back. */
  removedAt: Date | null;
  task: TaskRow | null;
  /** The task's history, stored and added. */
  history: KnownChange[];
  /** The changes this change adds to the history of `task`. */
  added: StatusChangeRow[];
}

/** What the events of one change do beyond the issues' own rows. */
export interface ChangeEffects {
  /** Assignments by one member to another, recorded with the change. */
  interactions: InteractionInput[];
  /** Whether any task was created, changed or removed (its data version goes up). */
  wrote: boolean;
}

/** The parent's task id, for a provider id: an issue of this change as it stands now, else one stored before. */
export type ParentLookup = (externalId: string) => string | null;

/**
 * One task as its provider shows it now (docs/trackers.md#trackers), applied to its issue's state. A state older than
 * the stored one (by the provider's update time), or not newer than its removal, changes nothing but the history it
 * brings. Whatever arrives, the history is kept (each change once) and the flow facts derived again from all of it.
 */
export function upsertTask(state: IssueState, ctx: SourceContext, input: TaskInput, parentOf: ParentLookup, effects: ChangeEffects): TaskResult {
  if (state.removedAt && state.removedAt >= input.updatedAt) return 'stale';
  const existing = state.task;
  const stale = existing?.provider_updated_at ? existing.provider_updated_at > input.updatedAt : false;
  const fields = {
    team_id: ctx.teams.get(input.board) ?? null,
    organization_id: ctx.source.organizationId,
    title: clip(input.title, LIMITS.title),
    type: input.type,
    status: ctx.categories(input.statusName, input.statusCategory) ?? input.statusCategory,
    assignee_id: ctx.accounts.find(input.assignee),
    parent_id: input.parentExternalId ? parentOf(input.parentExternalId) : null,
    parent_external_id: input.parentExternalId ? clip(input.parentExternalId, 100) : null,
    story_points: input.storyPoints === null ? null : Math.round(input.storyPoints),
    created_at: input.createdAt,
    board_key: input.board,
    status_name: clip(input.statusName, LIMITS.name),
    provider_updated_at: input.updatedAt,
  };
  const shown: TaskRow = stale && existing ? existing : { ...(existing ?? newTask(ctx, input.externalId)), ...fields };
  const history = existing ? state.history : [];
  const fresh = newChanges(shown.id, ctx, input, history);
  const resolvedAt = stale ? shown.completed_at : input.resolvedAt;
  const task = { ...shown, ...flowFacts({ status: shown.status, createdAt: shown.created_at, resolvedAt, updatedAt: shown.provider_updated_at ?? shown.created_at }, [...history, ...fresh]) };
  state.removedAt = null;
  if (stale && fresh.length === 0) return 'stale';
  const changed = !existing || !sameRow(existing, task);
  if (changed) state.task = task;
  state.history = [...history, ...fresh];
  state.added = existing ? [...state.added, ...fresh] : fresh;
  if (!stale) assignment(ctx, task, input, effects);
  if (!changed && fresh.length === 0) return 'unchanged';
  effects.wrote = true;
  return !existing ? 'created' : stale ? 'stale' : 'updated';
}

/** The provider deleted the issue at `at`: no task in lists or figures, and no older state brings it back. */
export function removeTask(state: IssueState, at: Date, effects: ChangeEffects): TaskResult {
  if (state.removedAt) {
    if (state.removedAt < at) state.removedAt = at;
    return 'unchanged';
  }
  state.removedAt = at;
  if (!state.task) return 'unknown';
  Object.assign(state, { task: null, history: [], added: [] });
  effects.wrote = true;
  return 'removed';
}

function newTask(ctx: SourceContext, externalId: string): TaskRow {
  return {
    id: newId('task'),
    app_id: ctx.source.appId,
    external_id: externalId,
    team_id: null,
    organization_id: ctx.source.organizationId,
    title: '',
    type: 'task',
    status: 'backlog',
    assignee_id: null,
    parent_id: null,
    parent_external_id: null,
    story_points: null,
    created_at: new Date(0),
    board_key: null,
    status_name: null,
    provider_updated_at: null,
    completed_at: null,
    started_at: null,
    canceled_at: null,
    backlog_seconds: null,
    active_seconds: null,
    paused_seconds: null,
    status_changes: 0,
  };
}

/** The changes of status this input brings that the history does not hold yet, with the categories they mean for this app now. */
function newChanges(taskId: string, ctx: SourceContext, input: TaskInput, history: KnownChange[]): StatusChangeRow[] {
  const known = new Set(history.map((s) => s.external_id));
  const fresh: StatusChangeRow[] = [];
  for (const t of input.transitions) {
    const row: StatusChangeRow = {
      task_id: taskId,
      external_id: clip(t.externalId, 200),
      organization_id: ctx.source.organizationId,
      from_name: t.fromName === null ? null : clip(t.fromName, LIMITS.name),
      to_name: clip(t.toName, LIMITS.name),
      from_category: t.fromCategory,
      to_category: t.toCategory,
      from_status: ctx.categories(t.fromName, t.fromCategory),
      to_status: ctx.categories(t.toName, t.toCategory) ?? t.toCategory,
      at: t.at,
    };
    if (known.has(row.external_id) || history.some((s) => sameChange(s, row))) continue;
    known.add(row.external_id);
    fresh.push(row);
  }
  return fresh;
}

/**
 * One change seen by two routes under two ids: a Linear webhook names a change by the states and time it shows, its
 * API by the history entry's id. Into the same status within a few seconds is the same change.
 */
const SAME_CHANGE_MS = 5_000;
const sameChange = (a: { to_name: string; at: Date }, b: { to_name: string; at: Date }) => a.to_name === b.to_name && Math.abs(a.at.getTime() - b.at.getTime()) <= SAME_CHANGE_MS;

function sameRow(a: TaskRow, b: TaskRow): boolean {
  const before = new Map<string, unknown>(Object.entries(a));
  return Object.entries(b).every(([k, y]: [string, unknown]) => {
    const x = before.get(k);
    return x instanceof Date && y instanceof Date ? x.getTime() === y.getTime() : x === y;
  });
}

/** A task assigned to a member by another member is a `task_assignment` interaction: assigner → assignee. */
function assignment(ctx: SourceContext, task: TaskRow, input: TaskInput, effects: ChangeEffects): void {
  const made = input.assignment;
  const by = made ? ctx.accounts.find(made.by) : null;
  if (!made || !by || !task.assignee_id) return;
  effects.interactions.push({
    organizationId: task.organization_id,
    type: 'task_assignment',
    source: ctx.source.provider,
    userId: by,
    counterpartId: task.assignee_id,
    teamId: task.team_id,
    at: made.at,
    ref: `assign:${ctx.source.appId}:${clip(made.externalId, 150)}`,
  });
}
