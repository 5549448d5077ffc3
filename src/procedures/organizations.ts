import { guard } from '../access/guard';
import { router } from './init';
import * as scopes from '../services/people/organizationScopes';
import { OrganizationMemberResource, OrganizationResource, TeamResource, toOrganization } from '../resources/people';
import { AppResource } from '../resources/integrations';
import { DeploymentResource, IncidentResource } from '../resources/git';
import { deployments, incidents } from '../services/git/gitScopes';
import { TelemetryEventResource } from '../resources/telemetry';
import { organizationEvents } from '../services/telemetry/eventScopes';
import { AuditEntryResource } from '../resources/audit';
import { organizationAuditLog } from '../services/audit/auditLog';
import { AUDIT_ACTIONS } from '../persistence/changes/auditRecord';
import { idParam } from '../wire/query';
import { z } from 'zod';
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
  incidents: listEndpoint({
    path: '/organizations/{organization_id}/incidents',
    operationId: 'listOrganizationIncidents',
    tag,
    summary: 'List incidents of an organization',
    description:
      "Every incident of the organization, whatever reported it: issues labelled 'incident', PagerDuty incidents, Opsgenie alerts and the deployments API's. Those of a service not mapped to a repository yet (`repository_id` null) are listed here only, and count in the organization's DORA figures.",
    resource: IncidentResource,
    params: organizationParams,
    source: async (ctx, { organization_id }) => {
      await guard.organization(ctx.principal, organization_id);
      return incidents({ organizationIds: [organization_id] });
    },
  }),

  deployments: listEndpoint({
    path: '/organizations/{organization_id}/deployments',
    operationId: 'listOrganizationDeployments',
    tag,
    summary: 'List deployments of an organization',
    description:
      "Every deployment of the organization, whatever reported it: GitHub's and GitLab's, and those a CI job sent to the deployments API. Those naming a repository the organization does not know yet (`repository_id` null) are listed here only, and count in the organization's DORA figures.",
    resource: DeploymentResource,
    params: organizationParams,
    source: async (ctx, { organization_id }) => {
      await guard.organization(ctx.principal, organization_id);
      return deployments({ organizationIds: [organization_id] });
    },
  }),

  telemetryEvents: listEndpoint({
    path: '/organizations/{organization_id}/telemetry/events',
    operationId: 'listOrganizationTelemetryEvents',
    tag,
    summary: 'List telemetry events of an organization',
    description:
      'Events OpenTelemetry exporters sent to /otlp/v1/logs for the organization: custom workflow events and the AI coding tools’ events. Personal data: the organization’s admins only (403 for others, and for tokens narrowed to teams).',
    resource: TelemetryEventResource,
    params: {
      ...organizationParams,
      name: eventFilter('name', 'Only events of this name. Example: `deploy.approved`.'),
      source: eventFilter('source', 'Only events from this source: `claude_code`, `gemini_cli`, `codex` or a `service.name`. Example: `release-bot`.'),
      user_id: idParam('user_id').meta({ description: 'Only events matched to this member. Example: `usr_linus`.' }).optional(),
    },
    source: async (ctx, { organization_id, name, source, user_id }) => {
      await guard.organizationTelemetry(ctx.principal, organization_id);
      return organizationEvents(organization_id, { name, source, user_id });
    },
  }),

  auditLog: listEndpoint({
    path: '/organizations/{organization_id}/audit-log',
    operationId: 'listOrganizationAuditLog',
    tag,
    summary: 'List the audit log of an organization',
    description:
      'Every change to the organization’s credentials and webhooks (API tokens that can act in it, SCIM and OTLP tokens, webhook endpoints and replays, git apps), made in the settings or with the CLIs, newest first. The organization’s admins only (403 for others, and for tokens narrowed to teams).',
    resource: AuditEntryResource,
    params: {
      ...organizationParams,
      action: z.enum(AUDIT_ACTIONS, { error: `action must be one of ${AUDIT_ACTIONS.join(', ')}` }).meta({ description: 'Only entries of this action. Example: `api_token.created`.' }).optional(),
      actor_user_id: idParam('actor_user_id').meta({ description: 'Only changes this signed-in user made. Example: `usr_ada`.' }).optional(),
    },
    source: async (ctx, { organization_id, action, actor_user_id }) => {
      await guard.organizationAdministration(ctx.principal, organization_id);
      return organizationAuditLog(organization_id, { action, actor_user_id });
    },
  }),
});

function eventFilter(name: string, description: string) {
  return z.string().min(1, { error: `${name} must not be empty` }).max(200, { error: `${name} must be at most 200 characters` }).meta({ description }).optional();
}
