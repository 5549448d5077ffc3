import { CreationOptional, DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { REF, TIMESTAMP } from './types';

/**
 * An organization's settings of what counts in its figures (docs/metrics.md#what-counts), written by
 * src/services/metrics/settings/metricSettings.ts: their `version` (1 after the first change; an organization with
 * no row has the defaults, version 0) and the settings as JSON.
 */
export class MetricSetting extends Model<InferAttributes<MetricSetting>, InferCreationAttributes<MetricSetting>> {
  declare organization_id: string;
  declare version: number;
  declare document: string;
  declare updated_at: Date;
  /** Which of the two bits of `bot` the figures read (db/rollups/botAccounts.ts): it moves on when a recomputation ends. */
  declare bots_generation: CreationOptional<number>;
}

/**
 * A change of settings being recomputed over an organization's history before it applies
 * (src/services/metrics/settings/recomputation.ts): the settings to come (`version`, `document`), and how far it got,
 * by pull request id: `done` of `total` pull requests.
 */
export class MetricRecomputation extends Model<InferAttributes<MetricRecomputation>, InferCreationAttributes<MetricRecomputation>> {
  declare organization_id: string;
  declare version: number;
  declare document: string;
  declare after_id: string | null;
  declare done: number;
  declare total: number;
  declare started_at: Date;
  declare updated_at: Date;
}

/**
 * A repository its team owns (docs/metrics.md#what-a-team-covers), written by
 * src/services/metrics/settings/teamRepositories.ts: a team with rows covers exactly those in its git figures, one
 * without the repositories its members authored commits in.
 */
export class TeamRepository extends Model<InferAttributes<TeamRepository>, InferCreationAttributes<TeamRepository>> {
  declare team_id: string;
  declare repository_id: string;
  declare organization_id: string;
  declare created_at: Date;
}

export function initMetricSettings(sequelize: Sequelize): void {
  MetricSetting.init(
    {
      organization_id: { ...REF, primaryKey: true },
      version: { type: DataTypes.INTEGER, allowNull: false },
      document: { type: DataTypes.TEXT, allowNull: false },
      updated_at: { ...TIMESTAMP },
      bots_generation: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    },
    { sequelize, tableName: 'metric_settings', modelName: 'metric_setting' },
  );
  MetricRecomputation.init(
    {
      organization_id: { ...REF, primaryKey: true },
      version: { type: DataTypes.INTEGER, allowNull: false },
      document: { type: DataTypes.TEXT, allowNull: false },
      after_id: { ...REF, allowNull: true },
      done: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      total: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      started_at: { ...TIMESTAMP },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'metric_recomputations', modelName: 'metric_recomputation' },
  );
  TeamRepository.init(
    { team_id: { ...REF, primaryKey: true }, repository_id: { ...REF, primaryKey: true }, organization_id: { ...REF }, created_at: { ...TIMESTAMP } },
    { sequelize, tableName: 'team_repositories', modelName: 'team_repository' },
  );
}
