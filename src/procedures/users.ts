import { guard } from '../access/guard';
import { resourceNotFound } from '../errors';
import type { Team } from '../../db/models';
import { router } from './init';
import { findInScope } from '../persistence/query/listing';
import * as scopes from '../services/people/userScopes';
import { teamMembership } from '../services/people/teamScopes';
import { OrganizationResource, TeamResource, toUser, toUserTeam, UserResource, UserTeamResource } from '../resources/people';
import { UserAppResource, UserGitAppResource } from '../resources/integrations';
import { DashboardViewResource, InteractionResource } from '../resources/activity';
import { idParam } from '../wire/query';
import { getEndpoint, listEndpoint } from './endpoint';

const tag = 'Users';
const userParams = { user_id: idParam('user_id') };

export const usersRouter = router({
  list: listEndpoint({
    path: '/users',
    operationId: 'listUsers',
    tag,
    summary: 'List users',
    description: 'Users visible to the caller: the caller and every member of an organization the caller can access.',
    resource: UserResource,
    source: async (ctx) => scopes.visibleUsers(ctx.principal),
  }),

  get: getEndpoint({
    path: '/users/{user_id}',
    operationId: 'getUser',
    tag,
    summary: 'Get a user',
    description: 'One user. 404 when it does not exist, 403 when it shares no accessible organization with the caller.',
    resource: UserResource,
    params: userParams,
    load: async (ctx, { user_id }) => toUser((await guard.user(ctx.principal, user_id)).user),
  }),

  apps: listEndpoint({
    path: '/users/{user_id}/apps',
    operationId: 'listUserApps',
    tag,
    summary: "List a user's apps",
    description:
      "The user's accounts on organization apps. Readable by the user and by admins of an organization the user belongs to.",
    resource: UserAppResource,
    params: userParams,
    source: async (ctx, { user_id }) => {
      const { scope } = await guard.personalData(ctx.principal, user_id, 'apps');
      return scopes.userApps(user_id, scope);
    },
  }),

  app: getEndpoint({
    path: '/users/{user_id}/apps/{app_id}',
    operationId: 'getUserApp',
    tag,
    summary: "Get a user's app binding",
    description: "One of the user's app accounts, addressed by the app id.",
    resource: UserAppResource,
    params: { ...userParams, app_id: idParam('app_id') },
    load: async (ctx, { user_id, app_id }) => {
      const { scope } = await guard.personalData(ctx.principal, user_id, 'apps');
      const item = await findInScope(scopes.userApps(user_id, scope), { app_id });
      if (!item) throw resourceNotFound('app');
      return item;
    },
  }),

  dashboardViews: listEndpoint({
    path: '/users/{user_id}/dashboard-views',
    operationId: 'listUserDashboardViews',
    tag,
    summary: "List a user's dashboard views",
    description:
      "Dashboard views available to the user: their organizations' views, their teams' views and their private views.",
    resource: DashboardViewResource,
    params: userParams,
    source: async (ctx, { user_id }) => {
      const { scope } = await guard.personalData(ctx.principal, user_id, 'dashboard_views');
      return scopes.userDashboardViews(ctx.principal, user_id, scope);
    },
  }),

  dashboardView: getEndpoint({
    path: '/users/{user_id}/dashboard-views/{view_id}',
    operationId: 'getUserDashboardView',
    tag,
    summary: "Get one of a user's dashboard views",
    description: 'One dashboard view available to the user.',
    resource: DashboardViewResource,
    params: { ...userParams, view_id: idParam('view_id') },
    load: async (ctx, { user_id, view_id }) => {
      const { scope } = await guard.personalData(ctx.principal, user_id, 'dashboard_views');
      const item = await findInScope(await scopes.userDashboardViews(ctx.principal, user_id, scope), { id: view_id });
      if (!item) throw resourceNotFound('dashboardView');
      return item;
    },
  }),

  interactions: listEndpoint({
    path: '/users/{user_id}/interactions',
    operationId: 'listUserInteractions',
    tag,
    summary: "List a user's interactions",
    description:
      "The user's collaboration events. Readable by the user, by admins of an organization the user belongs to, and by managers of a team the user is a member of (for that team's events).",
    resource: InteractionResource,
    params: userParams,
    source: async (ctx, { user_id }) => {
      const { scope } = await guard.personalData(ctx.principal, user_id, 'interactions');
      return scopes.userInteractions(ctx.principal, user_id, scope);
    },
  }),

  organizations: listEndpoint({
    path: '/users/{user_id}/organizations',
    operationId: 'listUserOrganizations',
    tag,
    summary: "List a user's organizations",
    description: 'Organizations the user belongs to that the caller can also access.',
    resource: OrganizationResource,
    params: userParams,
    source: async (ctx, { user_id }) => {
      const { organizationIds } = await guard.user(ctx.principal, user_id);
      return scopes.userOrganizations(ctx.principal, organizationIds);
    },
  }),

  teams: listEndpoint({
    path: '/users/{user_id}/teams',
    operationId: 'listUserTeams',
    tag,
    summary: "List a user's teams",
    description: 'Teams the user is a member or manager of that the caller can access.',
    resource: TeamResource,
    params: userParams,
    source: async (ctx, { user_id }) => {
      await guard.user(ctx.principal, user_id);
      return scopes.userTeams(ctx.principal, user_id);
    },
  }),

  team: getEndpoint({
    path: '/users/{user_id}/teams/{team_id}',
    operationId: 'getUserTeam',
    tag,
    summary: "Get a user's team membership",
    description: "The user's membership of one team: title, role (member or manager) and when they joined.",
    resource: UserTeamResource,
    params: { ...userParams, team_id: idParam('team_id') },
    load: async (ctx, { user_id, team_id }) => {
      await guard.user(ctx.principal, user_id);
      const team: Team = await guard.team(ctx.principal, team_id);
      const membership = await teamMembership(user_id, team_id);
      if (!membership) throw resourceNotFound('teamMember');
      return toUserTeam(membership, team);
    },
  }),

  gitApps: listEndpoint({
    path: '/users/{user_id}/git/apps',
    operationId: 'listUserGitApps',
    tag,
    summary: "List a user's git apps",
    description:
      "The user's accounts on git integrations. Readable by the user and by admins of an organization the user belongs to.",
    resource: UserGitAppResource,
    params: userParams,
    source: async (ctx, { user_id }) => {
      const { scope } = await guard.personalData(ctx.principal, user_id, 'git_apps');
      return scopes.userGitApps(user_id, scope);
    },
  }),
});
