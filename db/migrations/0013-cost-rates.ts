import { DataTypes, QueryInterface } from 'sequelize';
import { dropColumn } from './0004-write-path';

/**
 * What the financial metrics (docs/metrics.md#ai-review-and-cost-figures) read besides activity:
 * - `cost_rates`: an organization's cost inputs, set by `npm run costs`, one row per subject: `organization` (the
 *   default annual cost of a member), `user` (one member's annual cost; `subject_id` their user id), `tool` (an AI
 *   tool's monthly seat price per active user; `subject_id` its name) and `usd_rate` (1 US dollar in the
 *   organization's currency, for the tools' cost estimates, which are in USD). One currency per organization: the
 *   service keeps every row of an organization in the same one.
 * - `suspended_at` of organization and team memberships: since when a suspended membership is, so a window's
 *   people cost counts a member until then. Memberships suspended before this migration get their last change's
 *   time (`updated_at`, else `created_at`); team memberships, which have no `updated_at`, carry their member's
 *   organization membership state and so its time.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  const time = { type: DataTypes.DATE(3), allowNull: false };
  await qi.createTable('cost_rates', {
    // The first foreign key of the schema: rates mean nothing without their organization, and go with it.
    organization_id: {
      type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40),
      allowNull: false,
      primaryKey: true,
      references: { model: 'organizations', key: 'id' },
      onDelete: 'CASCADE',
    },
    subject: { type: DataTypes.STRING(16), allowNull: false, primaryKey: true },
    // A user id or a tool name, compared exactly like ids; '' for the organization's default and its USD rate.
    subject_id: { type: mysql ? 'VARCHAR(64) BINARY' : DataTypes.STRING(64), allowNull: false, primaryKey: true, defaultValue: '' },
    amount: { type: DataTypes.DECIMAL(14, 4), allowNull: false },
    currency: { type: DataTypes.CHAR(3), allowNull: false },
    created_at: time,
    updated_at: time,
  });

  const suspendedAt = { type: DataTypes.DATE(3), allowNull: true };
  await qi.addColumn('organization_memberships', 'suspended_at', suspendedAt);
  await qi.addColumn('team_memberships', 'suspended_at', suspendedAt);
  await qi.sequelize.query("UPDATE organization_memberships SET suspended_at = COALESCE(updated_at, created_at) WHERE status = 'suspended'");
  await qi.sequelize.query(
    `UPDATE team_memberships SET suspended_at = COALESCE(
       (SELECT om.suspended_at FROM organization_memberships om JOIN teams t ON t.organization_id = om.organization_id
         WHERE t.id = team_memberships.team_id AND om.user_id = team_memberships.user_id),
       created_at)
     WHERE status = 'suspended'`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'team_memberships', 'suspended_at');
  await dropColumn(qi, 'organization_memberships', 'suspended_at');
  await qi.dropTable('cost_rates');
}
