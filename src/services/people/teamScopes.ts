import { Op } from 'sequelize';
import { Interaction, Task, Team, TeamMembership } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { rules } from '../../access/rules';
import { conditions } from '../../access/conditions';
import { memberColumns, toTeam, toTeamMember } from '../../resources/people';
import { toInteraction, toTask } from '../../resources/activity';
import type { ListSource } from '../query/listing';

/** Teams of the accessible organizations (only the token's teams when it names teams). */
export function accessibleTeams(p: Principal): ListSource<ReturnType<typeof toTeam>> {
  const organizationIds = rules.accessibleOrganizationIds(p);
  const teamFilter = rules.teamFilter(p);
  return {
    model: Team,
    where: { [Op.and]: [conditions.accessibleOrganizations(p), ...conditions.teamScope(p, 'id')] },
    toItem: (row) => toTeam(row as Team),
    countKey: `teams|${[...organizationIds].sort().join(',')}|${teamFilter ? [...teamFilter].sort().join(',') : '*'}`,
  };
}

/** Everyone in the team (members and managers), or only its managers. */
export function teamMembers(teamId: string, role?: 'manager'): ListSource<ReturnType<typeof toTeamMember>> {
  return {
    model: TeamMembership,
    where: { team_id: teamId, ...conditions.activeMembership, ...(role ? { role } : {}) },
    columns: memberColumns,
    toItem: (row) => toTeamMember(row as TeamMembership),
    countKey: `team-members|${teamId}|${role ?? '*'}`,
  };
}

export function teamTasks(teamId: string): ListSource<ReturnType<typeof toTask>> {
  return { model: Task, where: { team_id: teamId }, toItem: (row) => toTask(row as Task), countKey: `team-tasks|${teamId}` };
}

export function teamInteractions(teamId: string): ListSource<ReturnType<typeof toInteraction>> {
  return {
    model: Interaction,
    where: { team_id: teamId },
    toItem: (row) => toInteraction(row as Interaction),
    countKey: `team-interactions|${teamId}`,
  };
}

/** The user's membership of the team, any state; null when they are no member. */
export function teamMembership(userId: string, teamId: string): Promise<TeamMembership | null> {
  return TeamMembership.findOne({ where: { user_id: userId, team_id: teamId } });
}
