import { DataTypes, QueryInterface } from 'sequelize';
import { fillCommitDays } from '../rollups/commits';

/**
 * `commit_days`: how many commits were created each UTC day, and how many of them are AI-assisted (docs/metrics.md#ai-review-and-cost-figures), per
 * repository and per organization (`scope_id` holds either id: a team reads its repositories' rows, an organization
 * its own, a year either way being a few hundred rows, not a year of commits read row by row). Kept by the commit,
 * telemetry and repository writers (src/services/git/rollups/commitDays.ts). Filled here from the commits already stored.
 */
const MYSQL_ID_TYPE = 'VARCHAR(40) BINARY';

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const mysql = qi.sequelize.getDialect() === 'mysql';
  await qi.createTable('commit_days', {
    scope_id: { type: mysql ? MYSQL_ID_TYPE : DataTypes.STRING(40), allowNull: false, primaryKey: true },
    day: { type: DataTypes.DATEONLY, allowNull: false, primaryKey: true },
    commits: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    ai_commits: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
  });
  await fillCommitDays(qi, 'activity');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('commit_days');
}
