import { Op } from 'sequelize';
import { Team, TeamMembership } from '../../../db/models';
import { hasActiveScimToken } from './teams';

/** How many members the settings page shows of one team; the total says how many more there are. */
export const TEAM_MEMBERS_SHOWN = 200;

/**
 * A team as an admin manages it on the settings page: its active members' number, and whether its identity provider
 * owns it (docs/settings.md#teams), when the page offers no changes.
 */
function teamView(team: Team, members: number, scimActive: boolean) {
  return {
    id: team.id,
    organization_id: team.organization_id,
    name: team.name,
    members,
    provisioned_by_identity_provider: Boolean(team.scim_managed) && scimActive,
    created_at: team.created_at.toISOString(),
  };
}

export type TeamView = ReturnType<typeof teamView>;

/** The organization's teams by name, with their active members' number. */
export async function listTeams(organizationId: string): Promise<TeamView[]> {
  const [teams, scimActive] = await Promise.all([
    Team.findAll({ where: { organization_id: organizationId }, order: [['name', 'ASC'], ['id', 'ASC']] }),
    hasActiveScimToken(organizationId),
  ]);
  const counts = await activeMemberCounts(teams.map((t) => t.id));
  return teams.map((t) => teamView(t, counts.get(t.id) ?? 0, scimActive));
}

export async function describeTeam(team: Team): Promise<TeamView> {
  const [members, scimActive] = await Promise.all([
    TeamMembership.count({ where: { team_id: team.id, status: 'active' } }),
    hasActiveScimToken(team.organization_id),
  ]);
  return teamView(team, members, scimActive);
}

/** The team's members by name (suspended ones too, said so, so they can be taken off), at most TEAM_MEMBERS_SHOWN. */
export async function teamMembers(team: Team) {
  const [total, rows] = await Promise.all([
    TeamMembership.count({ where: { team_id: team.id } }),
    TeamMembership.findAll({ where: { team_id: team.id }, order: [['user_name', 'ASC'], ['user_id', 'ASC']], limit: TEAM_MEMBERS_SHOWN }),
  ]);
  return {
    total,
    members: rows.map((m) => ({ user_id: m.user_id, name: m.user_name, email: m.user_email, role: m.role, status: m.status })),
  };
}

async function activeMemberCounts(teamIds: string[]): Promise<Map<string, number>> {
  if (teamIds.length === 0) return new Map();
  const rows = await TeamMembership.count({ where: { team_id: { [Op.in]: teamIds }, status: 'active' }, group: ['team_id'] });
  return new Map(rows.map((r) => [String(r.team_id), r.count]));
}
