import { guard } from '../access/guard';
import { resourceNotFound } from '../errors';
import { router } from './init';
import { findInScope } from '../persistence/query/listing';
import * as scopes from '../services/people/teamScopes';
import { TeamMemberResource, TeamResource, toTeam } from '../resources/people';
import { InteractionResource, TaskResource } from '../resources/activity';
import { idParam } from '../wire/query';
import { getEndpoint, listEndpoint } from './endpoint';

const tag = 'Teams';
const teamParams = { team_id: idParam('team_id') };

export const teamsRouter = router({
  list: listEndpoint({
    path: '/teams',
    operationId: 'listTeams',
    tag,
    summary: 'List teams',
    description: 'Teams of every organization the caller can access (only the token’s teams when it is narrowed to teams).',
    resource: TeamResource,
    source: async (ctx) => scopes.accessibleTeams(ctx.principal),
  }),

  get: getEndpoint({
    path: '/teams/{team_id}',
    operationId: 'getTeam',
    tag,
    summary: 'Get a team',
    description: 'One team. 404 when it does not exist, 403 when the caller cannot access it.',
    resource: TeamResource,
    params: teamParams,
    load: async (ctx, { team_id }) => toTeam(await guard.team(ctx.principal, team_id)),
  }),

  members: listEndpoint({
    path: '/teams/{team_id}/members',
    operationId: 'listTeamMembers',
    tag,
    summary: 'List team members',
    description: 'Everyone in the team, managers included, with their job title.',
    resource: TeamMemberResource,
    params: teamParams,
    source: async (ctx, { team_id }) => {
      await guard.team(ctx.principal, team_id);
      return scopes.teamMembers(team_id);
    },
  }),

  member: getEndpoint({
    path: '/teams/{team_id}/members/{user_id}',
    operationId: 'getTeamMember',
    tag,
    summary: 'Get a team member',
    description: 'One member of the team with their job title. 404 "Team member not found" when the user is not in the team.',
    resource: TeamMemberResource,
    params: { ...teamParams, user_id: idParam('user_id') },
    load: async (ctx, { team_id, user_id }) => {
      await guard.team(ctx.principal, team_id);
      const member = await findInScope(scopes.teamMembers(team_id), { user_id });
      if (!member) throw resourceNotFound('teamMember');
      return member;
    },
  }),

  managers: listEndpoint({
    path: '/teams/{team_id}/managers',
    operationId: 'listTeamManagers',
    tag,
    summary: 'List team managers',
    description: 'The managers of the team, with their job title.',
    resource: TeamMemberResource,
    params: teamParams,
    source: async (ctx, { team_id }) => {
      await guard.team(ctx.principal, team_id);
      return scopes.teamMembers(team_id, 'manager');
    },
  }),

  tasks: listEndpoint({
    path: '/teams/{team_id}/tasks',
    operationId: 'listTeamTasks',
    tag,
    summary: 'List team tasks',
    description: 'Work items of the team (stories, bugs, tasks and epics).',
    resource: TaskResource,
    params: teamParams,
    source: async (ctx, { team_id }) => {
      await guard.team(ctx.principal, team_id);
      return scopes.teamTasks(team_id);
    },
  }),

  interactions: listEndpoint({
    path: '/teams/{team_id}/interactions',
    operationId: 'listTeamInteractions',
    tag,
    summary: 'List team interactions',
    description: "Collaboration events of the team. Readable by admins of the team's organization and by the team's managers.",
    resource: InteractionResource,
    params: teamParams,
    source: async (ctx, { team_id }) => {
      await guard.teamInteractions(ctx.principal, team_id);
      return scopes.teamInteractions(team_id);
    },
  }),
});
