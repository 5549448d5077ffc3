import type { Transaction } from 'sequelize';
import { ChangeSql } from '../../persistence/changes/changeSql';
import type { IssueState, KnownChange, TaskRow } from './taskState';

/**
 * Rows as read: the driver gives MariaDB's times as Dates, SQLite's as the text the models wrote. Read without the
 * models, since a burst of deliveries reads tens of tasks per change and building model instances cost more than
 * the statements (docs/performance.md#tracker-ingest).
 */
type Read<T, Time extends keyof T> = Omit<T, Time> & { [K in Time]: T[K] extends Date ? Date | string : Date | string | null };
type TaskTime = 'created_at' | 'completed_at' | 'provider_updated_at' | 'started_at' | 'canceled_at';
type StoredTask = Read<TaskRow, TaskTime>;
type StoredChange = Read<KnownChange & { task_id: string }, 'at'>;
type StoredTombstone = { external_id: string; removed_at: Date | string };

const optionalTime = (value: Date | string | null) => (value === null ? null : new Date(value));
const taskRow = (t: StoredTask): TaskRow => ({
  ...t,
  created_at: new Date(t.created_at),
  completed_at: optionalTime(t.completed_at),
  provider_updated_at: optionalTime(t.provider_updated_at),
  started_at: optionalTime(t.started_at),
  canceled_at: optionalTime(t.canceled_at),
});

/** The issues one change touches, by provider id, as stored and as its events leave them. */
export class IssueStates {
  private constructor(
    private readonly appId: string,
    private readonly states: Map<string, IssueState>,
    private readonly before: Map<string, { removedAt: Date | null; task: TaskRow | null }>,
    private readonly storedParents: Map<string, string>,
  ) {}

  /**
   * A fixed number of statements for any number of issues: their tombstones and tasks, locked until the change
   * commits (tombstones first, as every change of tasks takes them), the tasks' histories, and the parents named
   * that are not among them.
   */
  static async load(appId: string, externalIds: string[], parentIds: string[], transaction: Transaction): Promise<IssueStates> {
    const keys = [...new Set(externalIds)].sort();
    const sql = new ChangeSql(transaction);
    const ofApp = { appId, keys };
    const removed = keys.length
      ? (await sql.select<StoredTombstone>(`SELECT external_id, removed_at FROM removed_tasks WHERE app_id = :appId AND external_id IN (:keys)${sql.forUpdate}`, ofApp)).map((r) => ({
          external_id: r.external_id,
          removed_at: new Date(r.removed_at),
        }))
      : [];
    const tasks = keys.length ? (await sql.select<StoredTask>(`SELECT ${TASK_COLUMNS.join(', ')} FROM tasks WHERE app_id = :appId AND external_id IN (:keys)${sql.forUpdate}`, ofApp)).map(taskRow) : [];
    const history = tasks.length
      ? (await sql.select<StoredChange>('SELECT task_id, external_id, to_name, from_status, to_status, at FROM task_status_changes WHERE task_id IN (:ids)', { ids: tasks.map((t) => t.id) })).map(
          (h) => ({ ...h, at: new Date(h.at) }),
        )
      : [];
    const outside = [...new Set(parentIds)].filter((id) => !keys.includes(id));
    const parents = outside.length ? await sql.select<{ id: string; external_id: string }>('SELECT id, external_id FROM tasks WHERE app_id = :appId AND external_id IN (:outside)', { appId, outside }) : [];
    const states = new Map<string, IssueState>();
    const before = new Map<string, { removedAt: Date | null; task: TaskRow | null }>();
    for (const key of keys) {
      const task = tasks.find((t) => t.external_id === key) ?? null;
      const removedAt = removed.find((r) => r.external_id === key)?.removed_at ?? null;
      before.set(key, { removedAt, task });
      states.set(key, { removedAt, task, history: task ? history.filter((h) => h.task_id === task.id) : [], added: [] });
    }
    return new IssueStates(appId, states, before, new Map(parents.map((p) => [p.external_id, p.id])));
  }

  of(externalId: string): IssueState {
    const state = this.states.get(externalId);
    if (!state) throw new Error(`issue ${externalId} was not loaded`);
    return state;
  }

