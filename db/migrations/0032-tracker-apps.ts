import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * Apps become real (docs/ingest.md#trackers): an app keeps a sealed webhook secret like a git app, and Jira's the
 * name of its story points field; its boards (a Jira project, a Linear team, a GitHub repository) are mapped to
 * teams, and its status names may be mapped to other categories. Tasks arrive from those apps: each keeps the app,
 * board and provider id it came from, its provider's status name and update time, and its status history; the
 * figures of docs/metrics.md#flow read what the writer derives from that history and keeps on the task (first
 * active, time in each status, canceled), through indexes that answer a year of an organization by range. A task of
 * a board not mapped yet has no team. A removed task leaves a tombstone, so a late update does not bring it back.
 * Interactions made from events carry the event they came from, so a redelivery adds none. Deliveries are now kept
 * for apps as for git apps: their key column is named for both.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const ref = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const optionalRef = { ...ref, allowNull: true };
  // A provider's keys and ids are case-exact.
  const exact = (length: number, allowNull: boolean) => ({ type: mysql ? `VARCHAR(${length}) BINARY` : DataTypes.STRING(length), allowNull });
  const ts = { type: DataTypes.DATE(3), allowNull: false };
  const optionalTs = { type: DataTypes.DATE(3), allowNull: true };
  const optionalName = { type: DataTypes.STRING(200), allowNull: true };
  const seconds = { type: DataTypes.INTEGER, allowNull: true };

  await qi.addColumn('apps', 'webhook_secret', { type: DataTypes.TEXT, allowNull: true });
  await qi.addColumn('apps', 'previous_webhook_secret', { type: DataTypes.TEXT, allowNull: true });
  await qi.addColumn('apps', 'previous_secret_expires_at', optionalTs);
  await qi.addColumn('apps', 'points_field', { type: DataTypes.STRING(100), allowNull: true });
  await qi.addIndex('user_apps', ['app_id', 'external_user_id'], { name: 'user_apps_app_id_external_user_id' });

  await qi.createTable('app_boards', {
    app_id: { ...ref, primaryKey: true },
    board_key: { ...exact(200, false), primaryKey: true },
    organization_id: ref,
    team_id: optionalRef,
    repository_id: optionalRef,
    created_at: ts,
  });
  await qi.addIndex('app_boards', ['team_id'], { name: 'app_boards_team_id' });
  await qi.createTable('app_status_overrides', {
    app_id: { ...ref, primaryKey: true },
    status_name: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
    category: { type: DataTypes.STRING(40), allowNull: false },
    created_at: ts,
  });

  await allowNullTeam(qi, mysql);
  await qi.addColumn('tasks', 'app_id', optionalRef);
  await qi.addColumn('tasks', 'board_key', exact(200, true));
  await qi.addColumn('tasks', 'external_id', exact(100, true));
  await qi.addColumn('tasks', 'parent_external_id', exact(100, true));
  await qi.addColumn('tasks', 'status_name', optionalName);
  await qi.addColumn('tasks', 'provider_updated_at', optionalTs);
  await qi.addColumn('tasks', 'started_at', optionalTs);
  await qi.addColumn('tasks', 'canceled_at', optionalTs);
  await qi.addColumn('tasks', 'backlog_seconds', seconds);
  await qi.addColumn('tasks', 'active_seconds', seconds);
  await qi.addColumn('tasks', 'paused_seconds', seconds);
  await qi.addColumn('tasks', 'status_changes', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  await qi.addIndex('tasks', ['app_id', 'external_id'], { name: 'tasks_app_id_external_id', unique: true });
  await qi.addIndex('tasks', ['app_id', 'board_key'], { name: 'tasks_app_id_board_key' });
  await qi.addIndex('tasks', ['app_id', 'parent_external_id'], { name: 'tasks_app_id_parent_external_id' });
  for (const scope of ['organization_id', 'team_id']) {
    const flow = [scope, 'status', 'completed_at', 'created_at', 'started_at', 'active_seconds', 'paused_seconds', 'backlog_seconds', 'status_changes'];
    await qi.addIndex('tasks', flow, { name: `tasks_${scope}_flow` });
    await qi.addIndex('tasks', [scope, 'status', 'canceled_at'], { name: `tasks_${scope}_canceled` });
  }

  await qi.createTable('task_status_changes', {
    task_id: { ...ref, primaryKey: true },
    external_id: { ...exact(200, false), primaryKey: true },
    organization_id: ref,
    from_name: optionalName,
    to_name: { type: DataTypes.STRING(200), allowNull: false },
    from_category: { type: DataTypes.STRING(40), allowNull: true },
    to_category: { type: DataTypes.STRING(40), allowNull: false },
    from_status: { type: DataTypes.STRING(40), allowNull: true },
    to_status: { type: DataTypes.STRING(40), allowNull: false },
    at: ts,
  });
  await qi.addIndex('task_status_changes', ['organization_id', 'from_status', 'at', 'task_id', 'to_status'], { name: 'task_status_changes_reopened' });
  await qi.createTable('removed_tasks', {
    app_id: { ...ref, primaryKey: true },
    external_id: { ...exact(100, false), primaryKey: true },
    removed_at: ts,
  });

  await qi.addColumn('interactions', 'source_ref', exact(200, true));
  await qi.addIndex('interactions', ['organization_id', 'source_ref'], { name: 'interactions_source_ref', unique: true });

  // Sequelize renames a SQLite column by rebuilding the table, which loses the composite key; both databases rename it in place.
  await qi.sequelize.query('ALTER TABLE ingest_deliveries RENAME COLUMN git_app_id TO app_id');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await qi.sequelize.query('ALTER TABLE ingest_deliveries RENAME COLUMN app_id TO git_app_id');
  await qi.removeIndex('interactions', 'interactions_source_ref');
  await dropColumn(qi, 'interactions', 'source_ref');
  await qi.dropTable('removed_tasks');
  await qi.dropTable('task_status_changes');
  // Tasks of unmapped boards have no team to return to.
  await qi.sequelize.query('DELETE FROM tasks WHERE team_id IS NULL');
  for (const index of ['tasks_app_id_external_id', 'tasks_app_id_board_key', 'tasks_app_id_parent_external_id', 'tasks_organization_id_flow', 'tasks_team_id_flow', 'tasks_organization_id_canceled', 'tasks_team_id_canceled']) {
    await qi.removeIndex('tasks', index);
  }
  for (const column of ['status_changes', 'paused_seconds', 'active_seconds', 'backlog_seconds', 'canceled_at', 'started_at', 'provider_updated_at', 'status_name', 'parent_external_id', 'external_id', 'board_key', 'app_id']) {
    await dropColumn(qi, 'tasks', column);
  }
  if (mysql) await qi.sequelize.query(`ALTER TABLE tasks MODIFY team_id ${MYSQL_ID_TYPE} NOT NULL`);
  else await rebuildSqliteTable(qi, 'tasks', (sql) => sql.replace(TEAM_NULLABLE, TEAM_REQUIRED));
  await qi.dropTable('app_status_overrides');
  await qi.dropTable('app_boards');
  await qi.removeIndex('user_apps', 'user_apps_app_id_external_user_id');
  for (const column of ['points_field', 'previous_secret_expires_at', 'previous_webhook_secret', 'webhook_secret']) await dropColumn(qi, 'apps', column);
}

