import { DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, OPTIONAL_REF, OPTIONAL_TIMESTAMP, REF, SHORT, TIMESTAMP } from './types';

/** organization_id is internal: its team's, so that an organization's tasks are one index range. */
export class Task extends Model<InferAttributes<Task>, InferCreationAttributes<Task>> {
  declare id: string;
  declare team_id: string;
  declare organization_id: string;
  declare title: string;
  declare type: 'story' | 'bug' | 'task' | 'epic';
  declare status: 'backlog' | 'active' | 'paused' | 'done';
  declare assignee_id: string | null;
  declare parent_id: string | null;
  declare story_points: number | null;
  declare created_at: Date;
  declare completed_at: Date | null;
}

/** organization_id is internal: it scopes an interaction to the organization it happened in. */
export class Interaction extends Model<InferAttributes<Interaction>, InferCreationAttributes<Interaction>> {
  declare id: string;
  declare organization_id: string;
  declare type: 'code_review' | 'communication' | 'task_assignment' | 'meeting';
  declare source: string;
  declare user_id: string;
  declare counterpart_id: string | null;
  declare team_id: string | null;
  declare created_at: Date;
}

export class DashboardView extends Model<InferAttributes<DashboardView>, InferCreationAttributes<DashboardView>> {
  declare id: string;
  declare name: string;
  declare type: string;
  declare visibility: 'private' | 'team' | 'organization';
  declare organization_id: string;
  declare team_id: string | null;
  declare owner_id: string;
  declare created_at: Date;
}

export class DashboardCatalogEntry extends Model<
  InferAttributes<DashboardCatalogEntry>,
  InferCreationAttributes<DashboardCatalogEntry>
> {
  declare key: string;
  declare name: string;
  declare description: string;
  declare category: string;
}

export function initWork(sequelize: Sequelize): void {
  Task.init(
    {
      id: { ...ID, primaryKey: true },
      team_id: { ...REF },
      organization_id: { ...REF },
      title: { type: DataTypes.STRING(300), allowNull: false },
      type: { ...SHORT },
      status: { ...SHORT },
      assignee_id: { ...OPTIONAL_REF },
      parent_id: { ...OPTIONAL_REF },
      story_points: { type: DataTypes.INTEGER, allowNull: true },
      created_at: { ...TIMESTAMP },
      completed_at: { ...OPTIONAL_TIMESTAMP },
    },
    { sequelize, tableName: 'tasks', modelName: 'task' },
  );
  Interaction.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      type: { ...SHORT },
      source: { ...SHORT },
      user_id: { ...REF },
      counterpart_id: { ...OPTIONAL_REF },
      team_id: { ...OPTIONAL_REF },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'interactions', modelName: 'interaction' },
  );
  DashboardView.init(
    {
      id: { ...ID, primaryKey: true },
      name: { ...NAME },
      type: { ...SHORT },
      visibility: { ...SHORT },
      organization_id: { ...REF },
      team_id: { ...OPTIONAL_REF },
      owner_id: { ...REF },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'dashboard_views', modelName: 'dashboard_view' },
  );
  DashboardCatalogEntry.init(
    {
      key: { type: DataTypes.STRING(60), allowNull: false, primaryKey: true },
      name: { ...NAME },
      description: { type: DataTypes.STRING(500), allowNull: false },
      category: { ...SHORT },
    },
    { sequelize, tableName: 'dashboard_catalog', modelName: 'dashboard_catalog_entry' },
  );
}
