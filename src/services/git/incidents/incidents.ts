import { GitApp, Incident, Repository } from '../../../../db/models';
import { toIncident } from '../../../resources/git';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { IncidentInput } from '../activity';
import { Applied, olderThanStored, recordIfNewer, sameTime } from '../recordIfNewer';
import { clip, LIMITS } from '../text';
import { refreshShippedChanges } from '../rollups/shippedChanges';

/**
 * One incident per repository and provider issue id. As for pull requests, an older state than the one stored
 * changes nothing; an incident is announced opened once (and again when reopened), and resolved when closed.
 */
export async function recordIncident(change: Change, gitApp: GitApp, repository: Repository, input: IncidentInput): Promise<Applied> {
  const { transaction } = change;
  const existing = await Incident.findOne({ where: { repository_id: repository.id, external_id: input.externalId }, transaction });
  const fields = {
    title: clip(input.title, LIMITS.title),
    cause_sha: input.causeSha,
    created_at: input.createdAt,
    resolved_at: input.resolvedAt,
    provider_updated_at: input.updatedAt,
  };
  const wasResolved = existing ? existing.resolved_at !== null : undefined;
  const recorded = await recordIfNewer(change, 'incidents', existing, {
    olderThanStored: (stored) => olderThanStored(stored.provider_updated_at, input.updatedAt),
    visiblyDiffers: (stored) => fields.title !== stored.title || fields.cause_sha !== stored.cause_sha || !sameTime(fields.resolved_at, stored.resolved_at),
    create: () =>
      Incident.create(
        { id: newId('inc'), repository_id: repository.id, git_app_id: gitApp.id, organization_id: gitApp.organization_id, external_id: input.externalId, ...fields },
        { transaction },
      ),
    update: (stored) => stored.update(fields, { transaction }),
  });
  if (!('row' in recorded)) return recorded.applied;
  await refreshShippedChanges(transaction, repository.id, null);
  const incident = toIncident(recorded.row);
  const resolved = incident.resolved_at !== null;
  // A new incident that is already resolved was opened first.
  if (recorded.applied === 'created' && resolved) change.emit(gitApp.organization_id, 'incident.opened', { ...incident, resolved_at: null });
  if (recorded.applied === 'created' || wasResolved !== resolved) change.emit(gitApp.organization_id, resolved ? 'incident.resolved' : 'incident.opened', incident);
  return recorded.applied;
}
