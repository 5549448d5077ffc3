import { DataTypes, QueryInterface } from 'sequelize';
import { fillRecoveries } from '../rollups/recoveries';
import { dropColumn } from './0004-write-path';

/**
 * `deployments.recovered_at`: when a failed deployment (status failure, or blamed by an incident) was recovered, the
 * finish of the next successful deployment to its repository and environment that is not itself blamed; null while
 * none has (docs/metrics.md#dora-the-four-keys-method: failed deployment recovery time). Kept by the deployment and
 * incident writers (src/services/git/rollups/shippedChanges.ts) so that the figure reads it instead of looking for
 * each failed deployment's next clean success. The stored deployments get theirs here, for every environment; a run
 * that failed halfway writes what the first left out, and a second run changes nothing.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('deployments', 'recovered_at', { type: DataTypes.DATE(3), allowNull: true });
  await fillRecoveries(qi);
}

/** Only while it is there: a down that failed halfway runs again. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (Object.keys(await qi.describeTable('deployments')).includes('recovered_at')) await dropColumn(qi, 'deployments', 'recovered_at');
}
