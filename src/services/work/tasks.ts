import { Op, Transaction } from 'sequelize';
import { AppBoard, AppStatusOverride, RemovedTask, Task, TaskStatusChange } from '../../../db/models';
import { invalid } from '../../errors';
import type { Change } from '../../persistence/changes/change';
import { newId } from '../../persistence/changes/ids';
import { recordInteractions } from '../activity/interactions';
import { clip, LIMITS } from '../git/text';
import type { AccountDirectory } from './accounts';
import { flowFacts, Transition } from '../../../db/rollups/flowFacts';
import { StatusCategories, statusCategories } from './statusHistory';
import type { TaskInput, TaskResult, TaskSource } from './taskInput';

/**
 * A board key or provider id longer than its column is no provider's (ids are cut nowhere: two cut alike would be
 * one task): refused before anything is written, whichever translator let it through.
 */
function storable(board: string | null, externalId: string): void {
  if (board !== null && board.length > 200) throw invalid('A board key (project, team or repository) has at most 200 characters');
  if (externalId.length > 100) throw invalid("An issue's id has at most 100 characters");
}

/** What every task of one source needs while a delivery or an import page is stored: read once. */
export interface SourceContext {
  source: TaskSource;
  categories: StatusCategories;
  /** Board key → team, for the boards mapped so far. */
  teams: Map<string, string | null>;
  accounts: AccountDirectory;
}

export async function sourceContext(source: TaskSource, boards: string[], accounts: AccountDirectory, transaction: Transaction): Promise<SourceContext> {
  const [overrides, mapped] = await Promise.all([
    AppStatusOverride.findAll({ where: { app_id: source.appId }, transaction }),
    AppBoard.findAll({ where: { app_id: source.appId, board_key: { [Op.in]: [...new Set(boards)] } }, attributes: ['board_key', 'team_id'], transaction }),
  ]);
  return {
    source,
    categories: statusCategories(new Map(overrides.map((o) => [o.status_name, o.category]))),
    teams: new Map(mapped.map((b) => [b.board_key, b.team_id])),
    accounts,
  };
}

/**
 * One task as its provider shows it now (docs/trackers.md#trackers). Its row is locked while it is read, so
 * concurrent deliveries of one issue apply one after the other; a state older than the stored one (by the
 * provider's update time), or not newer than its removal, changes nothing but the history it brings. Whatever
 * arrives, the history is kept (each change once) and the task's flow facts derived again from all of it.
 */
export async function recordTask(change: Change, ctx: SourceContext, input: TaskInput): Promise<TaskResult> {
  storable(input.board, input.externalId);
  const { transaction } = change;
  const { source } = ctx;
  const key = { app_id: source.appId, external_id: input.externalId };
  const removed = await RemovedTask.findOne({ where: key, transaction, lock: transaction.LOCK.UPDATE });
  if (removed && removed.removed_at >= input.updatedAt) return 'stale';
  const existing = await Task.findOne({ where: key, transaction, lock: transaction.LOCK.UPDATE });
  const stale = existing?.provider_updated_at ? existing.provider_updated_at > input.updatedAt : false;
  const status = ctx.categories(input.statusName, input.statusCategory) ?? input.statusCategory;
  const current = stale && existing ? existing : null;
  const fields = {
    team_id: ctx.teams.get(input.board) ?? null,
    organization_id: source.organizationId,
    title: clip(input.title, LIMITS.title),
    type: input.type,
    status,
    assignee_id: ctx.accounts.find(input.assignee),
    parent_id: input.parentExternalId ? await parentId(source, input.parentExternalId, transaction) : null,
    parent_external_id: input.parentExternalId ? clip(input.parentExternalId, 100) : null,
    story_points: input.storyPoints === null ? null : Math.round(input.storyPoints),
    created_at: input.createdAt,
    board_key: input.board,
    status_name: clip(input.statusName, LIMITS.name),
    provider_updated_at: input.updatedAt,
  };
  const task = current ?? existing ?? Task.build({ id: newId('task'), ...key, ...fields, completed_at: null });
  if (!current) task.set(fields);
  if (removed) await removed.destroy({ transaction });
  const { added, history } = await recordTransitions(task, ctx, input, transaction);
  deriveFacts(task, current ? task.completed_at : input.resolvedAt, history);
  if (stale && !added) return 'stale';
  const changed = !existing || task.changed() !== false;
  await task.save({ transaction });
  if (!existing) await adoptChildren(task, transaction);
  if (!stale) await recordAssignment(change, ctx, task, input);
  if (!changed && !added) return 'unchanged';
  change.wrote('tasks');
  return !existing ? 'created' : stale ? 'stale' : 'updated';
}

