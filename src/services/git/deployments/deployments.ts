import { Deployment } from '../../../../db/models';
import { toDeployment } from '../../../resources/git';
import { Change, perChange } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { DeploymentInput } from '../activity';
import { Placement, placedColumns, storedBy, UNPLACED_MARKS } from '../placement';
import { Applied, recordIfNewer, sameTime } from '../recordIfNewer';
import { clip, LIMITS } from '../text';
import { refreshShippedChanges } from '../rollups/shippedChanges';
import { refreshLeadTimes } from '../rollups/leadTimes';
import { refreshReversals } from '../rollups/reversals';

/**
 * One deployment per repository and provider deployment id (or per app and the caller's id), in its latest finished
 * state: a status that finished before the stored one is stale (a re-run that succeeded after a failure stays a
 * success). What its repository keeps beside its deployments is recomputed from the earlier of its old and new
 * finish, and in the repository it left when it moved (its board mapped elsewhere meanwhile).
 */
export async function recordDeployment(change: Change, placement: Placement, input: DeploymentInput): Promise<Applied> {
  const { transaction } = change;
  // A locking read: a concurrent change of the same row waits, then reads what it committed (a plain read on MariaDB
  // would keep this change's snapshot, and the later commit would overwrite a newer state with an older one).
  const existing = await Deployment.findOne({ where: { ...storedBy(placement), external_id: input.externalId }, transaction, lock: transaction.LOCK.UPDATE });
  const fields = {
    ...placedColumns(placement),
    ...(placement.repository ? {} : UNPLACED_MARKS),
    environment: clip(input.environment, LIMITS.environment),
    status: input.status,
    sha: input.sha,
    created_at: input.createdAt,
    finished_at: input.finishedAt,
  };
  const previous = existing ? { repositoryId: existing.repository_id, finishedAt: existing.finished_at } : null;
  const recorded = await recordIfNewer(change, 'deployments', existing, {
    olderThanStored: (stored) => stored.finished_at > input.finishedAt,
    visiblyDiffers: (stored) =>
      stored.status !== fields.status ||
      stored.environment !== fields.environment ||
      stored.sha !== fields.sha ||
      stored.repository_id !== fields.repository_id ||
      !sameTime(stored.finished_at, fields.finished_at),
    create: () => Deployment.create({ id: newId('dep'), external_id: input.externalId, ...fields }, { transaction }),
    update: (stored) => stored.update(fields, { transaction }),
  });
  if ('row' in recorded) {
    const deployment = recorded.row;
    if (previous?.repositoryId && previous.repositoryId !== fields.repository_id) {
      refreshDeploymentsBeforeCommit(change, { id: previous.repositoryId, organization_id: placement.organizationId }, previous.finishedAt);
    }
    if (placement.repository) {
      // Later deployments' previous one may have moved too: from the earlier of its old and new finish on.
      const stayed = previous?.repositoryId === placement.repository.id;
      const since = stayed && previous.finishedAt < deployment.finished_at ? previous.finishedAt : deployment.finished_at;
      refreshDeploymentsBeforeCommit(change, placement.repository, since);
    }
    change.emit(placement.organizationId, deployment.status === 'success' ? 'deployment.succeeded' : 'deployment.failed', toDeployment(deployment));
  }
  return recorded.applied;
}

type RepositoryRollups = { repository: { id: string; organization_id: string }; since: Date | null };

const pendingOf = perChange((change): Map<string, RepositoryRollups> => {
  const pending = new Map<string, RepositoryRollups>();
  change.beforeCommit(async () => {
    const inIdOrder = [...pending.values()].sort((a, b) => (a.repository.id < b.repository.id ? -1 : 1));
    for (const { repository, since } of inIdOrder) await refreshDeployments(change, repository, since);
  });
  return pending;
});

/**
 * What a repository keeps beside its deployments, from a time on, recomputed once per change when its steps are
 * done, from the earliest time any step asked (a page of history brings many deployments of one repository). Each
 * recomputation reads the rows as they stand from its time on, so one from the earliest ends where one after every
 * step would; repositories in id order, one lock order.
 */
function refreshDeploymentsBeforeCommit(change: Change, repository: { id: string; organization_id: string }, since: Date | null): void {
  const pending = pendingOf(change);
  const asked = pending.get(repository.id);
  const earlier = !asked ? since : asked.since === null || since === null ? null : asked.since < since ? asked.since : since;
  pending.set(repository.id, { repository, since: earlier });
}

/** What a repository keeps beside its deployments, from a time on (all of it without). */
export async function refreshDeployments(change: Change, repository: { id: string; organization_id: string }, since: Date | null): Promise<void> {
  await refreshShippedChanges(change.transaction, repository.id, since);
  await refreshLeadTimes(change.transaction, repository, since);
  await refreshReversals(change.transaction, repository.id, since);
}
