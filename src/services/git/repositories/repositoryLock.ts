import { QueryTypes, Transaction } from 'sequelize';
import { Repository } from '../../../../db/models';

/**
 * What the writers keep beside a repository's rows (leadTimes.ts, shippedChanges.ts) is recomputed from its commits
 * and deployments; two deliveries to one repository at once (a push and the deployment that ships it) would each
 * recompute from a view without the other's rows, and the later would write that view. So the recomputation holds
 * the repository's row until its change commits, and reads with a locking read, which sees what others committed
 * meanwhile (a plain read keeps the transaction's first snapshot on MariaDB). SQLite has one writer at a time.
 *
 * Returns the clause that makes a SELECT such a read.
 */
export async function lockRepositoryRollups(transaction: Transaction, repositoryId: string): Promise<string> {
  const sequelize = Repository.sequelize!;
  if (sequelize.getDialect() !== 'mysql') return '';
  await sequelize.query('SELECT id FROM repositories WHERE id = :id FOR UPDATE', { replacements: { id: repositoryId }, type: QueryTypes.SELECT, transaction });
  return ' LOCK IN SHARE MODE';
}
