import { Incident } from '../../../../db/models';
import { toIncident } from '../../../resources/git';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { IncidentInput } from '../activity';
import { Placement, placedColumns, storedBy } from '../placement';
import { Applied, olderThanStored, recordIfNewer, sameTime } from '../recordIfNewer';
import { clip, LIMITS } from '../text';
import { refreshShippedChanges } from '../rollups/shippedChanges';

/**
 * One incident per repository and provider issue id, or per app and provider id (docs/incidents.md). As for pull
 * requests, an older state than the one stored changes nothing; an incident is announced opened once (and again
 * when reopened), and resolved when closed. The deployments of its repository (and of the one it left, when its
 * board was mapped elsewhere meanwhile) are marked again: blamed by its cause, rework while it was open or by its fix.
 */
export async function recordIncident(change: Change, placement: Placement, input: IncidentInput): Promise<Applied> {
  const { transaction } = change;
  // A locking read: a concurrent change of the same row waits, then reads what it committed (a plain read on MariaDB
  // would keep this change's snapshot, and the later commit would overwrite a newer state with an older one).
  const existing = await Incident.findOne({ where: { ...storedBy(placement), external_id: input.externalId }, transaction, lock: transaction.LOCK.UPDATE });
  const fields = {
    ...placedColumns(placement),
    title: clip(input.title, LIMITS.title),
    cause_sha: input.causeSha,
    fix_sha: input.fixSha,
    created_at: input.createdAt,
    resolved_at: input.resolvedAt,
    provider_updated_at: input.updatedAt,
  };
  const wasResolved = existing ? existing.resolved_at !== null : undefined;
  const left = existing?.repository_id && existing.repository_id !== fields.repository_id ? existing.repository_id : null;
  const recorded = await recordIfNewer(change, 'incidents', existing, {
    olderThanStored: (stored) => olderThanStored(stored.provider_updated_at, input.updatedAt),
    visiblyDiffers: (stored) =>
      fields.title !== stored.title ||
      fields.cause_sha !== stored.cause_sha ||
      fields.fix_sha !== (stored.fix_sha ?? null) ||
      fields.repository_id !== stored.repository_id ||
      !sameTime(fields.created_at, stored.created_at) ||
      !sameTime(fields.resolved_at, stored.resolved_at),
    create: () => Incident.create({ id: newId('inc'), external_id: input.externalId, ...fields }, { transaction }),
    update: (stored) => stored.update(fields, { transaction }),
  });
  if (!('row' in recorded)) return recorded.applied;
  for (const repositoryId of [fields.repository_id, left]) if (repositoryId) await refreshShippedChanges(transaction, repositoryId, null);
  const incident = toIncident(recorded.row);
  const resolved = incident.resolved_at !== null;
  // A new incident that is already resolved was opened first.
  if (recorded.applied === 'created' && resolved) change.emit(placement.organizationId, 'incident.opened', { ...incident, resolved_at: null });
  if (recorded.applied === 'created' || wasResolved !== resolved) change.emit(placement.organizationId, resolved ? 'incident.resolved' : 'incident.opened', incident);
  return recorded.applied;
}

/**
 * A later word on an app's stored incident (a PagerDuty or Opsgenie note saying `root cause: <sha>` or `fixed by:
 * <sha>`): the commits it names are kept, and the deployments of its repository marked again. Null when the app
 * holds no incident of that id (one opened before the app was connected): nothing is made from a note alone.
 */
export async function recordIncidentNote(change: Change, appId: string, externalId: string, named: IncidentNote): Promise<{ applied: Applied; repositoryId: string | null } | null> {
  const { transaction } = change;
  const stored = await Incident.findOne({ where: { app_id: appId, external_id: externalId }, transaction, lock: transaction.LOCK.UPDATE });
  if (!stored) return null;
  const repositoryId = stored.repository_id;
  const fields = { cause_sha: named.causeSha ?? stored.cause_sha, fix_sha: named.fixSha ?? stored.fix_sha ?? null };
  if (fields.cause_sha === stored.cause_sha && fields.fix_sha === (stored.fix_sha ?? null)) return { applied: 'unchanged', repositoryId };
  await stored.update(fields, { transaction });
  change.wrote('incidents');
  if (repositoryId) await refreshShippedChanges(transaction, repositoryId, null);
  return { applied: 'updated', repositoryId };
}

/** The commits a note names; a note names one or both. */
export interface IncidentNote {
  causeSha: string | null;
  fixSha: string | null;
}
