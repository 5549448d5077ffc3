import { Op, Sequelize } from 'sequelize';
import { AppStatusOverride, Task, TaskStatusChange } from '../../../db/models';
import type { Change } from '../../persistence/changes/change';
import { statusCategories } from './statusHistory';
import { deriveFacts, historyOf } from './tasks';

/**
 * After an app's status name is counted in another category: every task of the app that holds the name now or in
 * its history takes the categories the app's overrides give, and its flow facts are derived again. Returns how
 * many tasks were looked at.
 */
export async function rederiveTasks(change: Change, appId: string, name: string): Promise<number> {
  const { transaction } = change;
  const overrides = await AppStatusOverride.findAll({ where: { app_id: appId }, transaction });
  const categories = statusCategories(new Map(overrides.map((o) => [o.status_name, o.category])));
  const replacements = { app_id: appId, name };
  const named = await Task.findAll({ where: Sequelize.literal('app_id = :app_id AND LOWER(status_name) = :name'), replacements, attributes: ['id'], transaction });
  const changes = await TaskStatusChange.findAll({
    where: Sequelize.literal('task_id IN (SELECT id FROM tasks WHERE app_id = :app_id) AND (LOWER(to_name) = :name OR LOWER(from_name) = :name)'),
    replacements,
    transaction,
  });
  for (const c of changes) {
    c.set({ from_status: categories(c.from_name, c.from_category), to_status: categories(c.to_name, c.to_category) ?? c.to_category });
    if (c.changed()) await c.save({ transaction });
  }
  const ids = [...new Set([...named.map((t) => t.id), ...changes.map((c) => c.task_id)])];
  for (let i = 0; i < ids.length; i += 500) {
    const tasks = await Task.findAll({ where: { id: { [Op.in]: ids.slice(i, i + 500) } }, transaction, lock: transaction.LOCK.UPDATE });
    for (const task of tasks) {
      const status = categories(task.status_name, task.status);
      if (status) task.set({ status });
      deriveFacts(task, task.completed_at ?? task.canceled_at, await historyOf(task.id, transaction));
      if (task.changed()) await task.save({ transaction });
    }
  }
  if (ids.length) change.wrote('tasks');
  return ids.length;
}
