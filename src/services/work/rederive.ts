import { Op, Sequelize } from 'sequelize';
import { AppStatusOverride, Task, TaskStatusChange } from '../../../db/models';
import { flowFacts } from '../../../db/rollups/flowFacts';
import type { Change } from '../../persistence/changes/change';
import { ChangeSql } from '../../persistence/changes/changeSql';
import { statusCategories } from './statusHistory';
import { CHANGE_COLUMNS, TASK_COLUMNS } from './taskStore';

/** Tasks derived again per round: a few statements each, whatever the app's size. */
const ROUND = 500;

/**
 * After an app's status name is counted in another category: every task of the app that holds the name now or in
 * its history takes the categories the app's overrides give, and its flow facts are derived again. A few
 * statements per 500 tasks (an app's "In Progress" is in nearly every history). Returns how many tasks were looked at.
 */
export async function rederiveTasks(change: Change, appId: string, name: string): Promise<number> {
  const { transaction } = change;
  const sql = new ChangeSql(transaction);
  const overrides = await AppStatusOverride.findAll({ where: { app_id: appId }, transaction });
  const categories = statusCategories(new Map(overrides.map((o) => [o.status_name, o.category])));
  const replacements = { app_id: appId, name };
  const named = await Task.findAll({ where: Sequelize.literal('app_id = :app_id AND LOWER(status_name) = :name'), replacements, attributes: ['id'], transaction });
  const changes = await TaskStatusChange.findAll({
    where: Sequelize.literal('task_id IN (SELECT id FROM tasks WHERE app_id = :app_id) AND (LOWER(to_name) = :name OR LOWER(from_name) = :name)'),
    replacements,
    transaction,
  });
  const recategorized = changes.flatMap((c) => {
    const from_status = categories(c.from_name, c.from_category);
    const to_status = categories(c.to_name, c.to_category) ?? c.to_category;
    return from_status === c.from_status && to_status === c.to_status ? [] : [{ ...c.get({ plain: true }), from_status, to_status }];
  });
  if (recategorized.length) await sql.upsert('task_status_changes', CHANGE_COLUMNS.slice(0, 2), CHANGE_COLUMNS.slice(2), recategorized);
  const ids = [...new Set([...named.map((t) => t.id), ...changes.map((c) => c.task_id)])];
  for (let i = 0; i < ids.length; i += ROUND) {
    const round = ids.slice(i, i + ROUND);
    const tasks = await Task.findAll({ where: { id: { [Op.in]: round } }, transaction, lock: transaction.LOCK.UPDATE });
    const history = new Map<string, TaskStatusChange[]>();
    for (const h of await TaskStatusChange.findAll({ where: { task_id: { [Op.in]: round } }, attributes: ['task_id', 'from_status', 'to_status', 'at'], transaction })) {
      history.set(h.task_id, [...(history.get(h.task_id) ?? []), h]);
    }
    const rederived = tasks.flatMap((task) => {
      task.set({ status: categories(task.status_name, task.status) ?? task.status });
      const resolvedAt = task.completed_at ?? task.canceled_at;
      const updatedAt = task.provider_updated_at ?? task.created_at;
      task.set(flowFacts({ status: task.status, createdAt: task.created_at, resolvedAt, updatedAt }, history.get(task.id) ?? []));
      return task.changed() ? [task.get({ plain: true })] : [];
    });
    if (rederived.length) await sql.upsert('tasks', TASK_COLUMNS.slice(0, 1), TASK_COLUMNS.slice(1), rederived);
  }
  if (ids.length) change.wrote('tasks');
  return ids.length;
}
