import { GitApp, Incident, Repository } from '../../../db/models';
import { toIncident } from '../../resources/git';
import type { Change } from '../changes/change';
import { newId } from '../changes/ids';
import type { IncidentInput } from './activity';
import { olderThanStored, sameTime, type Applied } from './pullRequests';
import { clip, LIMITS } from './text';

/**
 * One incident per repository and provider issue id. As for pull requests, an older state than the one stored
 * changes nothing; an incident is announced opened once (and again when reopened), and resolved when closed.
 */
export async function recordIncident(change: Change, gitApp: GitApp, repository: Repository, input: IncidentInput): Promise<Applied> {
  const { transaction } = change;
  const existing = await Incident.findOne({ where: { repository_id: repository.id, external_id: input.externalId }, transaction });
  if (olderThanStored(existing?.provider_updated_at, input.updatedAt)) return 'stale';
  const fields = {
    title: clip(input.title, LIMITS.title),
    cause_sha: input.causeSha,
    created_at: input.createdAt,
    resolved_at: input.resolvedAt,
    provider_updated_at: input.updatedAt,
  };
  const emit = (incident: Incident) =>
    change.emit(gitApp.organization_id, incident.resolved_at ? 'incident.resolved' : 'incident.opened', toIncident(incident));
  if (!existing) {
    const created = await Incident.create(
      { id: newId('inc'), repository_id: repository.id, git_app_id: gitApp.id, organization_id: gitApp.organization_id, external_id: input.externalId, ...fields },
      { transaction },
    );
    change.wrote('incidents');
    if (created.resolved_at) change.emit(gitApp.organization_id, 'incident.opened', toIncident({ ...created.get({ plain: true }), resolved_at: null } as Incident));
    emit(created);
    return 'created';
  }
  const wasResolved = existing.resolved_at !== null;
  const visibleChange = fields.title !== existing.title || fields.cause_sha !== existing.cause_sha || !sameTime(fields.resolved_at, existing.resolved_at);
  await existing.update(fields, { transaction });
  if (!visibleChange) return 'unchanged';
  change.wrote('incidents');
  if (wasResolved !== (existing.resolved_at !== null)) emit(existing);
  return 'updated';
}
