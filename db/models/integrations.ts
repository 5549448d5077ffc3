import { CreationOptional, DataTypes, Model, Sequelize, InferAttributes, InferCreationAttributes } from 'sequelize';
import { ID, NAME, OPTIONAL_TIMESTAMP, REF, SHORT, TIMESTAMP } from './types';
import type { TaskStatus } from './work';

import type { AppCategory } from '../vocabulary';

export { APP_CATEGORIES, type AppCategory } from '../vocabulary';

/**
 * An organization's connection to a tracker, chat, incident tool or AI vendor (docs/trackers.md#apps). Apps whose
 * provider pushes to us keep a webhook secret, sealed as a git app's is.
 */
export class App extends Model<InferAttributes<App>, InferCreationAttributes<App>> {
  declare id: string;
  declare organization_id: string;
  declare provider: string;
  declare category: AppCategory;
  declare name: string;
  declare is_active: boolean;
  declare created_at: Date;
  declare webhook_secret: CreationOptional<string | null>;
  declare previous_webhook_secret: CreationOptional<string | null>;
  declare previous_secret_expires_at: CreationOptional<Date | null>;
  /** Jira: the issue field holding story points (e.g. `customfield_10016`); null where the provider names them. */
  declare points_field: CreationOptional<string | null>;
}

/**
 * How the service reads an AI vendor's app (docs/ai-vendors.md): the credential the vendor issued (sealed), what its
 * API needs besides, and what the last pull did. One row per app of category `ai`.
 */
export class AiVendorSource extends Model<InferAttributes<AiVendorSource>, InferCreationAttributes<AiVendorSource>> {
  declare app_id: string;
  declare organization_id: string;
  /** The vendor's key or token, sealed as webhook secrets are; null until one is stored (the demo's app). */
  declare credential: string | null;
  /** Copilot: whether `account` names a GitHub organization or an enterprise; null for the other vendors. */
  declare account_kind: 'organization' | 'enterprise' | null;
  declare account: string | null;
  /** The vendor API's root when not its public one (GitHub Enterprise Server, a test's fake). */
  declare base_url: string | null;
  declare pulled_at: CreationOptional<Date | null>;
  /** The last day (`YYYY-MM-DD`) a pull stored a report of. */
  declare pulled_through: CreationOptional<string | null>;
  /** What the last pull did, in words: the days it stored, or why it stopped. */
  declare pull_result: CreationOptional<string | null>;
  /** The vendor refused the credential (expired, revoked, too little scope): pulls wait for a new one. */
  declare failing: CreationOptional<boolean>;
  /** The worker pulling it now, until when: one pull of an app at a time across instances. */
  declare lease_owner: CreationOptional<string | null>;
  declare lease_until: CreationOptional<Date | null>;
  declare updated_at: Date;
}

/**
 * A board of an app (a Jira project key, a Linear team key, a GitHub `owner/repo`, a GitLab project path) placed in
 * a team; `app_id` may name a git app, whose repositories' issues are its boards. Unmapped boards have no row.
 */
export class AppBoard extends Model<InferAttributes<AppBoard>, InferCreationAttributes<AppBoard>> {
  declare app_id: string;
  declare board_key: string;
  declare organization_id: string;
  declare team_id: string;
  declare created_at: Date;
}

/** A board of an incident tool or of the deployments API mapped to a repository: one row per repository it is mapped to. */
export class BoardRepository extends Model<InferAttributes<BoardRepository>, InferCreationAttributes<BoardRepository>> {
  declare app_id: string;
  declare board_key: string;
  declare repository_id: string;
  declare organization_id: string;
  declare created_at: Date;
}

/** An app's status name (stored lower-cased) counted in another category than the provider's. */
export class AppStatusOverride extends Model<InferAttributes<AppStatusOverride>, InferCreationAttributes<AppStatusOverride>> {
  declare app_id: string;
  declare status_name: string;
  declare category: TaskStatus;
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
  /** A git provider's id (src/integrations/registry.ts), or `git` for a clone's import. */
  declare provider: string;
  declare name: string;
  declare is_active: boolean;
  declare created_at: Date;
  /** The webhook secret, sealed (src/secrets/secretBox.ts); null until `gitapps create` or `rotate-secret`. */
  declare webhook_secret: CreationOptional<string | null>;
  /** The secret a rotation replaced, accepted until `previous_secret_expires_at`. */
  declare previous_webhook_secret: CreationOptional<string | null>;
  declare previous_secret_expires_at: CreationOptional<Date | null>;
}


