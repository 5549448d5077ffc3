import { GitApp, PullRequest, Repository } from '../../../db/models';
import { toPullRequest } from '../../resources/git';
import type { EventType } from '../webhooks/events';
import type { Change } from '../changes/change';
import { newId } from '../changes/ids';
import type { PullRequestInput, PullRequestState } from './activity';
import { authorDirectory } from './authors';
import { clip, LIMITS } from './text';

const EVENT_OF_STATE: Record<PullRequestState, EventType> = {
  open: 'pull_request.opened',
  merged: 'pull_request.merged',
  closed: 'pull_request.closed',
};

export type Applied = 'created' | 'updated' | 'unchanged' | 'stale';

/**
 * One pull request per repository and number. Deliveries may arrive out of order: a state older than the one
 * stored (by the provider's `updated_at`) changes nothing, so a `closed` before its `opened` ends closed. Every
 * pull request is announced opened once, then each change of state as it is stored.
 */
export async function recordPullRequest(change: Change, gitApp: GitApp, repository: Repository, input: PullRequestInput): Promise<Applied> {
  const { transaction } = change;
  const existing = await PullRequest.findOne({ where: { repository_id: repository.id, number: input.number }, transaction });
  if (olderThanStored(existing?.provider_updated_at, input.updatedAt)) return 'stale';

  const fields = {
    title: clip(input.title, LIMITS.title),
    state: input.state,
    created_at: input.createdAt,
    merged_at: input.mergedAt,
    closed_at: input.closedAt,
    provider_updated_at: input.updatedAt,
  };
  const emit = (pr: PullRequest, type: EventType) => change.emit(gitApp.organization_id, type, toPullRequest(pr));
  if (!existing) {
    const authors = await authorDirectory(gitApp, { emails: [], usernames: [input.authorUsername] }, transaction);
    const created = await PullRequest.create(
      {
        id: newId('pr'),
        repository_id: repository.id,
        git_app_id: gitApp.id,
        organization_id: gitApp.organization_id,
        number: input.number,
        author_id: authors.find(null, input.authorUsername),
        ...fields,
      },
      { transaction },
    );
    change.wrote('pull_requests');
    emit(created, 'pull_request.opened');
    if (created.state !== 'open') emit(created, EVENT_OF_STATE[created.state]);
    return 'created';
  }
  const previousState = existing.state;
  const visibleChange = fields.title !== existing.title || fields.state !== existing.state || !sameTime(fields.merged_at, existing.merged_at) || !sameTime(fields.closed_at, existing.closed_at);
  await existing.update(fields, { transaction });
  if (!visibleChange) return 'unchanged';
  change.wrote('pull_requests');
  if (existing.state !== previousState) emit(existing, EVENT_OF_STATE[existing.state]);
  return 'updated';
}

/** A delivery showing a state older than the stored one (by the provider's updated_at) changes nothing. */
export const olderThanStored = (stored: Date | null | undefined, incoming: Date) => !!stored && stored > incoming;

export const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
