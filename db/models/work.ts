import { CreationOptional, DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, OPTIONAL_REF, OPTIONAL_TIMESTAMP, REF, SHORT, TIMESTAMP } from './types';

import type { InteractionType, TaskStatus, TaskType } from '../vocabulary';

export { INTERACTION_TYPES, TASK_STATUSES, TASK_TYPES, type InteractionType, type TaskStatus, type TaskType } from '../vocabulary';

/**
 * organization_id is internal: its team's, so that an organization's tasks are one index range; a task of a board
 * not mapped to a team has none yet, and counts for its organization only. The columns after `completed_at` are
 * internal too: where a tracker's task came from, and what the writer derives from its status history for the flow
 * figures (docs/metrics.md#flow), kept exact on every change.
 */
export class Task extends Model<InferAttributes<Task>, InferCreationAttributes<Task>> {
  declare id: string;
  declare team_id: string | null;
  declare organization_id: string;
  declare title: string;
  declare type: TaskType;
  declare status: TaskStatus;
  declare assignee_id: string | null;
  declare parent_id: string | null;
  declare story_points: number | null;
  declare created_at: Date;
  declare completed_at: Date | null;
  /** The app (or git app) it came from and the provider's board and id of it; null for the demo's own tasks. */
  declare app_id: CreationOptional<string | null>;
  declare board_key: CreationOptional<string | null>;
  declare external_id: CreationOptional<string | null>;
  /** The provider's id of its parent, so that a parent stored after its children still gets them. */
  declare parent_external_id: CreationOptional<string | null>;
  /** The provider's name of its status ("In Review"), which an app's status overrides may place elsewhere. */
  declare status_name: CreationOptional<string | null>;
  /** The provider's time of the state stored: an older delivery changes nothing. */
  declare provider_updated_at: CreationOptional<Date | null>;
  /** When it first became active, by its history; null when the history shows none. */
  declare started_at: CreationOptional<Date | null>;
  declare canceled_at: CreationOptional<Date | null>;
  /** Time spent in each category from creation to completion, by its history; null until done. */
  declare backlog_seconds: CreationOptional<number | null>;
  declare active_seconds: CreationOptional<number | null>;
  declare paused_seconds: CreationOptional<number | null>;
  /** Status changes on record; 0: its figures stand on created and completed alone. */
  declare status_changes: CreationOptional<number>;
}

/** One change of a task's status, as its provider recorded it, with the categories it meant when last derived. */
export class TaskStatusChange extends Model<InferAttributes<TaskStatusChange>, InferCreationAttributes<TaskStatusChange>> {
  declare task_id: string;
  /** The provider's id of the change (a Jira changelog id, a Linear history id, a GitHub event id). */
  declare external_id: string;
  declare organization_id: string;
  declare from_name: string | null;
  declare to_name: string;
  /** The provider's own categories of the two statuses. */
  declare from_category: TaskStatus | null;
  declare to_category: TaskStatus;
  /** The categories counted, after the app's overrides. */
  declare from_status: TaskStatus | null;
  declare to_status: TaskStatus;
  declare at: Date;
}

/** A task its provider deleted: a delivery of it no newer than this brings nothing back. */
export class RemovedTask extends Model<InferAttributes<RemovedTask>, InferCreationAttributes<RemovedTask>> {
  declare app_id: string;
  declare external_id: string;
  declare removed_at: Date;
}

/** organization_id is internal: it scopes an interaction to the organization it happened in. */
export class Interaction extends Model<InferAttributes<Interaction>, InferCreationAttributes<Interaction>> {
  declare id: string;
  declare organization_id: string;
  declare type: InteractionType;
  declare source: string;
  declare user_id: string;
  declare counterpart_id: string | null;
  declare team_id: string | null;
  declare created_at: Date;
  /** The event it was made from (e.g. `review:<activity id>`), so that a redelivery adds none; null in the demo. */
  declare source_ref: CreationOptional<string | null>;
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
      team_id: { ...OPTIONAL_REF },
      organization_id: { ...REF },
      title: { type: DataTypes.STRING(300), allowNull: false },
      type: { ...SHORT },
      status: { ...SHORT },
      assignee_id: { ...OPTIONAL_REF },
      parent_id: { ...OPTIONAL_REF },
      story_points: { type: DataTypes.INTEGER, allowNull: true },
      created_at: { ...TIMESTAMP },
      completed_at: { ...OPTIONAL_TIMESTAMP },
      app_id: { ...OPTIONAL_REF },
      board_key: { type: DataTypes.STRING(200), allowNull: true },
      external_id: { type: DataTypes.STRING(100), allowNull: true },
      parent_external_id: { type: DataTypes.STRING(100), allowNull: true },
      status_name: { type: DataTypes.STRING(200), allowNull: true },
      provider_updated_at: { ...OPTIONAL_TIMESTAMP },
      started_at: { ...OPTIONAL_TIMESTAMP },
      canceled_at: { ...OPTIONAL_TIMESTAMP },
      backlog_seconds: { type: DataTypes.INTEGER, allowNull: true },
      active_seconds: { type: DataTypes.INTEGER, allowNull: true },
      paused_seconds: { type: DataTypes.INTEGER, allowNull: true },
      status_changes: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    },
    { sequelize, tableName: 'tasks', modelName: 'task' },
  );
  TaskStatusChange.init(
    {
      task_id: { ...REF, primaryKey: true },
      external_id: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
      organization_id: { ...REF },
      from_name: { type: DataTypes.STRING(200), allowNull: true },
      to_name: { type: DataTypes.STRING(200), allowNull: false },
      from_category: { type: DataTypes.STRING(40), allowNull: true },
      to_category: { ...SHORT },
      from_status: { type: DataTypes.STRING(40), allowNull: true },
      to_status: { ...SHORT },
      at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'task_status_changes', modelName: 'task_status_change' },
  );
  RemovedTask.init(
    {
      app_id: { ...REF, primaryKey: true },
      external_id: { type: DataTypes.STRING(100), allowNull: false, primaryKey: true },
      removed_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'removed_tasks', modelName: 'removed_task' },
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
      source_ref: { type: DataTypes.STRING(200), allowNull: true },
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