export class UserGitApp extends Model<InferAttributes<UserGitApp>, InferCreationAttributes<UserGitApp>> {
  declare user_id: string;
  declare git_app_id: string;
  declare username: string;
  declare created_at: Date;
}

/**
 * The credential the service reads a connection's provider API with (docs/ingest.md#credentials-for-reading-the-providers-api),
 * for an app or a git app (`connection_id`): a token, or a GitHub App's private key with the installation it acts
 * for. Sealed as webhook secrets are; an AI vendor's app keeps its credential in its AiVendorSource instead.
 */
export class ConnectionCredential extends Model<InferAttributes<ConnectionCredential>, InferCreationAttributes<ConnectionCredential>> {
  declare connection_id: string;
  declare organization_id: string;
  declare kind: ConnectionCredentialKind;
  /** The token, or the GitHub App's PEM private key, sealed (src/secrets/secretBox.ts). */
  declare sealed_secret: string;
  /** A GitHub App's id and the installation its key acts for, as GitHub's digits; null for a token. */
  declare github_app_id: string | null;
  declare installation_id: string | null;
  declare created_at: Date;
  declare updated_at: Date;
}

export const CONNECTION_CREDENTIAL_KINDS = ['token', 'github_app'] as const;
export type ConnectionCredentialKind = (typeof CONNECTION_CREDENTIAL_KINDS)[number];

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
      webhook_secret: { type: DataTypes.TEXT, allowNull: true },
      previous_webhook_secret: { type: DataTypes.TEXT, allowNull: true },
      previous_secret_expires_at: { ...OPTIONAL_TIMESTAMP },
      points_field: { type: DataTypes.STRING(100), allowNull: true },
    },
    { sequelize, tableName: 'apps', modelName: 'app' },
  );
  AiVendorSource.init(
    {
      app_id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      credential: { type: DataTypes.TEXT, allowNull: true },
      account_kind: { type: DataTypes.STRING(20), allowNull: true },
      account: { type: DataTypes.STRING(200), allowNull: true },
      base_url: { type: DataTypes.STRING(500), allowNull: true },
      pulled_at: { ...OPTIONAL_TIMESTAMP },
      pulled_through: { type: DataTypes.DATEONLY, allowNull: true },
      pull_result: { type: DataTypes.STRING(500), allowNull: true },
      failing: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      lease_owner: { type: DataTypes.STRING(40), allowNull: true },
      lease_until: { ...OPTIONAL_TIMESTAMP },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'ai_vendor_sources', modelName: 'ai_vendor_source' },
  );
  AppBoard.init(
    {
      app_id: { ...REF, primaryKey: true },
      board_key: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
      organization_id: { ...REF },
      team_id: { ...REF },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'app_boards', modelName: 'app_board' },
  );
  BoardRepository.init(
    {
      app_id: { ...REF, primaryKey: true },
      board_key: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
      repository_id: { ...REF, primaryKey: true },
      organization_id: { ...REF },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'board_repositories', modelName: 'board_repository' },
  );
  AppStatusOverride.init(
    {
      app_id: { ...REF, primaryKey: true },
      status_name: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
      category: { ...SHORT },
      created_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'app_status_overrides', modelName: 'app_status_override' },
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
  ConnectionCredential.init(
    {
      connection_id: { ...ID, primaryKey: true },
      organization_id: { ...REF },
      kind: { type: DataTypes.STRING(20), allowNull: false },
      sealed_secret: { type: DataTypes.TEXT, allowNull: false },
      github_app_id: { type: DataTypes.STRING(20), allowNull: true },
      installation_id: { type: DataTypes.STRING(20), allowNull: true },
      created_at: { ...TIMESTAMP },
      updated_at: { ...TIMESTAMP },
    },
    { sequelize, tableName: 'connection_credentials', modelName: 'connection_credential' },
  );
}
