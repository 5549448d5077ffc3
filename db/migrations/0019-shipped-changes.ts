import { DataTypes, QueryInterface } from 'sequelize';
import { markShippedChanges } from '../rollups/deployments';
import { dropColumn } from './0004-write-path';

/**
 * What each production deployment shipped, kept on it (docs/metrics.md#ai-review-and-cost-figures) by the deployment, commit, incident and telemetry
 * writers (src/services/git/rollups/shippedChanges.ts): `shipped_ai`, its changes (or, failed, those it would have shipped)
 * include an AI-assisted commit; `blamed`, an incident of its repository names its commit as the cause. Read at
 * request time these cost a range of commits per deployment: minutes for a year of the large data. Deployments
 * already stored get theirs here, found from the AI-assisted commits and the incidents.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const flag = { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false };
  await qi.addColumn('deployments', 'shipped_ai', flag);
  await qi.addColumn('deployments', 'blamed', flag);
  await markShippedChanges(qi, 'production', 'activity');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await dropColumn(qi, 'deployments', 'blamed');
  await dropColumn(qi, 'deployments', 'shipped_ai');
}
