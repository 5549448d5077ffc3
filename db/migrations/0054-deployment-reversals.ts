import { DataTypes, QueryInterface } from 'sequelize';
import { fillReversals } from '../rollups/reverts';
import { dropColumn } from './0004-write-path';

/**
 * `deployments.reverted_at`: when a successful deployment was reverted or rolled back, the finish of the first later
 * successful deployment to its repository and environment, within 720 hours, that shipped a revert of a commit it
 * shipped or deployed a commit deployed before it (db/rollups/reverts.ts); null while none has. A change failure by
 * `change_failure.revert_within_hours` (docs/metrics.md#what-counts), kept by the deployment and commit writers so
 * that the figures read it as a condition on each deployment. The stored deployments get theirs here; a run that
 * failed halfway writes what the first left out, and a second run changes nothing.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (!Object.keys(await qi.describeTable('deployments')).includes('reverted_at')) await qi.addColumn('deployments', 'reverted_at', { type: DataTypes.DATE(3), allowNull: true });
  await fillReversals(qi);
}

/** Only while it is there: a down that failed halfway runs again. */
export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (Object.keys(await qi.describeTable('deployments')).includes('reverted_at')) await dropColumn(qi, 'deployments', 'reverted_at');
}
