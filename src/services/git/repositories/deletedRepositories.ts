import { Op } from 'sequelize';
import { Repository } from '../../../../db/models';
import type { Change, ChangeRunner } from '../../../persistence/changes/change';
import { ResultCache } from '../../../persistence/query/countCache';
import { DataVersions } from '../../../persistence/query/dataVersions';
import { conflict, DomainError, notFound } from '../../../errors';
import { deleteRepository } from './repositories';

/*
 * A repository its provider reports deleted is hidden, not erased (docs/ingest.md#a-deleted-repository). The report is
 * a signed body, but an old body resent, or a deletion undone at the provider, must cost nothing that cannot be
 * undone: its rows stay where they are, out of every list; it comes back as it was when the provider delivers for it
 * again, or by `npm run gitapps -- restore-repository`; once its grace has passed, the retention worker erases it
 * the way a deletion always did (deleteRepository).
 */

const DAY_MS = 86_400_000;
/** Repositories erased per read of the due ones; each is a change of its own. */
const ERASE_BATCH = 100;

/**
 * The hidden repositories of a git app or of organizations, read once per version of the repositories table (every
 * hiding, restoring and erasing raises it, on every instance before it is answered): the lists that leave them out
 * ask on every request, and most of the time there are none.
 */
const hiddenByOwner = new ResultCache<string[]>(60_000, 1_000);

export async function hiddenRepositoryIds(owner: { git_app_id: string } | { organization_id: string[] }): Promise<string[]> {
  const versions = await DataVersions.for(Repository.sequelize!).of(['repositories']);
  const key = 'git_app_id' in owner ? `app:${owner.git_app_id}` : `orgs:${[...owner.organization_id].sort().join(',')}`;
  return hiddenByOwner.getOrCompute(`${versions}|${key}`, async () =>
    (await Repository.findAll({ where: { deleted_at: { [Op.ne]: null }, ...owner }, attributes: ['id'], order: [['id', 'ASC']] })).map((r) => r.id),
  );
}

/** The first report starts the grace; a repeated one does not prolong it. */
export async function hideRepository(change: Change, repository: Repository, now: Date): Promise<void> {
  if (repository.deleted_at) return;
  await repository.update({ deleted_at: now }, { transaction: change.transaction });
  change.wrote('repositories');
}

/**
 * A hidden repository in sight again, with all it held; false when it was not hidden. Conditional on the row, so a
 * repository the worker erased while this change ran is not written to (503: a new delivery makes it anew).
 */
export async function restoreRepository(change: Change, repository: Repository): Promise<boolean> {
  if (!repository.deleted_at) return false;
  const [restored] = await Repository.update({ deleted_at: null }, { where: { id: repository.id, deleted_at: { [Op.ne]: null } }, transaction: change.transaction });
  if (!restored) throw new DomainError('unavailable', `Repository ${repository.id} was being erased as this delivery arrived; send it again`, { retryAfterSeconds: 1 });
  repository.set('deleted_at', null);
  change.wrote('repositories');
  return true;
}

/** An operator's restore (`npm run gitapps -- restore-repository <id>`): only of a repository hidden and not erased yet. */
export async function restoreHiddenRepository(change: Change, repositoryId: string): Promise<Repository> {
  const repository = await Repository.findByPk(repositoryId, { transaction: change.transaction });
  if (!repository) throw notFound(`No repository ${JSON.stringify(repositoryId)}: it was never stored, or its grace has passed and it was erased`);
  if (!repository.deleted_at) throw conflict(`Repository ${repository.id} (${repository.full_name}) is not deleted: there is nothing to restore`);
  await restoreRepository(change, repository);
  return repository;
}

/** The repositories whose grace ended before `now`, erased one change each; how many were. */
export async function eraseDeletedRepositories(changes: ChangeRunner, now: Date, graceDays: number): Promise<number> {
  const before = new Date(now.getTime() - graceDays * DAY_MS);
  const due = { deleted_at: { [Op.lt]: before } };
  let erased = 0;
  for (;;) {
    const batch = await Repository.findAll({ where: due, attributes: ['id'], order: [['deleted_at', 'ASC']], limit: ERASE_BATCH });
    let done = 0;
    for (const { id } of batch) {
      // Read again in the change, its row locked: a delivery may have brought it back, or another worker erased it.
      const gone = await changes.run(async (change) => {
        const repository = await Repository.findOne({ where: { id, ...due }, transaction: change.transaction, lock: true });
        if (repository) await deleteRepository(change, repository);
        return Boolean(repository);
      });
      if (gone) done += 1;
    }
    erased += done;
    if (batch.length < ERASE_BATCH || done === 0) return erased;
  }
}
