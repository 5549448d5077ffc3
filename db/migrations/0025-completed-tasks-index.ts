import { QueryInterface } from 'sequelize';

/**
 * The flow and financial figures read a team's tasks completed in a window: its type, when it was created, who did it
 * and its points, all from this index, instead of one row lookup per task (an organization's year on the large data
 * is 17k tasks over 3,200 teams, each looked up at random).
 */
const NAME = 'tasks_team_id_completed';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addIndex('tasks', ['team_id', 'status', 'completed_at', 'type', 'created_at', 'assignee_id', 'story_points'], { name: NAME });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('tasks', NAME);
}
