import { DataType, DataTypes, ModelAttributeColumnOptions, QueryInterface, QueryTypes } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * Apps become real (docs/trackers.md#trackers): an app keeps a sealed webhook secret like a git app, and Jira's the
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

  await trackTasks(qi, mysql);

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

  await renameDeliveryKey(qi, 'git_app_id', 'app_id');
}

/**
 * Sequelize renames a SQLite column by rebuilding the table, which loses the composite key; both databases rename it
 * in place. Done already when the old name is gone (a migration run again after failing halfway).
 */
async function renameDeliveryKey(qi: QueryInterface, from: string, to: string): Promise<void> {
  if (from in (await qi.describeTable('ingest_deliveries'))) await qi.sequelize.query(`ALTER TABLE ingest_deliveries RENAME COLUMN ${from} TO ${to}`);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await renameDeliveryKey(qi, 'app_id', 'git_app_id');
  await qi.removeIndex('interactions', 'interactions_source_ref');
  await dropColumn(qi, 'interactions', 'source_ref');
  await qi.dropTable('removed_tasks');
  await qi.dropTable('task_status_changes');
  // Tasks of unmapped boards have no team to return to.
  await qi.sequelize.query('DELETE FROM tasks WHERE team_id IS NULL');
  if (mysql) {
    if ('status_changes' in (await qi.describeTable('tasks'))) {
      const drops = [...TASK_INDEXES.map(([name]) => `DROP INDEX ${name}`), ...TASK_COLUMNS.map(([name]) => `DROP COLUMN ${name}`)];
      // Rebuilt (FORCE), as dropColumn does: MariaDB keeps instantly dropped columns in the row format.
      await qi.sequelize.query(`ALTER TABLE tasks ${drops.join(', ')}, MODIFY team_id ${MYSQL_ID_TYPE} NOT NULL, FORCE`);
    }
  } else {
    for (const [name] of TASK_INDEXES) await qi.removeIndex('tasks', name);
    for (const [name] of [...TASK_COLUMNS].reverse()) await dropColumn(qi, 'tasks', name);
    await rebuildSqliteTable(qi, 'tasks', (sql) => sql.replace(TEAM_NULLABLE, TEAM_REQUIRED));
  }
  await qi.dropTable('app_status_overrides');
  await qi.dropTable('app_boards');
  await qi.removeIndex('user_apps', 'user_apps_app_id_external_user_id');
  for (const column of ['points_field', 'previous_secret_expires_at', 'previous_webhook_secret', 'webhook_secret']) await dropColumn(qi, 'apps', column);
}

const optional = (type: DataType) => ({ type, allowNull: true });

/** The columns tasks gain: in MySQL's words (ids and provider keys case-exact), and SQLite's. */
const TASK_COLUMNS: [name: string, mysql: string, sqlite: ModelAttributeColumnOptions][] = [
  ['app_id', `${MYSQL_ID_TYPE} NULL`, optional(DataTypes.STRING(40))],
  ['board_key', 'VARCHAR(200) BINARY NULL', optional(DataTypes.STRING(200))],
  ['external_id', 'VARCHAR(100) BINARY NULL', optional(DataTypes.STRING(100))],
  ['parent_external_id', 'VARCHAR(100) BINARY NULL', optional(DataTypes.STRING(100))],
  ['status_name', 'VARCHAR(200) NULL', optional(DataTypes.STRING(200))],
  ['provider_updated_at', 'DATETIME(3) NULL', optional(DataTypes.DATE(3))],
  ['started_at', 'DATETIME(3) NULL', optional(DataTypes.DATE(3))],
  ['canceled_at', 'DATETIME(3) NULL', optional(DataTypes.DATE(3))],
  ['backlog_seconds', 'INTEGER NULL', optional(DataTypes.INTEGER)],
  ['active_seconds', 'INTEGER NULL', optional(DataTypes.INTEGER)],
  ['paused_seconds', 'INTEGER NULL', optional(DataTypes.INTEGER)],
  ['status_changes', 'INTEGER NOT NULL DEFAULT 0', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 }],
];

