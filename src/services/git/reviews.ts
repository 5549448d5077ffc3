import { createHash } from 'node:crypto';
import { GitApp, PullRequest, PullRequestActivity, Repository } from '../../../db/models';
import type { Change } from '../changes/change';
import { newId } from '../changes/ids';
import type { PullRequestInput, ReviewActivityInput } from './activity';
import { authorDirectory } from './authors';
import { recordPullRequest } from './pullRequests';
import type { Applied } from './recordIfNewer';

/** What `external_id` holds (VARCHAR(120)). */
const EXTERNAL_ID_LENGTH = 120;

/**
 * A provider's id as stored: itself, or, past what the column holds (a GitLab approval is named by the user's name,
 * which may be long), its SHA-256, which names it as exactly.
 */
const storedExternalId = (id: string) => (id.length <= EXTERNAL_ID_LENGTH ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`);

export interface ReviewRecorded {
  pullRequest: Applied;
  activity: 'created' | 'unchanged';
}

/**
 * A review, approval, comment or pushed commit on a pull request (DESIGN §16): the pull request first, as the
 * delivery shows it (or, from a view that cannot tell its state, only when none is stored yet), then the activity,
 * once per provider id: a redelivery, or the same review brought by two events, adds nothing.
 */
export async function recordReview(
  change: Change,
  gitApp: GitApp,
  repository: Repository,
  pullRequest: PullRequestInput,
  current: boolean,
  input: ReviewActivityInput,
): Promise<ReviewRecorded> {
  const { transaction } = change;
  const find = () => PullRequest.findOne({ where: { repository_id: repository.id, number: pullRequest.number }, attributes: ['id'], transaction });
  let stored = current ? null : await find();
  const applied = stored ? 'unchanged' : await recordPullRequest(change, gitApp, repository, pullRequest);
  stored ??= await find();
  if (!stored) throw new Error(`pull request ${pullRequest.number} of ${repository.id} was recorded but is not found`);

  const key = { pull_request_id: stored.id, external_id: storedExternalId(input.externalId) };
  if (await PullRequestActivity.findOne({ where: key, attributes: ['id'], transaction })) return { pullRequest: applied, activity: 'unchanged' };
  const authors = await authorDirectory(gitApp, { emails: [], usernames: [input.actorUsername] }, transaction);
  await PullRequestActivity.create(
    {
      id: newId('pra'),
      ...key,
      repository_id: repository.id,
      git_app_id: gitApp.id,
      organization_id: gitApp.organization_id,
      kind: input.kind,
      actor_id: authors.find(null, input.actorUsername),
      created_at: input.createdAt,
    },
    { transaction },
  );
  change.wrote('pull_request_activities');
  return { pullRequest: applied, activity: 'created' };
}