  /** A parent's task id: as this change leaves it when it is one of the change's issues, else as stored. */
  parentOf = (externalId: string): string | null => {
    const state = this.states.get(externalId);
    return state ? (state.task?.id ?? null) : (this.storedParents.get(externalId) ?? null);
  };

  /**
   * Writes what the events changed, a statement per kind of write: tasks deleted (with their history, their children
   * let go), inserted and updated, the changes added to histories, children waiting for a new task placed under it,
   * tombstones made, moved or dropped.
   */
  async save(transaction: Transaction): Promise<void> {
    const sql = new ChangeSql(transaction);
    const deleted: string[] = [];
    const inserted: TaskRow[] = [];
    const updated: TaskRow[] = [];
    const tombstones: { app_id: string; external_id: string; removed_at: Date }[] = [];
    const untombed: string[] = [];
    for (const [key, state] of this.states) {
      const was = this.before.get(key)!;
      if (was.task && was.task.id !== state.task?.id) deleted.push(was.task.id);
      if (state.task && state.task.id !== was.task?.id) inserted.push(state.task);
      else if (state.task && state.task !== was.task) updated.push(state.task);
      if (state.removedAt && state.removedAt !== was.removedAt) tombstones.push({ app_id: this.appId, external_id: key, removed_at: state.removedAt });
      if (!state.removedAt && was.removedAt) untombed.push(key);
    }
    if (deleted.length) {
      await sql.run('DELETE FROM task_status_changes WHERE task_id IN (:deleted)', { deleted });
      await sql.run('DELETE FROM tasks WHERE id IN (:deleted)', { deleted });
    }
    if (inserted.length) await sql.insert('tasks', TASK_COLUMNS, inserted);
    if (updated.length) await sql.upsert('tasks', ['id'], TASK_COLUMNS.slice(1), updated);
    // After the tasks are written: a child of this change may have named a parent it removed.
    if (deleted.length) await sql.run('UPDATE tasks SET parent_id = NULL WHERE parent_id IN (:deleted)', { deleted });
    const added = [...this.states.values()].flatMap((s) => s.added);
    if (added.length) await sql.insert('task_status_changes', CHANGE_COLUMNS, added);
    await this.adopt(sql, inserted);
    if (untombed.length) await sql.run('DELETE FROM removed_tasks WHERE app_id = :app_id AND external_id IN (:untombed)', { app_id: this.appId, untombed });
    if (tombstones.length) await sql.upsert('removed_tasks', ['app_id', 'external_id'], ['removed_at'], tombstones);
  }

  /** Children stored before their parent knew it only by the provider's id: placed under it now. */
  private async adopt(sql: ChangeSql, inserted: TaskRow[]): Promise<void> {
    if (inserted.length === 0) return;
    const replacements: Record<string, unknown> = { app_id: this.appId, parents: inserted.map((t) => t.external_id) };
    const cases = inserted.map((t, i) => {
      Object.assign(replacements, { [`external_${i}`]: t.external_id, [`task_${i}`]: t.id });
      return `WHEN :external_${i} THEN :task_${i}`;
    });
    await sql.run(`UPDATE tasks SET parent_id = CASE parent_external_id ${cases.join(' ')} END WHERE app_id = :app_id AND parent_id IS NULL AND parent_external_id IN (:parents)`, replacements);
  }
}

/** Every column of a task, the key first. */
export const TASK_COLUMNS = [
  'id',
  'team_id',
  'organization_id',
  'title',
  'type',
  'status',
  'assignee_id',
  'parent_id',
  'story_points',
  'created_at',
  'completed_at',
  'app_id',
  'board_key',
  'external_id',
  'parent_external_id',
  'status_name',
  'provider_updated_at',
  'started_at',
  'canceled_at',
  'backlog_seconds',
  'active_seconds',
  'paused_seconds',
  'status_changes',
] as const satisfies readonly (keyof TaskRow)[];

export const CHANGE_COLUMNS = ['task_id', 'external_id', 'organization_id', 'from_name', 'to_name', 'from_category', 'to_category', 'from_status', 'to_status', 'at'] as const;
