import { Deployment, GitApp, Repository } from '../../../../db/models';
import { toDeployment } from '../../../resources/git';
import type { Change } from '../../../persistence/changes/change';
import { newId } from '../../../persistence/changes/ids';
import type { DeploymentInput } from '../activity';
import { Applied, recordIfNewer, sameTime } from '../recordIfNewer';
import { clip, LIMITS } from '../text';
import { refreshShippedChanges } from '../rollups/shippedChanges';
import { refreshLeadTimes } from '../rollups/leadTimes';

/**
 * One deployment per repository and provider deployment id, in its latest finished state: a status that finished
 * before the stored one is stale (a re-run that succeeded after a failure stays a success).
 */
export async function recordDeployment(change: Change, gitApp: GitApp, repository: Repository, input: DeploymentInput): Promise<Applied> {
  const { transaction } = change;
  const existing = await Deployment.findOne({ where: { repository_id: repository.id, external_id: input.externalId }, transaction });
  const fields = {
    environment: clip(input.environment, LIMITS.environment),
    status: input.status,
    sha: input.sha,
    created_at: input.createdAt,
    finished_at: input.finishedAt,
  };
  const previousFinish = existing?.finished_at;
  const recorded = await recordIfNewer(change, 'deployments', existing, {
    olderThanStored: (stored) => stored.finished_at > input.finishedAt,
    visiblyDiffers: (stored) => stored.status !== fields.status || !sameTime(stored.finished_at, fields.finished_at),
    create: () =>
      Deployment.create(
        { id: newId('dep'), repository_id: repository.id, git_app_id: gitApp.id, organization_id: gitApp.organization_id, external_id: input.externalId, ...fields },
        { transaction },
      ),
    update: (stored) => stored.update(fields, { transaction }),
  });
  if ('row' in recorded) {
    const deployment = recorded.row;
    // Later deployments' previous one may have moved too: from the earlier of its old and new finish on.
    const since = previousFinish && previousFinish < deployment.finished_at ? previousFinish : deployment.finished_at;
    await refreshShippedChanges(transaction, repository.id, since);
    await refreshLeadTimes(transaction, repository, since);
    change.emit(gitApp.organization_id, deployment.status === 'success' ? 'deployment.succeeded' : 'deployment.failed', toDeployment(deployment));
  }
  return recorded.applied;
}
