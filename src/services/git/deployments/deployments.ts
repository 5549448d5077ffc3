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
import { chunks } from '../../people/memberEmails';

/**
 * One deployment per repository and provider deployment id (or per app and the caller's id), in its latest finished
 * state: a status that finished before the stored one is stale (a re-run that succeeded after a failure stays a
 * success). What its repository keeps beside its deployments is recomputed from the earlier of its old and new
 * finish, and in the repository it left when it moved (its board mapped elsewhere meanwhile).
 */
export async function recordDeployment(change: Change, placement: Placement, input: DeploymentInput): Promise<Applied> {
  return (await recordDeployments(change, placement, [input]))[0];
}

/**
 * Deployments of one placement (a page of a repository's history) recorded as `recordDeployment` records one, in
 * order, each with its outcome: the stored ones read in one locking statement (a concurrent change of the same rows
 * waits, then reads what it committed; a plain read on MariaDB would keep this change's snapshot, and the later
 * commit would overwrite a newer state with an older one), the first of each id none is stored of inserted in one,
 * then each taken as the run leaves it.
 */
export async function recordDeployments(change: Change, placement: Placement, inputs: DeploymentInput[]): Promise<Applied[]> {
  const { transaction } = change;
  const ids = [...new Set(inputs.map((i) => i.externalId))];
  const rows = new Map<string, Deployment>();
  for (const chunk of chunks(ids)) {
    for (const row of await Deployment.findAll({ where: { ...storedBy(placement), external_id: chunk }, transaction, lock: transaction.LOCK.UPDATE })) rows.set(row.external_id, row);
  }
  const made = await insertNew(change, placement, inputs, rows);
  const applied: Applied[] = [];
  for (const [index, input] of inputs.entries()) {
    const fresh = made.get(index);
    if (fresh) {
      keepRecorded(change, placement, fresh, null);
      rows.set(input.externalId, fresh);
      applied.push('created');
    } else applied.push(await recordOne(change, placement, input, rows.get(input.externalId) ?? null));
  }
  return applied;
}

/** The first input of each id none is stored of, made in one statement: by its place among the inputs. */
async function insertNew(change: Change, placement: Placement, inputs: DeploymentInput[], rows: Map<string, Deployment>): Promise<Map<number, Deployment>> {
  const firsts = new Map<string, number>();
  for (const [index, { externalId }] of inputs.entries()) if (!rows.has(externalId) && !firsts.has(externalId)) firsts.set(externalId, index);
  const made = [...firsts.values()].map((index) => ({ index, row: { id: newId('dep'), external_id: inputs[index].externalId, ...deploymentFields(placement, inputs[index]) } }));
  const inserted: Deployment[] = [];
  for (const chunk of chunks(made)) inserted.push(...(await Deployment.bulkCreate(chunk.map((m) => m.row), { transaction: change.transaction })));
  if (inserted.length) change.wrote('deployments');
  return new Map(made.map(({ index }, i) => [index, inserted[i]]));
}

/** A later state of a stored deployment (or, for an input that came first, one not stored yet) recorded. */
async function recordOne(change: Change, placement: Placement, input: DeploymentInput, existing: Deployment | null): Promise<Applied> {
  const { transaction } = change;
  const fields = deploymentFields(placement, input);
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
  if ('row' in recorded) keepRecorded(change, placement, recorded.row, previous);
  return recorded.applied;
}

function deploymentFields(placement: Placement, input: DeploymentInput) {
  return {
    ...placedColumns(placement),
    ...(placement.repository ? {} : UNPLACED_MARKS),
    environment: clip(input.environment, LIMITS.environment),
    status: input.status,
    sha: input.sha,
    created_at: input.createdAt,
    finished_at: input.finishedAt,
  };
}

/** What follows a deployment made or visibly changed: its repositories' rollups, and its event. */
function keepRecorded(change: Change, placement: Placement, deployment: Deployment, previous: { repositoryId: string | null; finishedAt: Date } | null): void {
  if (previous?.repositoryId && previous.repositoryId !== deployment.repository_id) {
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
