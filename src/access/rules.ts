import type { Principal } from './principal';

export interface DashboardViewScope {
  userId: string;
  organizationIds: string[];
  adminOrganizationIds: string[];
  memberTeamIds: string[];
  teamFilter: string[] | null;
}

/**
 * The access rules of docs/api.md#who-sees-what as pure decisions. Every endpoint asks these (through the guard);
 * none re-derives them.
 */
export const rules = {
  canAccessOrganization(p: Principal, organizationId: string): boolean {
    return p.organizations.has(organizationId);
  },

  /** An organization's figures cover all its teams: not for a token scoped to some of them. */
  canReadOrganizationMetrics(p: Principal, organizationId: string): boolean {
    return p.organizations.has(organizationId) && !p.teamScope;
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

  /** Telemetry events are personal data of the whole organization: its admins', with a token not narrowed to teams. */
  canReadOrganizationTelemetry(p: Principal, organizationId: string): boolean {
    return p.organizations.get(organizationId) === 'admin' && !p.teamScope;
  },

  /** Figures per person (who reviews whom): the organization's admins and, for a team's figures, its managers. */
  canReadPeopleMetrics(p: Principal, target: { organizationId: string; team: { id: string; organization_id: string } | null }): boolean {
    return target.team ? this.canReadTeamInteractions(p, target.team) : p.organizations.get(target.organizationId) === 'admin';
  },

  /** An organization's credentials, webhooks and audit log (docs/settings.md): its admins, with a token not narrowed to teams. */
  canAdministerOrganization(p: Principal, organizationId: string): boolean {
    return p.organizations.get(organizationId) === 'admin' && !p.teamScope;
  },

  /** AI adoption team by team, against their delivery (ai-impact's tiers): the organization's admins only. */
  canReadAdoptionTiers(p: Principal, organizationId: string): boolean {
    return p.organizations.get(organizationId) === 'admin';
  },

  /** Money: the organization's admins only. */
  canReadFinancialMetrics(p: Principal, organizationId: string): boolean {
    return p.organizations.get(organizationId) === 'admin';
  },

  /** Team interactions: admins of the team's organization and managers of the team. */
  canReadTeamInteractions(p: Principal, team: { id: string; organization_id: string }): boolean {
    return p.organizations.get(team.organization_id) === 'admin' || p.teams.get(team.id)?.role === 'manager';
  },

  /**
   * Which dashboard views the caller sees: `organization` views of accessible organizations; `team` views of
   * the teams the caller is in; `private` views the caller owns. Admins see every view of their organization.
   * The token's team scope applies to team views.
   */
  dashboardViewScope(p: Principal): DashboardViewScope {
    const teamFilter = this.teamFilter(p);
    return {
      userId: p.userId,
      organizationIds: this.accessibleOrganizationIds(p),
      adminOrganizationIds: [...p.organizations].filter(([, role]) => role === 'admin').map(([o]) => o),
      memberTeamIds: [...p.teams.keys()],
      teamFilter,
    };
  },

  canSeeDashboardView(
    p: Principal,
    view: { visibility: string; organization_id: string; team_id: string | null; owner_id: string },
  ): boolean {
    const scope = this.dashboardViewScope(p);
    if (!scope.organizationIds.includes(view.organization_id)) return false;
    if (view.team_id && scope.teamFilter && !scope.teamFilter.includes(view.team_id)) return false;
    if (scope.adminOrganizationIds.includes(view.organization_id)) return true;
    if (view.visibility === 'organization') return true;
    if (view.visibility === 'team') return view.team_id !== null && scope.memberTeamIds.includes(view.team_id);
    return view.owner_id === scope.userId;
  },

  /** A view is changed (renamed, shared, deleted) by its owner only; admins see every view but change their own. */
  canChangeDashboardView(p: Principal, view: { owner_id: string }): boolean {
    return view.owner_id === p.userId;
  },

  /** A view shared with a team (or about one) is of a team the caller is in, or of an organization they administer. */
  canShareDashboardViewWithTeam(p: Principal, team: { id: string; organization_id: string }): boolean {
    return this.canAccessTeam(p, team) && (p.teams.has(team.id) || p.organizations.get(team.organization_id) === 'admin');
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
