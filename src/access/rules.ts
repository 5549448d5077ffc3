import type { Principal } from './principal';

/**
 * The access rules of DESIGN §5 as pure decisions. Every endpoint asks these (through the guard);
 * none re-derives them.
 */
export const rules = {
  canAccessOrganization(p: Principal, organizationId: string): boolean {
    return p.organizations.has(organizationId);
  },

  canAccessTeam(p: Principal, team: { id: string; organization_id: string }): boolean {
    return p.organizations.has(team.organization_id) && (!p.teamScope || p.teamScope.has(team.id));
  },

  /** A user is visible to themself and to anyone sharing an accessible organization with them. */
  canAccessUser(p: Principal, userId: string, userOrganizationIds: readonly string[]): boolean {
    return userId === p.userId || userOrganizationIds.some((o) => p.organizations.has(o));
  },

  accessibleOrganizationIds(p: Principal): string[] {
    return [...p.organizations.keys()];
  },

  /** Teams narrowed by the token, or null when every team of an accessible organization is allowed. */
  teamFilter(p: Principal): string[] | null {
    return p.teamScope ? [...p.teamScope] : null;
  },

  /**
   * Where the caller may read personal data of user U (apps, git apps, dashboard views, interactions):
   * U themself in every accessible organization; an admin in the accessible organizations they administer
   * that U belongs to; for interactions also a manager, for the teams they manage that U is a member of.
   */
  personalDataScope(
    p: Principal,
    target: { userId: string; organizationIds: readonly string[]; teamIds?: readonly string[] },
    kind: 'apps' | 'git_apps' | 'dashboard_views' | 'interactions',
  ): { organizationIds: string[]; managedTeamIds: string[] } {
    if (target.userId === p.userId) return { organizationIds: this.accessibleOrganizationIds(p), managedTeamIds: [] };
    const organizationIds = target.organizationIds.filter((o) => p.organizations.get(o) === 'admin');
    const managedTeamIds =
      kind === 'interactions'
        ? (target.teamIds ?? []).filter((t) => p.teams.get(t)?.role === 'manager')
        : [];
    return { organizationIds, managedTeamIds };
  },
};
