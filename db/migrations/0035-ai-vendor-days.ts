import { DataTypes, QueryInterface } from 'sequelize';
import { MEASURES } from './0009-telemetry';

/**
 * What an AI vendor's API reported (docs/ai-vendors.md): a row per app, UTC day and account there (a GitHub login,
 * an e-mail), with the member it was matched to ('' when none), and the figures of that day. A day pulled again
 * replaces the app's rows of that day; the rollups ai-usage reads are kept from these rows by the writer.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

/**
 * The figures a vendor's day may carry: those telemetry's daily rollups keep (0009), and what only the vendors report
 * (suggestions shown and accepted, lines suggested, chat and agent requests). Those a vendor does not report stay 0.
 */
const VENDOR_MEASURES = [...MEASURES, 'suggestions_shown', 'suggestions_accepted', 'lines_suggested', 'chat_requests', 'agent_requests'];

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
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('ai_vendor_days');
}
