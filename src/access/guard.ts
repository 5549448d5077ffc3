import { forbidden, notFound } from '../errors';
import { Organization, OrganizationMembership, Team, TeamMembership, User } from '../../db/models';
import type { Principal } from './principal';
import { rules } from './rules';

export interface UserTarget {
  user: User;
  organizationIds: string[];
}

/**
 * Loads an addressed resource and applies the rules in the order of DESIGN §3: existence (404) before
 * access (403). Procedures call these; they never look up a parent and decide access themselves.
 */
export const guard = {
  async user(p: Principal, userId: string): Promise<UserTarget> {
    const [user, memberships] = await Promise.all([
      User.findByPk(userId),
      OrganizationMembership.findAll({ where: { user_id: userId }, attributes: ['organization_id'] }),
    ]);
    if (!user) throw notFound('user');
    const organizationIds = memberships.map((m) => m.organization_id);
    if (!rules.canAccessUser(p, userId, organizationIds)) throw forbidden('user');
    return { user, organizationIds };
  },

  async organization(p: Principal, organizationId: string): Promise<Organization> {
    const organization = await Organization.findByPk(organizationId);
    if (!organization) throw notFound('organization');
    if (!rules.canAccessOrganization(p, organizationId)) throw forbidden('organization');
    return organization;
  },

  async team(p: Principal, teamId: string): Promise<Team> {
    const team = await Team.findByPk(teamId);
    if (!team) throw notFound('team');
    if (!rules.canAccessTeam(p, team)) throw forbidden('team');
    return team;
  },

  /** Personal data of a user: 403 unless the caller is the user, an admin over them, or (interactions) their manager. */
  async personalData(
    p: Principal,
    userId: string,
    kind: Parameters<typeof rules.personalDataScope>[2],
  ): Promise<UserTarget & { organizationIds: string[]; scope: ReturnType<typeof rules.personalDataScope> }> {
    const target = await guard.user(p, userId);
    const teamIds =
      kind === 'interactions' && userId !== p.userId
        ? (await TeamMembership.findAll({ where: { user_id: userId }, attributes: ['team_id'] })).map((m) => m.team_id)
        : [];
    const scope = rules.personalDataScope(p, { userId, organizationIds: target.organizationIds, teamIds }, kind);
    if (userId !== p.userId && scope.organizationIds.length === 0 && scope.managedTeamIds.length === 0) {
      throw forbidden('user');
    }
    return { ...target, scope };
  },
};
