import { DataTypes, ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import { markRework } from '../rollups/deployments';
import { dropColumn } from './0004-write-path';
import { rebuildSqliteTable } from './0032-tracker-apps';

/**
 * Incidents and deployments arrive from apps too (docs/incidents.md): PagerDuty, Opsgenie and the deployments API.
 * Such a row keeps the app and the board it came from (a PagerDuty service, an Opsgenie team, the repository name a
 * CI job gave), unique per app and provider id; a board not mapped to a repository yet leaves it without one (no
 * repository, no git app), counted for its organization and placed when the board is mapped. An incident may name
 * the commit that fixed it; a production deployment keeps whether it was rework (shipped while an incident of its
 * repository was open, or named as an incident's fix), kept by the writers as `blamed` is.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

const optional = (mysql: string, sqlite: ModelAttributeColumnOptions) => ({ mysql, sqlite });

const COLUMNS = {
  deployments: [
    ['app_id', optional(`${MYSQL_ID_TYPE} NULL`, { type: DataTypes.STRING(40), allowNull: true })],
    ['board_key', optional('VARCHAR(200) BINARY NULL', { type: DataTypes.STRING(200), allowNull: true })],
    ['rework', optional('TINYINT(1) NOT NULL DEFAULT 0', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false })],
  ],
  incidents: [
    ['app_id', optional(`${MYSQL_ID_TYPE} NULL`, { type: DataTypes.STRING(40), allowNull: true })],
    ['board_key', optional('VARCHAR(200) BINARY NULL', { type: DataTypes.STRING(200), allowNull: true })],
    ['fix_sha', optional('VARCHAR(40) NULL', { type: DataTypes.STRING(40), allowNull: true })],
  ],
} as const;

type Table = keyof typeof COLUMNS;

const indexes = (table: Table): [name: string, columns: string[], unique: boolean][] => [
  [`${table}_app_id_external_id_unique`, ['app_id', 'external_id'], true],
  [`${table}_app_id_board_key`, ['app_id', 'board_key'], false],
];

const PLACED = ['repository_id', 'git_app_id'];
const required = (column: string) => `\`${column}\` VARCHAR(40) NOT NULL`;
const nullable = (column: string) => `\`${column}\` VARCHAR(40)`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of Object.keys(COLUMNS) as Table[]) {
    const last = COLUMNS[table][COLUMNS[table].length - 1][0];
    // Done already when its last column exists (a migration run again after failing halfway).
    if (last in (await qi.describeTable(table))) continue;
    if (qi.sequelize.getDialect() === 'mysql') {
      // One statement, applied whole or not at all.
      const changes = [
        ...PLACED.map((column) => `MODIFY ${column} ${MYSQL_ID_TYPE} NULL`),
        ...COLUMNS[table].map(([name, type]) => `ADD COLUMN ${name} ${type.mysql}`),
        ...indexes(table).map(([name, columns, unique]) => `ADD ${unique ? 'UNIQUE ' : ''}INDEX ${name} (${columns.join(', ')})`),
      ];
      await qi.sequelize.query(`ALTER TABLE ${table} ${changes.join(', ')}`);
      continue;
    }
    await rebuildSqliteTable(qi, table, (sql) => PLACED.reduce((changed, column) => changed.replace(required(column), nullable(column)), sql));
    for (const [name, type] of COLUMNS[table]) await qi.addColumn(table, name, type.sqlite);
    for (const [name, columns, unique] of indexes(table)) await qi.addIndex(table, columns, { name, unique });
  }
  // The incidents stored so far name no fix: rework is what finished while one was open.
  await markRework(qi, 'production');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  for (const table of Object.keys(COLUMNS) as Table[]) {
    if (!('app_id' in (await qi.describeTable(table)))) continue;
    // What came from apps has no place in the older schema.
    await qi.sequelize.query(`DELETE FROM ${table} WHERE app_id IS NOT NULL OR repository_id IS NULL`);
    if (mysql) {
      const drops = [...indexes(table).map(([name]) => `DROP INDEX ${name}`), ...COLUMNS[table].map(([name]) => `DROP COLUMN ${name}`)];
      await qi.sequelize.query(`ALTER TABLE ${table} ${drops.join(', ')}, ${PLACED.map((column) => `MODIFY ${column} ${MYSQL_ID_TYPE} NOT NULL`).join(', ')}, FORCE`);
      continue;
    }
    for (const [name] of indexes(table)) await qi.removeIndex(table, name);
    for (const [name] of [...COLUMNS[table]].reverse()) await dropColumn(qi, table, name);
    await rebuildSqliteTable(qi, table, (sql) => PLACED.reduce((changed, column) => changed.replace(nullable(column) + ',', required(column) + ','), sql));
  }
}
