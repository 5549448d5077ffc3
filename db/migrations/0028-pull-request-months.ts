import { DataTypes, QueryInterface } from 'sequelize';
import { fillPullRequestMonths } from '../rollups/pullRequests';

/**
 * `pull_request_months`: the monthly sums of `pull_request_days` (per repository and per organization, month of
 * merge, measure, AI-assisted or not, band), kept beside them by the same writer (src/services/git/rollups/pullRequestSamples.ts).
 * A window reads its whole months from here and only its edges by day (MetricSql.daysAndMonths): a year of the
 * large data's biggest organization is some 7,000 rows instead of 36,000, read by every figure on merged pull
 * requests (collaboration, AI impact, pull requests, financial).
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const id = { type: qi.sequelize.getDialect() === 'mysql' ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false };
  await qi.createTable('pull_request_months', {
    scope_id: { ...id, primaryKey: true },
    month: { type: DataTypes.STRING(7), allowNull: false, primaryKey: true },
    measure: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    ai: { type: DataTypes.BOOLEAN, allowNull: false, primaryKey: true },
    band: { type: DataTypes.SMALLINT, allowNull: false, primaryKey: true },
    pull_requests: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  await fillPullRequestMonths(qi);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('pull_request_months');
}
