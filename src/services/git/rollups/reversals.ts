import { Transaction } from 'sequelize';
import { Deployment } from '../../../../db/models';
import { markReversals } from '../../../../db/rollups/reverts';
import { lockRepositoryRollups } from '../repositories/repositoryLock';

/**
 * Which deployments were reverted or rolled back, and when (`reverted_at`, db/rollups/reverts.ts), recomputed for
 * one repository in the writer's transaction by the writers whose rows decide it: a deployment (from the earlier of
 * its old and new finish) and commits (from the earliest: what later deployments shipped), each once the lead times
 * are kept, whose shipped changes it reads.
 */
export async function refreshReversals(transaction: Transaction | null, repositoryId: string, since: Date | null): Promise<void> {
  const locking = transaction ? await lockRepositoryRollups(transaction, repositoryId) : '';
  await markReversals(Deployment.sequelize!, repositoryId, { since, transaction, locking });
}