const TEAM_REQUIRED = '`team_id` VARCHAR(40) NOT NULL';
const TEAM_NULLABLE = '`team_id` VARCHAR(40)';

async function allowNullTeam(qi: QueryInterface, mysql: boolean): Promise<void> {
  if (mysql) await qi.sequelize.query(`ALTER TABLE tasks MODIFY team_id ${MYSQL_ID_TYPE} NULL`);
  else await rebuildSqliteTable(qi, 'tasks', (sql) => sql.replace(TEAM_REQUIRED, TEAM_NULLABLE));
}

/**
 * SQLite cannot change a column: the table is made again from its own definition, changed, with its rows and
 * indexes (the procedure of https://www.sqlite.org/lang_altertable.html#otheralter).
 */
async function rebuildSqliteTable(qi: QueryInterface, table: string, change: (definition: string) => string): Promise<void> {
  const [[definition]] = (await qi.sequelize.query(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = '${table}'`)) as [{ sql: string }[], unknown];
  const changed = change(definition.sql);
  if (changed === definition.sql) throw new Error(`The definition of ${table} is not the one this migration changes: ${definition.sql}`);
  const [indexes] = (await qi.sequelize.query(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '${table}' AND sql IS NOT NULL`)) as [{ sql: string }[], unknown];
  const rebuilt = `${table}_rebuilt`;
  await qi.sequelize.query(changed.replace(/^CREATE TABLE [`"]?\w+[`"]?/, `CREATE TABLE \`${rebuilt}\``));
  await qi.sequelize.query(`INSERT INTO \`${rebuilt}\` SELECT * FROM \`${table}\``);
  await qi.sequelize.query(`DROP TABLE \`${table}\``);
  await qi.sequelize.query(`ALTER TABLE \`${rebuilt}\` RENAME TO \`${table}\``);
  for (const index of indexes) await qi.sequelize.query(index.sql);
}
