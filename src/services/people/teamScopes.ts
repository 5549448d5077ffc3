import { Op } from 'sequelize';
import { Interaction, Task, Team, TeamMembership } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { conditions } from '../../access/conditions';
import { memberColumns, toTeam, toTeamMember } from '../../resources/people';
import { toInteraction, toTask } from '../../resources/activity';
import type { ListSource } from '../../persistence/query/listSource';

/** Teams of the accessible organizations (only the token's teams when it names teams). */
export function accessibleTeams(p: Principal): ListSource<ReturnType<typeof toTeam>, Team> {
  return {
    model: Team,
    where: { [Op.and]: [conditions.accessibleOrganizations(p), ...conditions.teamScope(p, 'id')] },
    toItem: toTeam,
  };
}

/** Everyone in the team (members and managers), or only its managers. */
export function teamMembers(teamId: string, role?: 'manager'): ListSource<ReturnType<typeof toTeamMember>, TeamMembership> {
  return {
    model: TeamMembership,
    where: { team_id: teamId, ...conditions.activeMembership, ...(role ? { role } : {}) },
    columns: memberColumns,
    toItem: toTeamMember,
  };
}

export function teamTasks(teamId: string): ListSource<ReturnType<typeof toTask>, Task> {
  return { model: Task, where: { team_id: teamId }, toItem: (task) => toTask(task, teamId) };
}

export function teamInteractions(teamId: string): ListSource<ReturnType<typeof toInteraction>, Interaction> {
  return {
    model: Interaction,
    where: { team_id: teamId },
    toItem: toInteraction,
  };
}

/** The user's membership of the team, any state; null when they are no member. */
export function teamMembership(userId: string, teamId: string): Promise<TeamMembership | null> {
  return TeamMembership.findOne({ where: { user_id: userId, team_id: teamId } });
}
