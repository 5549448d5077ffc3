import { DataTypes, QueryInterface } from 'sequelize';
import { MEASURES } from './0009-telemetry';
import { dropColumn } from './0004-write-path';

/**
 * What an AI vendor's API reported (docs/ai-vendors.md): a row per app, UTC day and account there (a GitHub login,
 * an e-mail), with the member it was matched to ('' when none), and the figures of that day. A day pulled again
 * replaces the app's rows of that day; the rollups ai-usage reads are kept from these rows by the writer, and gain
 * the figures only the vendors report.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

/**
 * The figures a vendor's day may carry: those telemetry's daily rollups keep (0009), and what only the vendors report
 * (suggestions shown and accepted, lines suggested, chat and agent requests). Those a vendor does not report stay 0.
 */
export const VENDOR_ONLY = ['suggestions_shown', 'suggestions_accepted', 'lines_suggested', 'chat_requests', 'agent_requests'];
const VENDOR_MEASURES = [...MEASURES, ...VENDOR_ONLY];
const ROLLUPS = ['ai_usage_days', 'ai_usage_org_days'];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const id = { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  const measures = Object.fromEntries(VENDOR_MEASURES.map((m) => [m, { type: DataTypes.DOUBLE, allowNull: false, defaultValue: 0 }]));
  await qi.createTable('ai_vendor_days', {
    app_id: { ...id, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    // The vendor's account, lower-cased: a GitHub login or an e-mail.
    account: { type: DataTypes.STRING(320), allowNull: false, primaryKey: true },
    organization_id: id,
    tool: { type: DataTypes.STRING(40), allowNull: false },
    user_key: { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false },
    active: { type: DataTypes.BOOLEAN, allowNull: false },
    ...measures,
  });
  // A member's days, for a team's figures and for the rollups kept per member.
  await qi.addIndex('ai_vendor_days', ['organization_id', 'user_key', 'day'], { name: 'ai_vendor_days_organization_id_user_key_day' });
  for (const table of ROLLUPS) {
    const columns = await qi.describeTable(table);
    if (mysql) {
      // One statement per table, the columns added at its end (instant on MariaDB, whatever the table's size).
      const added = VENDOR_ONLY.filter((m) => !(m in columns)).map((m) => `ADD COLUMN ${m} DOUBLE NOT NULL DEFAULT 0`);
      if (added.length) await qi.sequelize.query(`ALTER TABLE ${table} ${added.join(', ')}`);
      continue;
    }
    for (const m of VENDOR_ONLY) if (!(m in columns)) await qi.addColumn(table, m, { type: DataTypes.DOUBLE, allowNull: false, defaultValue: 0 });
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of ROLLUPS) {
    // What the vendors brought has no column to go to in the older schema: their tools' rows go with it.
    await qi.sequelize.query(`DELETE FROM ${table} WHERE tool IN ('copilot', 'cursor')`);
    if (table === ROLLUPS[0]) await qi.sequelize.query("DELETE FROM ai_active_months WHERE tool IN ('copilot', 'cursor')");
    for (const m of [...VENDOR_ONLY].reverse()) if (m in (await qi.describeTable(table))) await dropColumn(qi, table, m);
  }
  await qi.dropTable('ai_vendor_days');
}
