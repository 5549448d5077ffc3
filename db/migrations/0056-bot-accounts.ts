import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * Bots out of the pull-request and collaboration figures (docs/metrics.md#bots):
 * - pull requests keep their author's login and their activity who acted (`author_login`, `actor_login`), as the
 *   provider names them, so an organization's bot settings can be applied again to what is stored;
 * - `bot` on pull requests, their activity and samples, and in the key of the daily and monthly counts: two bits,
 *   one per generation of the bot settings (db/rollups/botAccounts.ts), so a change of them is recomputed while the
 *   figures read the other;
 * - `bots_generation` on the settings, and `metric_recomputations`: the recomputation under way, with its progress.
 * The indexes the figures read from alone carry `bot` so they still do. Nothing stored is a bot's yet: no login was
 * kept before this, and a pull request learns its author's from its next delivery or import.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';
const BOT = { type: DataTypes.TINYINT, allowNull: false, defaultValue: 0 };
const LOGIN = { type: DataTypes.STRING(255), allowNull: true };

/** [table, index name, columns before, columns after]: each rebuilt with `bot` last. */
const INDEXES: [string, string, string[]][] = [
  ['pull_request_samples', 'pull_request_samples_organization_id_band', ['organization_id', 'measure', 'ai', 'band', 'merged_at', 'value']],
  ['pull_request_samples', 'pull_request_samples_repository_id_band', ['repository_id', 'measure', 'ai', 'band', 'merged_at', 'value']],
  ['pull_request_activities', 'pull_request_activities_organization_id_peer_review', ['organization_id', 'peer_review', 'created_at', 'actor_id', 'pull_request_author_id']],
  ['pull_request_activities', 'pull_request_activities_repository_id_peer_review', ['repository_id', 'peer_review', 'created_at', 'actor_id', 'pull_request_author_id']],
  ['pull_requests', 'pull_requests_organization_id_created_at', ['organization_id', 'created_at']],
  ['pull_requests', 'pull_requests_organization_id_merged_at_reviewer', ['organization_id', 'merged_at', 'author_id', 'sole_reviewer_id']],
];

const COUNTS = ['pull_request_days', 'pull_request_months'] as const;
const PERIOD: Record<(typeof COUNTS)[number], string> = { pull_request_days: 'day', pull_request_months: 'month' };

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await qi.addColumn('pull_requests', 'author_login', LOGIN);
  await qi.addColumn('pull_request_activities', 'actor_login', LOGIN);
  for (const table of ['pull_requests', 'pull_request_activities', 'pull_request_samples']) await qi.addColumn(table, 'bot', BOT);
  for (const table of COUNTS) await withBotInKey(qi, table, mysql);
  for (const [table, name, columns] of INDEXES) {
    await qi.removeIndex(table, name);
    await qi.addIndex(table, [...columns, 'bot'], { name });
  }
  await qi.addColumn('metric_settings', 'bots_generation', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
  const id = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('metric_recomputations', {
    organization_id: { ...id, primaryKey: true },
    version: { type: DataTypes.INTEGER, allowNull: false },
    document: { type: DataTypes.TEXT, allowNull: false },
    after_id: { ...id, allowNull: true },
    done: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    total: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    started_at: { type: DataTypes.DATE(3), allowNull: false },
    updated_at: { type: DataTypes.DATE(3), allowNull: false },
  });
}

/**
 * The counts' key gains `bot` (every stored row a person's: 0). MariaDB in one statement, so a failure leaves the
 * table as it was; SQLite cannot change a primary key, so the table is copied into one of the new shape.
 */
async function withBotInKey(qi: QueryInterface, table: (typeof COUNTS)[number], mysql: boolean): Promise<void> {
  if (await copiedAlready(qi, table, `${table}_with_bots`)) return;
  if (Object.keys(await qi.describeTable(table)).includes('bot')) return;
  const period = PERIOD[table];
  if (mysql) {
    await qi.sequelize.query(`ALTER TABLE ${table} ADD COLUMN bot TINYINT NOT NULL DEFAULT 0, DROP PRIMARY KEY, ADD PRIMARY KEY (scope_id, ${period}, measure, ai, band, bot)`);
    return;
  }
  const periodType = period === 'day' ? 'DATE' : 'VARCHAR(7)';
  await qi.sequelize.query(`DROP TABLE IF EXISTS ${table}_with_bots`);
  await qi.sequelize.query(`CREATE TABLE ${table}_with_bots (scope_id VARCHAR(40) NOT NULL, ${period} ${periodType} NOT NULL, measure SMALLINT NOT NULL,
    ai TINYINT(1) NOT NULL, band SMALLINT NOT NULL, bot TINYINT NOT NULL DEFAULT 0, pull_requests INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scope_id, ${period}, measure, ai, band, bot))`);
  await qi.sequelize.query(`INSERT INTO ${table}_with_bots (scope_id, ${period}, measure, ai, band, bot, pull_requests)
    SELECT scope_id, ${period}, measure, ai, band, 0, pull_requests FROM ${table}`);
  await qi.sequelize.query(`DROP TABLE ${table}`);
  await qi.sequelize.query(`ALTER TABLE ${table}_with_bots RENAME TO ${table}`);
}

/** Bots' rows fold back into the counts they were apart from; each step only while it is still to do. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await qi.dropTable('metric_recomputations');
  if (Object.keys(await qi.describeTable('metric_settings')).includes('bots_generation')) await dropColumn(qi, 'metric_settings', 'bots_generation');
  for (const [table, name, columns] of [...INDEXES].reverse()) {
    await qi.removeIndex(table, name);
    await qi.addIndex(table, columns, { name });
  }
  for (const table of COUNTS) await withoutBotInKey(qi, table, mysql);
  for (const [table, column] of [['pull_request_samples', 'bot'], ['pull_request_activities', 'bot'], ['pull_requests', 'bot'], ['pull_request_activities', 'actor_login'], ['pull_requests', 'author_login']]) {
    if (Object.keys(await qi.describeTable(table)).includes(column)) await dropColumn(qi, table, column);
  }
}

async function withoutBotInKey(qi: QueryInterface, table: (typeof COUNTS)[number], mysql: boolean): Promise<void> {
  if (await copiedAlready(qi, table, `${table}_without_bots`)) return;
  if (!Object.keys(await qi.describeTable(table)).includes('bot')) return;
  const period = PERIOD[table];
  const periodType = period === 'day' ? 'DATE' : 'VARCHAR(7)';
  const id = mysql ? MYSQL_ID_TYPE : 'VARCHAR(40)';
  await qi.sequelize.query(`DROP TABLE IF EXISTS ${table}_without_bots`);
  await qi.sequelize.query(`CREATE TABLE ${table}_without_bots (scope_id ${id} NOT NULL, ${period} ${periodType} NOT NULL, measure SMALLINT NOT NULL,
    ai TINYINT(1) NOT NULL, band SMALLINT NOT NULL, pull_requests INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (scope_id, ${period}, measure, ai, band))`);
  await qi.sequelize.query(`INSERT INTO ${table}_without_bots (scope_id, ${period}, measure, ai, band, pull_requests)
    SELECT scope_id, ${period}, measure, ai, band, SUM(pull_requests) FROM ${table} GROUP BY scope_id, ${period}, measure, ai, band`);
  await qi.sequelize.query(`DROP TABLE ${table}`);
  await qi.sequelize.query(`ALTER TABLE ${table}_without_bots RENAME TO ${table}`);
}

/**
 * A run that failed between dropping the table and renaming its copy (MariaDB commits each statement): the copy is
 * complete, so it takes the table's name, and the step is done.
 */
async function copiedAlready(qi: QueryInterface, table: string, copy: string): Promise<boolean> {
  if (await qi.tableExists(table)) return false;
  await qi.sequelize.query(`ALTER TABLE ${copy} RENAME TO ${table}`);
  return true;
}
