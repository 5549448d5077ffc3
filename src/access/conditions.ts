import { Op, WhereOptions } from 'sequelize';
import type { Principal } from './principal';
import { DashboardViewScope, rules } from './rules';

/**
 * The rules of `rules.ts` in their query form: the `where` a list uses to return only what the predicate
 * allows. Each condition sits beside the predicate it mirrors; no scope file translates a rule itself.
 */
export const conditions = {
  /** Suspended members count as no members (db/models/people.ts): every membership read that grants or shows. */
  activeMembership: { status: 'active' } as const,

  /** The same, for a literal subquery over a membership table aliased `alias`. */
  activeMembershipSql(alias: string): string {
    return `${alias}.status = 'active'`;
  },

  /** `rules.canAccessOrganization` on a column holding an organization id. */
  accessibleOrganizations(p: Principal, column = 'organization_id'): WhereOptions {
    return { [column]: { [Op.in]: rules.accessibleOrganizationIds(p) } };
  },

  /**
   * The token's team scope (`rules.teamFilter`) on a column holding a team id: nothing when the token names no
   * teams. `orNoTeam`: rows that belong to no team (organization-wide interactions or views) pass as well.
   */
  teamScope(p: Principal, column: string, options: { orNoTeam?: boolean } = {}): WhereOptions[] {
    const teams = rules.teamFilter(p);
    if (!teams) return [];
    const inScope = { [column]: { [Op.in]: teams } };
    return [options.orNoTeam ? { [Op.or]: [{ [column]: null }, inScope] } : inScope];
  },

  /** `rules.canSeeDashboardView` for every view of the scope's organizations. */
  visibleDashboardViews(scope: DashboardViewScope): WhereOptions {
    const visible: WhereOptions[] = [
      { organization_id: { [Op.in]: scope.organizationIds } },
      {
        [Op.or]: [
          { organization_id: { [Op.in]: scope.adminOrganizationIds } },
          { visibility: 'organization' },
          { visibility: 'team', team_id: { [Op.in]: scope.memberTeamIds } },
          { visibility: 'private', owner_id: scope.userId },
        ],
      },
    ];
    if (scope.teamFilter) visible.push({ [Op.or]: [{ team_id: null }, { team_id: { [Op.in]: scope.teamFilter } }] });
    return { [Op.and]: visible };
  },
};