const flowIndex = (scope: string) => [scope, 'status', 'completed_at', 'created_at', 'started_at', 'active_seconds', 'paused_seconds', 'backlog_seconds', 'status_changes'];

const TASK_INDEXES: [name: string, columns: string[], unique?: true][] = [
  ['tasks_app_id_external_id', ['app_id', 'external_id'], true],
  ['tasks_app_id_board_key', ['app_id', 'board_key']],
  ['tasks_app_id_parent_external_id', ['app_id', 'parent_external_id']],
  ['tasks_organization_id_flow', flowIndex('organization_id')],
  ['tasks_organization_id_canceled', ['organization_id', 'status', 'canceled_at']],
  ['tasks_team_id_flow', flowIndex('team_id')],
  ['tasks_team_id_canceled', ['team_id', 'status', 'canceled_at']],
];

/**
 * Tasks may have no team, and gain their columns and indexes. On MySQL in one statement, which MariaDB applies
 * whole or not at all (done already when the last column exists); twenty statements each rebuilding or scanning
 * the table took seconds. On SQLite step by step, after the table is rebuilt with `team_id` nullable.
 */
async function trackTasks(qi: QueryInterface, mysql: boolean): Promise<void> {
  if (mysql) {
    if ('status_changes' in (await qi.describeTable('tasks'))) return;
    const columns = TASK_COLUMNS.map(([name, type]) => `ADD COLUMN ${name} ${type}`);
    const indexes = TASK_INDEXES.map(([name, cols, unique]) => `ADD ${unique ? 'UNIQUE ' : ''}INDEX ${name} (${cols.join(', ')})`);
    await qi.sequelize.query(`ALTER TABLE tasks MODIFY team_id ${MYSQL_ID_TYPE} NULL, ${[...columns, ...indexes].join(', ')}`);
    return;
  }
  await rebuildSqliteTable(qi, 'tasks', (sql) => sql.replace(TEAM_REQUIRED, TEAM_NULLABLE));
  for (const [name, , attributes] of TASK_COLUMNS) await qi.addColumn('tasks', name, attributes);
  for (const [name, cols, unique] of TASK_INDEXES) await qi.addIndex('tasks', cols, { name, unique: unique ?? false });
}

const TEAM_REQUIRED = '`team_id` VARCHAR(40) NOT NULL';
const TEAM_NULLABLE = '`team_id` VARCHAR(40)';

/**
 * SQLite cannot change a column: the table is made again from its own definition, changed, with its rows and
 * indexes (the procedure of https://www.sqlite.org/lang_altertable.html#otheralter). A definition the change leaves
 * as it was is changed already.
 */
export async function rebuildSqliteTable(qi: QueryInterface, table: string, change: (definition: string) => string): Promise<void> {
  const master = (type: 'table' | 'index') =>
    qi.sequelize.query<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = :type AND tbl_name = :table AND sql IS NOT NULL`, { type: QueryTypes.SELECT, replacements: { type, table } });
  const [definition] = await master('table');
  const changed = change(definition.sql);
  // Changed already (a migration run again after failing halfway).
  if (changed === definition.sql) return;
  const indexes = await master('index');
  const rebuilt = `${table}_rebuilt`;
  // One transaction: a failure leaves the table as it was, never half rebuilt.
  await qi.sequelize.transaction(async (transaction) => {
    const run = (sql: string) => qi.sequelize.query(sql, { transaction });
    await run(`DROP TABLE IF EXISTS \`${rebuilt}\``);
    await run(changed.replace(/^CREATE TABLE [`"]?\w+[`"]?/, `CREATE TABLE \`${rebuilt}\``));
    await run(`INSERT INTO \`${rebuilt}\` SELECT * FROM \`${table}\``);
    await run(`DROP TABLE \`${table}\``);
    await run(`ALTER TABLE \`${rebuilt}\` RENAME TO \`${table}\``);
    for (const index of indexes) await run(index.sql);
  });
}