export const historyOf = (taskId: string, transaction: Transaction): Promise<Transition[]> =>
  TaskStatusChange.findAll({ where: { task_id: taskId }, attributes: ['from_status', 'to_status', 'at'], transaction });

/** The task's flow facts from its status and all its history (a task's history is a few dozen rows at most). */
export function deriveFacts(task: Task, resolvedAt: Date | null, history: Transition[]): void {
  task.set(flowFacts({ status: task.status, createdAt: task.created_at, resolvedAt, updatedAt: task.provider_updated_at ?? task.created_at }, history));
}

/**
 * The history this input brings, each change once, with the categories it means for this app now; with the whole
 * history stored, read once for both (a new task has none yet).
 */
async function recordTransitions(task: Task, ctx: SourceContext, input: TaskInput, transaction: Transaction): Promise<{ added: number; history: Transition[] }> {
  const stored = task.isNewRecord ? [] : await TaskStatusChange.findAll({ where: { task_id: task.id }, attributes: ['external_id', 'to_name', 'from_status', 'to_status', 'at'], transaction });
  if (input.transitions.length === 0) return { added: 0, history: stored };
  const rows = input.transitions.map((t) => ({
    task_id: task.id,
    external_id: clip(t.externalId, 200),
    organization_id: ctx.source.organizationId,
    from_name: t.fromName === null ? null : clip(t.fromName, LIMITS.name),
    to_name: clip(t.toName, LIMITS.name),
    from_category: t.fromCategory,
    to_category: t.toCategory,
    from_status: ctx.categories(t.fromName, t.fromCategory),
    to_status: ctx.categories(t.toName, t.toCategory) ?? t.toCategory,
    at: t.at,
  }));
  const known = new Set(stored.map((s) => s.external_id));
  const fresh = rows.filter((r) => !known.has(r.external_id) && !stored.some((s) => sameChange(s, r)) && known.add(r.external_id));
  if (fresh.length) await TaskStatusChange.bulkCreate(fresh, { transaction });
  return { added: fresh.length, history: [...stored, ...fresh] };
}

/**
 * One change seen by two routes under two ids: a Linear webhook names a change by the states and time it shows, its
 * API by the history entry's id. Into the same status within a few seconds is the same change.
 */
const SAME_CHANGE_MS = 5_000;
const sameChange = (a: { to_name: string; at: Date }, b: { to_name: string; at: Date }) => a.to_name === b.to_name && Math.abs(a.at.getTime() - b.at.getTime()) <= SAME_CHANGE_MS;

/** A task assigned to a member by another member is a `task_assignment` interaction: assigner → assignee. */
async function recordAssignment(change: Change, ctx: SourceContext, task: Task, input: TaskInput): Promise<void> {
  const assignment = input.assignment;
  const by = assignment ? ctx.accounts.find(assignment.by) : null;
  if (!assignment || !by || !task.assignee_id) return;
  await recordInteractions(change, [
    {
      organizationId: task.organization_id,
      type: 'task_assignment',
      source: ctx.source.provider,
      userId: by,
      counterpartId: task.assignee_id,
      teamId: task.team_id,
      at: assignment.at,
      ref: `assign:${ctx.source.appId}:${clip(assignment.externalId, 150)}`,
    },
  ]);
}

async function parentId(source: TaskSource, externalId: string, transaction: Transaction): Promise<string | null> {
  const parent = await Task.findOne({ where: { app_id: source.appId, external_id: externalId }, attributes: ['id'], transaction });
  return parent?.id ?? null;
}

/** Children stored before their parent knew it only by the provider's id: they are placed under it now. */
async function adoptChildren(task: Task, transaction: Transaction): Promise<void> {
  await Task.update({ parent_id: task.id }, { where: { app_id: task.app_id, parent_external_id: task.external_id, parent_id: null }, transaction });
}

/** The provider deleted the issue: no task in lists or figures, and no older delivery brings it back. */
export async function removeTask(change: Change, source: TaskSource, externalId: string, at: Date): Promise<TaskResult> {
  storable(null, externalId);
  const { transaction } = change;
  const key = { app_id: source.appId, external_id: externalId };
  const removed = await RemovedTask.findOne({ where: key, transaction, lock: transaction.LOCK.UPDATE });
  if (removed) {
    if (removed.removed_at < at) await removed.update({ removed_at: at }, { transaction });
    return 'unchanged';
  }
  const task = await Task.findOne({ where: key, transaction, lock: transaction.LOCK.UPDATE });
  await RemovedTask.create({ ...key, removed_at: at }, { transaction });
  if (!task) return 'unknown';
  await TaskStatusChange.destroy({ where: { task_id: task.id }, transaction });
  await Task.update({ parent_id: null }, { where: { parent_id: task.id }, transaction });
  await task.destroy({ transaction });
  change.wrote('tasks');
  return 'removed';
}
