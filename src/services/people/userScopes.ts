import { literal, Op, WhereOptions } from 'sequelize';
import { App, DashboardView, GitApp, Interaction, Organization, OrganizationMembership, Team, TeamMembership, User, UserApp, UserGitApp } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { rules } from '../../access/rules';
import { conditions } from '../../access/conditions';
import { activeTeamIdsOf } from '../../access/userTargets';
import { memberColumns, toOrganization, toTeam, toUser } from '../../resources/people';
import { toUserApp, toUserGitApp, userAppColumns, userGitAppColumns } from '../../resources/integrations';
import { toDashboardView, toInteraction } from '../../resources/activity';
import type { ListSource } from '../../persistence/query/listSource';

type PersonalScope = ReturnType<typeof rules.personalDataScope>;

/**
 * Users visible to the caller: themself and everyone in an accessible organization. The caller belongs to every
 * accessible organization, so the members of those organizations include them; with no accessible organization
 * (a token scoped away from all of them) the caller still sees themself. Pages are read on the memberships'
 * (organization, user field, user) indexes.
 */
export function visibleUsers(p: Principal): ListSource<ReturnType<typeof toUser>, User> {
  const organizationIds = rules.accessibleOrganizationIds(p);
  const base = { model: User, toItem: toUser };
  if (organizationIds.length === 0) return { ...base, where: { id: p.userId } };
  return {
    ...base,
    keysFrom: {
      model: OrganizationMembership,
      key: 'user_id',
      partition: { column: 'organization_id', values: [...organizationIds].sort() },
      columns: memberColumns,
      where: conditions.activeMembership,
    },
  };
}

export function userOrganizations(p: Principal, organizationIds: readonly string[]): ListSource<ReturnType<typeof toOrganization>, Organization> {
  const visible = organizationIds.filter((o) => rules.canAccessOrganization(p, o));
  return {
    model: Organization,
    where: { id: { [Op.in]: visible } },
    toItem: toOrganization,
  };
}

/** Teams the user belongs to that the caller may access. */
export function userTeams(p: Principal, userId: string): ListSource<ReturnType<typeof toTeam>, Team> {
  const organizationIds = rules.accessibleOrganizationIds(p);
  return {
    model: Team,
    where: {
      [Op.and]: [
        { organization_id: { [Op.in]: organizationIds } },
        { id: { [Op.in]: literal(`(SELECT tm.team_id FROM team_memberships tm WHERE tm.user_id = :userId AND ${conditions.activeMembershipSql('tm')})`) } },
        ...conditions.teamScope(p, 'id'),
      ],
    },
    replacements: { userId },
    alsoReads: [TeamMembership],
    toItem: toTeam,
  };
}

export function userApps(userId: string, scope: PersonalScope): ListSource<ReturnType<typeof toUserApp>, UserApp, UserApp & { app: App }> {
  return {
    model: UserApp,
    where: { user_id: userId },
    // Only what an item shows: never the app's webhook secrets.
    include: [{ model: App, as: 'app', required: true, attributes: ['id', 'provider', 'name'], where: { organization_id: { [Op.in]: scope.organizationIds } } }],
    columns: userAppColumns,
    toItem: toUserApp,
  };
}

export function userGitApps(userId: string, scope: PersonalScope): ListSource<ReturnType<typeof toUserGitApp>, UserGitApp, UserGitApp & { git_app: GitApp }> {
  return {
    model: UserGitApp,
    where: { user_id: userId },
    include: [{ model: GitApp, as: 'git_app', required: true, attributes: ['id', 'provider', 'name'], where: { organization_id: { [Op.in]: scope.organizationIds } } }],
    columns: userGitAppColumns,
    toItem: toUserGitApp,
  };
}

/**
 * Dashboard views available to the user (their organizations' views, their teams' views, their own private
 * views), limited to the organizations where the caller may read the user's data and to the caller's team scope.
 */
export async function userDashboardViews(
  p: Principal,
  userId: string,
  scope: PersonalScope,
): Promise<ListSource<ReturnType<typeof toDashboardView>, DashboardView>> {
  const teamFilter = rules.teamFilter(p);
  const teamIds = (await activeTeamIdsOf(userId)).filter((t) => !teamFilter || teamFilter.includes(t));
  return {
    model: DashboardView,
    // What the user sees as a member (no admin's view of their organizations), within the caller's reach.
    where: conditions.visibleDashboardViews({
      userId,
      organizationIds: scope.organizationIds,
      adminOrganizationIds: [],
      memberTeamIds: teamIds,
      teamFilter: null,
    }),
    toItem: toDashboardView,
  };
}

export function userInteractions(p: Principal, userId: string, scope: PersonalScope): ListSource<ReturnType<typeof toInteraction>, Interaction> {
  const where: WhereOptions[] = [
    { user_id: userId },
    {
      [Op.or]: [
        { organization_id: { [Op.in]: scope.organizationIds } },
        { team_id: { [Op.in]: scope.managedTeamIds } },
      ],
    },
    ...conditions.teamScope(p, 'team_id', { orNoTeam: true }),
  ];
  return {
    model: Interaction,
    where: { [Op.and]: where },
    toItem: toInteraction,
  };
}
