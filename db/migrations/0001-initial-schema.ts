import { DataTypes, QueryInterface, ModelAttributeColumnOptions } from 'sequelize';

// A migration is history: its column types are written out here, not imported from the models.
// Ids are opaque and compared exactly: binary collation on MySQL (SQLite compares bytes already). `up`
// swaps this type for MySQL's spelling, since Sequelize 6 renders STRING(40).BINARY as `VARCHAR BINARY(40)`.
const ID_TYPE = DataTypes.STRING(40);
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';
const id = { type: ID_TYPE, allowNull: false, primaryKey: true };
const ref = { type: ID_TYPE, allowNull: false };
const optionalRef = { type: ID_TYPE, allowNull: true };
const ts = { type: DataTypes.DATE(3), allowNull: false };
const optionalTs = { type: DataTypes.DATE(3), allowNull: true };
const name = { type: DataTypes.STRING(200), allowNull: false };
const short = { type: DataTypes.STRING(40), allowNull: false };
const bool = { type: DataTypes.BOOLEAN, allowNull: false };
const pk = (column: ModelAttributeColumnOptions) => ({ ...column, primaryKey: true });

type Columns = Record<string, ModelAttributeColumnOptions>;
interface TableSpec {
  columns: Columns;
  /** Each entry is an index; a list scoped by X and sorted by Y needs (X, Y, id). */
  indexes?: string[][];
  unique?: string[][];
}

