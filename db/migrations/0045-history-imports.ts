import { DataTypes, QueryInterface } from 'sequelize';

/**
 * The history importers' state (docs/history.md). `history_imports`: one row per app or git app read from its
 * provider's API: the lease that keeps two runs of one connection apart, the address it was read at (an operator's
 * `--base-url`, which the daily catch-up reads again), and its last run as the setup view shows it: when, its
 * window, what it read and what it found that the webhooks had not brought. `history_cursors`: one row per
 * connection, scope (a repository, a service, a channel: the provider's id of it) and kind: the window being read,
 * where its listing resumes (`next_page`, opaque, the importer's), and through when the last complete window
 * reached, from which the next run reads again. `organization_id` lets an organization's deletion find both.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const time = (allowNull: boolean) => ({ type: DataTypes.DATE(3), allowNull });
  const count = { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 };
  await qi.createTable('history_imports', {
    connection_id: { ...ref, primaryKey: true },
    organization_id: ref,
    connection_type: { type: DataTypes.STRING(10), allowNull: false },
    base_url: { type: DataTypes.STRING(500), allowNull: true },
    lease_owner: { type: DataTypes.STRING(64), allowNull: true },
    lease_until: time(true),
    started_at: time(true),
    finished_at: time(true),
    outcome: { type: DataTypes.STRING(20), allowNull: true },
    message: { type: DataTypes.STRING(500), allowNull: true },
    window_since: time(true),
    window_until: time(true),
    items_read: count,
    items_found: count,
    updated_at: time(false),
  });
  await qi.addIndex('history_imports', ['organization_id'], { name: 'history_imports_organization_id' });
  await qi.createTable('history_cursors', {
    connection_id: { ...ref, primaryKey: true },
    scope_key: { type: mysql ? 'VARCHAR(200) BINARY' : DataTypes.STRING(200), allowNull: false, primaryKey: true },
    kind: { type: DataTypes.STRING(20), allowNull: false, primaryKey: true },
    organization_id: ref,
    scope_name: { type: DataTypes.STRING(300), allowNull: false },
    window_since: time(false),
    window_until: time(false),
    next_page: { type: DataTypes.TEXT, allowNull: true },
    complete: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    read_through: time(true),
    items_read: count,
    items_found: count,
    updated_at: time(false),
  });
  await qi.addIndex('history_cursors', ['organization_id'], { name: 'history_cursors_organization_id' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('history_cursors');
  await qi.dropTable('history_imports');
}
