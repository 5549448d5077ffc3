import { CreationOptional, DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, REF, SHORT, TIMESTAMP } from './types';

export class App extends Model<InferAttributes<App>, InferCreationAttributes<App>> {
  declare id: string;
  declare organization_id: string;
  declare provider: string;
  declare category: 'issues' | 'chat' | 'git' | 'calendar';
  declare name: string;
  declare is_active: boolean;
  declare created_at: Date;
}

/** A user's account on an organization app (e.g. their Slack user id). */
export class UserApp extends Model<InferAttributes<UserApp>, InferCreationAttributes<UserApp>> {
  declare user_id: string;
  declare app_id: string;
  declare external_user_id: string;
  declare created_at: Date;
}

export class GitApp extends Model<InferAttributes<GitApp>, InferCreationAttributes<GitApp>> {
  declare id: string;
  declare organization_id: string;
  declare provider: GitProvider;
  declare name: string;
  declare is_active: boolean;
  declare created_at: Date;
  /** The webhook secret, sealed (src/secrets/secretBox.ts); null until `gitapps create` or `rotate-secret`. */
  declare webhook_secret: CreationOptional<string | null>;
  /** The secret a rotation replaced, accepted until `previous_secret_expires_at`. */
  declare previous_webhook_secret: CreationOptional<string | null>;
  declare previous_secret_expires_at: CreationOptional<Date | null>;
}

export const GIT_PROVIDERS = ['github', 'gitlab', 'bitbucket', 'git'] as const;
export type GitProvider = (typeof GIT_PROVIDERS)[number];

export class UserGitApp extends Model<InferAttributes<UserGitApp>, InferCreationAttributes<UserGitApp>> {
  declare user_id: string;
  declare git_app_id: string;
  declare username: string;
  declare created_at: Date;
}

export function initIntegrations(sequelize: Sequelize): void {
  App.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      provider: { ...SHORT },
      category: { ...SHORT },
      name: { ...NAME },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'apps', modelName: 'app' },
  );
  UserApp.init(
    {
      user_id: { ...REF, primaryKey: true },
      app_id: { ...REF, primaryKey: true },
      external_user_id: { ...NAME },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'user_apps', modelName: 'user_app' },
  );
  GitApp.init(
    {
      id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      provider: { ...SHORT },
      name: { ...NAME },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false },
      created_at: { ...TIMESTAMP },
      webhook_secret: { type: DataTypes.TEXT, allowNull: true },
      previous_webhook_secret: { type: DataTypes.TEXT, allowNull: true },
      previous_secret_expires_at: { type: DataTypes.DATE(3), allowNull: true },
    },
    { sequelize, tableName: 'git_apps', modelName: 'git_app' },
  );
  UserGitApp.init(
    {
      user_id: { ...REF, primaryKey: true },
      git_app_id: { ...REF, primaryKey: true },
      username: { ...NAME },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'user_git_apps', modelName: 'user_git_app' },
  );
}