const tables: Record<string, TableSpec> = {
  users: {
    columns: {
      id,
      name,
      email: { type: DataTypes.STRING(254), allowNull: false },
      is_active: { ...bool, defaultValue: true },
      created_at: ts,
    },
    // email is unique, but MariaDB sorts `email, id` with a filesort unless the index names both.
    indexes: [['created_at', 'id'], ['name', 'id'], ['email', 'id']],
    unique: [['email']],
  },
  organizations: {
    columns: { id, name, created_at: ts },
    indexes: [['created_at', 'id'], ['name', 'id']],
  },
  organization_memberships: {
    columns: { organization_id: pk(ref), user_id: pk(ref), role: short, created_at: ts },
    indexes: [['user_id', 'organization_id']],
  },
  teams: {
    columns: { id, organization_id: ref, name, created_at: ts },
    indexes: [
      ['organization_id', 'created_at', 'id'],
      ['organization_id', 'name', 'id'],
      ['created_at', 'id'],
      ['name', 'id'],
    ],
  },
  team_memberships: {
    columns: { team_id: pk(ref), user_id: pk(ref), title: name, role: short, created_at: ts },
    indexes: [['user_id', 'team_id'], ['team_id', 'role']],
  },
  apps: {
    columns: { id, organization_id: ref, provider: short, category: short, name, is_active: bool, created_at: ts },
    indexes: [['organization_id', 'created_at', 'id'], ['organization_id', 'name', 'id']],
  },
  user_apps: {
    columns: { user_id: pk(ref), app_id: pk(ref), external_user_id: name, created_at: ts },
    indexes: [['app_id']],
  },
  git_apps: {
    columns: { id, organization_id: ref, provider: short, name, is_active: bool, created_at: ts },
    indexes: [['organization_id', 'created_at', 'id'], ['organization_id', 'name', 'id']],
  },
  user_git_apps: {
    columns: { user_id: pk(ref), git_app_id: pk(ref), username: name, created_at: ts },
    indexes: [['git_app_id']],
  },
  repositories: {
    columns: {
      id,
      git_app_id: ref,
      organization_id: ref,
      name,
      full_name: name,
      default_branch: name,
      is_private: bool,
      created_at: ts,
    },
    indexes: [
      ['git_app_id', 'created_at', 'id'],
      ['git_app_id', 'name', 'id'],
      ['organization_id', 'created_at', 'id'],
    ],
  },
  commits: {
    columns: {
      id,
      repository_id: ref,
      git_app_id: ref,
      organization_id: ref,
      sha: { type: DataTypes.STRING(40), allowNull: false },
      message: { type: DataTypes.STRING(500), allowNull: false },
      author_id: optionalRef,
      author_name: name,
      additions: { type: DataTypes.INTEGER, allowNull: false },
      deletions: { type: DataTypes.INTEGER, allowNull: false },
      created_at: ts,
    },
    indexes: [
      ['repository_id', 'created_at', 'id'],
      ['git_app_id', 'created_at', 'id'],
      ['organization_id', 'created_at', 'id'],
      ['author_id'],
    ],
  },
  pull_requests: {
    columns: {
      id,
      repository_id: ref,
      git_app_id: ref,
      organization_id: ref,
      number: { type: DataTypes.INTEGER, allowNull: false },
      title: { type: DataTypes.STRING(300), allowNull: false },
      state: short,
      author_id: optionalRef,
      created_at: ts,
      merged_at: optionalTs,
      closed_at: optionalTs,
    },
    indexes: [
      ['repository_id', 'created_at', 'id'],
      ['repository_id', 'title', 'id'],
      ['git_app_id', 'created_at', 'id'],
      ['git_app_id', 'title', 'id'],
    ],
  },
  tasks: {
    columns: {
      id,
      team_id: ref,
      title: { type: DataTypes.STRING(300), allowNull: false },
      type: short,
      status: short,
      assignee_id: optionalRef,
      parent_id: optionalRef,
      story_points: { type: DataTypes.INTEGER, allowNull: true },
      created_at: ts,
      completed_at: optionalTs,
    },
    indexes: [['team_id', 'created_at', 'id'], ['team_id', 'title', 'id']],
  },
  interactions: {
    columns: {
      id,
      organization_id: ref,
      type: short,
      source: short,
      user_id: ref,
      counterpart_id: optionalRef,
      team_id: optionalRef,
      created_at: ts,
    },
    indexes: [
      ['user_id', 'created_at', 'id'],
      ['team_id', 'created_at', 'id'],
      ['organization_id', 'created_at', 'id'],
    ],
  },
  dashboard_views: {
    columns: {
      id,
      name,
      type: short,
      visibility: short,
      organization_id: ref,
      team_id: optionalRef,
      owner_id: ref,
      created_at: ts,
    },
    indexes: [['organization_id', 'created_at', 'id'], ['organization_id', 'name', 'id'], ['owner_id'], ['team_id']],
  },
  dashboard_catalog: {
    columns: {
      key: pk({ type: DataTypes.STRING(60), allowNull: false }),
      name,
      description: { type: DataTypes.STRING(500), allowNull: false },
      category: short,
    },
    indexes: [['name', 'key']],
  },
  api_tokens: {
    columns: {
      id,
      user_id: ref,
      name,
      token_hash: { type: DataTypes.CHAR(64), allowNull: false },
      preview: { type: DataTypes.STRING(40), allowNull: false },
      is_active: bool,
      expires_at: optionalTs,
      last_used_at: optionalTs,
      revoked_at: optionalTs,
      created_at: ts,
    },
    indexes: [['user_id', 'created_at']],
    unique: [['token_hash']],
  },
  api_token_organizations: {
    columns: { token_id: pk(ref), organization_id: pk(ref) },
  },
  api_token_teams: {
    columns: { token_id: pk(ref), team_id: pk(ref) },
  },
};

function forDialect(columns: Columns, dialect: string): Columns {
  if (dialect !== 'mysql') return columns;
  return Object.fromEntries(
    Object.entries(columns).map(([name, c]) => [name, c.type === ID_TYPE ? { ...c, type: MYSQL_ID_TYPE } : c]),
  ) as Columns;
}

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const [table, spec] of Object.entries(tables)) {
    await qi.createTable(table, forDialect(spec.columns, qi.sequelize.getDialect()));
    for (const fields of spec.indexes ?? []) {
      await qi.addIndex(table, fields, { name: `${table}_${fields.join('_')}` });
    }
    for (const fields of spec.unique ?? []) {
      await qi.addIndex(table, fields, { name: `${table}_${fields.join('_')}_unique`, unique: true });
    }
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of Object.keys(tables).reverse()) await qi.dropTable(table);
}
