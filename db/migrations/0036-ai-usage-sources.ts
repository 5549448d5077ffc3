import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';
import { rebuildSqliteTable } from './0032-tracker-apps';

/**
 * Where each row of the AI usage rollups came from: `otlp` (the tools' telemetry) or `vendor` (a vendor's API,
 * docs/ai-vendors.md), part of the rollups' keys. A member's day of Claude Code may be reported by both, and only
 * OTLP's figures count then: with the source in the key, the vendor's rows of a day are made again from what the
 * vendor reported, or taken out when OTLP's arrive, without touching OTLP's.
 *
 * `ai_vendor_days.counted`: whether a vendor's row is in the rollups. Copilot's and Cursor's active rows always
 * are (no telemetry reports them); Claude Code's are made so by its next pull, which sees OTLP's rows.
 *
 * `ai_vendor_sources.credential` may be null: an app that holds reports but no credential yet (the demo's, which
 * cannot seal one: the service's key is not the seed's to know) is pulled once `apps set-secret` stores one.
 */
const ROLLUPS = { ai_usage_days: ['organization_id', 'day', 'user_key', 'tool', 'model'], ai_usage_org_days: ['organization_id', 'day', 'tool', 'model', 'attributed'] };
type Rollup = keyof typeof ROLLUPS;
const key = (columns: string[]) => `PRIMARY KEY (${columns.map((c) => `\`${c}\``).join(', ')})`;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  for (const [table, columns] of Object.entries(ROLLUPS) as [Rollup, string[]][]) {
    if (!('source' in (await qi.describeTable(table)))) {
      if (mysql) {
        // One statement: MariaDB rebuilds the table with the column and the new key, or leaves it as it was.
        await qi.sequelize.query(`ALTER TABLE ${table} ADD COLUMN source VARCHAR(10) NOT NULL DEFAULT 'otlp', DROP PRIMARY KEY, ADD PRIMARY KEY (${[...columns, 'source'].join(', ')})`);
      } else {
        await qi.addColumn(table, 'source', { type: DataTypes.STRING(10), allowNull: false, defaultValue: 'otlp' });
      }
    }
    if (!mysql) await rebuildSqliteTable(qi, table, (sql) => sql.replace(key(columns), key([...columns, 'source'])));
    // Copilot's and Cursor's rows came from their vendors' APIs: no telemetry reports those tools.
    await qi.sequelize.query(`UPDATE ${table} SET source = 'vendor' WHERE tool IN ('copilot', 'cursor')`);
  }
  if (mysql) await qi.sequelize.query('ALTER TABLE ai_vendor_sources MODIFY credential TEXT NULL');
  else await rebuildSqliteTable(qi, 'ai_vendor_sources', (sql) => sql.replace('`credential` TEXT NOT NULL', '`credential` TEXT'));
  if (!('counted' in (await qi.describeTable('ai_vendor_days')))) {
    await qi.addColumn('ai_vendor_days', 'counted', { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false });
  }
  await qi.sequelize.query("UPDATE ai_vendor_days SET counted = active WHERE tool <> 'claude_code'");
  // A day of a tool, as its vendor rows are made again after each pull: its rows alone, not the organization's year.
  if (!(await hasIndex(qi, 'ai_vendor_days', DAY_INDEX))) await qi.addIndex('ai_vendor_days', ['organization_id', 'day', 'tool'], { name: DAY_INDEX });
}

const DAY_INDEX = 'ai_vendor_days_organization_id_day_tool';
const hasIndex = async (qi: QueryInterface, table: string, name: string) => ((await qi.showIndex(table)) as { name: string }[]).some((i) => i.name === name);

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  if (await hasIndex(qi, 'ai_vendor_days', DAY_INDEX)) await qi.removeIndex('ai_vendor_days', DAY_INDEX);
  for (const [table, columns] of Object.entries(ROLLUPS) as [Rollup, string[]][]) {
    if (!('source' in (await qi.describeTable(table)))) continue;
    // The older key has no room for Claude Code's vendor rows beside OTLP's: they go (the next pull, once migrated
    // up again, makes them anew). The active days they alone showed stay marked.
    await qi.sequelize.query(`DELETE FROM ${table} WHERE source = 'vendor' AND tool NOT IN ('copilot', 'cursor')`);
    if (mysql) {
      await qi.sequelize.query(`ALTER TABLE ${table} DROP PRIMARY KEY, ADD PRIMARY KEY (${columns.join(', ')}), DROP COLUMN source`);
      continue;
    }
    await rebuildSqliteTable(qi, table, (sql) => sql.replace(key([...columns, 'source']), key(columns)));
    // On a connection of its own: the rebuild ran on another one, and SQLite's DROP COLUMN checks this
    // connection's copy of the schema, which still shows the old key, without reading it again.
    await qi.sequelize.transaction((transaction) => qi.sequelize.query(`ALTER TABLE \`${table}\` DROP COLUMN source`, { transaction }));
  }
  if ('counted' in (await qi.describeTable('ai_vendor_days'))) await dropColumn(qi, 'ai_vendor_days', 'counted');
  // The older schema requires a credential: an app without one is read as one never connected (its days stay).
  await qi.sequelize.query('DELETE FROM ai_vendor_sources WHERE credential IS NULL');
  if (mysql) await qi.sequelize.query('ALTER TABLE ai_vendor_sources MODIFY credential TEXT NOT NULL');
  else await rebuildSqliteTable(qi, 'ai_vendor_sources', (sql) => sql.replace(/`credential` TEXT(?! NOT NULL)/, '`credential` TEXT NOT NULL'));
}
