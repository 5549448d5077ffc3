import { z } from 'zod';
import type { EventType } from '../../persistence/changes/events';
import { CommitResource, DeploymentResource, IncidentResource, PullRequestResource, RepositoryResource } from '../../resources/git';
import { OrganizationMemberResource, TeamResource } from '../../resources/people';
import { timestamp } from '../../wire/envelopes';

/**
 * What each event says and the shape of its `data`: the `/v1` item shapes (docs/webhooks.md). The OpenAPI document's
 * `webhooks` are built from this, and the tests check every message sent against them.
 */
const PushedCommits = z
  .object({ repository: RepositoryResource.item, commits: z.array(CommitResource.item) })
  .strict()
  .meta({ description: 'The repository, and the commits the push (or an import batch) added' });

const member = OrganizationMemberResource.item.strict();
const team = TeamResource.item.strict();
const pullRequest = PullRequestResource.item.strict();
const deployment = DeploymentResource.item.strict();
const incident = IncidentResource.item.strict();

const MEMBER = 'the member, as `/v1/organizations/{id}/members` lists it';
const TEAM = 'the team, as `/v1/organizations/{id}/teams` lists it';
const PULL_REQUEST = 'the pull request, as `…/repositories/{repo}/pull-requests` lists it';
const DEPLOYMENT = 'the deployment, as `…/repositories/{repo}/deployments` lists it';
const INCIDENT = 'the incident, as `…/repositories/{repo}/incidents` lists it';

export const EVENT_CATALOG: Record<EventType, { summary: string; data: z.ZodType; dataIs: string }> = {
  'user.created': { summary: 'A member was added to the organization (SCIM provisioning)', data: member, dataIs: MEMBER },
  'user.updated': { summary: "A member's profile, role or title changed, or a suspended member was reactivated", data: member, dataIs: MEMBER },
  'membership.deactivated': { summary: 'A member was suspended: no access, history kept', data: member, dataIs: MEMBER },
  'membership.removed': { summary: 'A member left the organization', data: member, dataIs: MEMBER },
  'team.created': { summary: 'A team was created', data: team, dataIs: TEAM },
  'team.updated': { summary: 'A team was renamed or its members changed', data: team, dataIs: TEAM },
  'team.deleted': { summary: 'A team was deleted', data: team, dataIs: TEAM },
  'repository.created': { summary: 'A repository was seen for the first time (webhook or import)', data: RepositoryResource.item.strict(), dataIs: 'the repository, as `/v1/git/apps/{id}/repositories` lists it' },
  'commit.created': { summary: 'A push or an import batch added commits: one event listing them', data: PushedCommits, dataIs: '`{repository, commits}`: the repository and the new commits, as `/v1/commits` lists them' },
  'pull_request.opened': { summary: 'A pull (merge) request was opened', data: pullRequest, dataIs: PULL_REQUEST },
  'pull_request.merged': { summary: 'A pull (merge) request was merged', data: pullRequest, dataIs: PULL_REQUEST },
  'pull_request.closed': { summary: 'A pull (merge) request was closed without merging', data: pullRequest, dataIs: PULL_REQUEST },
  'deployment.succeeded': { summary: 'A deployment finished successfully', data: deployment, dataIs: DEPLOYMENT },
  'deployment.failed': { summary: 'A deployment failed', data: deployment, dataIs: DEPLOYMENT },
  'incident.opened': { summary: 'An incident was opened', data: incident, dataIs: INCIDENT },
  'incident.resolved': { summary: 'An incident was resolved', data: incident, dataIs: INCIDENT },
};

/** A message's body: `{type, timestamp, data}` (Standard Webhooks). */
export function messageSchema(type: EventType): z.ZodType {
  return z
    .object({
      type: z.literal(type),
      timestamp: timestamp.meta({ description: 'When the change happened' }),
      data: EVENT_CATALOG[type].data,
    })
    .strict();
}
