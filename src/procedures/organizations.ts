import { guard } from '../access/guard';
import { router } from '../trpc/init';
import * as scopes from '../services/people/organizationScopes';
import { OrganizationMemberResource, OrganizationResource, TeamResource, toOrganization } from '../resources/people';
import { AppResource } from '../resources/integrations';
import { idParam } from '../wire/query';
import { getEndpoint, listEndpoint } from './endpoint';

const tag = 'Organizations';
const organizationParams = { organization_id: idParam('organization_id') };

export const organizationsRouter = router({
  list: listEndpoint({
    path: '/organizations',
    operationId: 'listOrganizations',
    tag,
    summary: 'List organizations',
    description: 'Organizations the caller is a member of (narrowed by the token scope).',
    resource: OrganizationResource,
    source: async (ctx) => scopes.accessibleOrganizations(ctx.principal),
  }),

  get: getEndpoint({
    path: '/organizations/{organization_id}',
    operationId: 'getOrganization',
    tag,
    summary: 'Get an organization',
    description: 'One organization. 404 when it does not exist, 403 when the caller is not a member.',
    resource: OrganizationResource,
    params: organizationParams,
    load: async (ctx, { organization_id }) => toOrganization(await guard.organization(ctx.principal, organization_id)),
  }),

  members: listEndpoint({
    path: '/organizations/{organization_id}/members',
    operationId: 'listOrganizationMembers',
    tag,
    summary: 'List organization members',
    description: 'Members of the organization with their role (admin, manager or collaborator).',
    resource: OrganizationMemberResource,
    params: organizationParams,
    source: async (ctx, { organization_id }) => {
      await guard.organization(ctx.principal, organization_id);
      return scopes.organizationMembers(organization_id);
    },
  }),

  teams: listEndpoint({
    path: '/organizations/{organization_id}/teams',
    operationId: 'listOrganizationTeams',
    tag,
    summary: 'List teams of an organization',
    description: "The organization's teams (only the token's teams when the token is narrowed to teams).",
    resource: TeamResource,
    params: organizationParams,
    source: async (ctx, { organization_id }) => {
      await guard.organization(ctx.principal, organization_id);
      return scopes.organizationTeams(ctx.principal, organization_id);
    },
  }),

  apps: listEndpoint({
    path: '/organizations/{organization_id}/apps',
    operationId: 'listOrganizationApps',
    tag,
    summary: 'List apps of an organization',
    description: 'Integrations connected to the organization.',
    resource: AppResource,
    params: organizationParams,
    source: async (ctx, { organization_id }) => {
      await guard.organization(ctx.principal, organization_id);
      return scopes.organizationApps(organization_id);
    },
  }),
});
