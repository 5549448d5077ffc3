import { Op, WhereOptions } from 'sequelize';
import { DashboardCatalogEntry, DashboardView } from '../../db/models';
import type { Principal } from '../access/principal';
import { rules } from '../access/rules';
import { toCatalogEntry, toDashboardView } from '../resources/activity';
import type { ListSource } from './listing';

/** The SQL form of rules.canSeeDashboardView, built from the same scope. */
export function visibleDashboardViews(p: Principal): ListSource<ReturnType<typeof toDashboardView>> {
  const scope = rules.dashboardViewScope(p);
  const conditions: WhereOptions[] = [
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
  if (scope.teamFilter) conditions.push({ [Op.or]: [{ team_id: null }, { team_id: { [Op.in]: scope.teamFilter } }] });
  const key = [scope.userId, scope.organizationIds, scope.adminOrganizationIds, scope.memberTeamIds, scope.teamFilter ?? '*']
    .map((part) => (Array.isArray(part) ? [...part].sort().join(',') : part))
    .join('|');
  return {
    model: DashboardView,
    where: { [Op.and]: conditions },
    toItem: (row) => toDashboardView(row as DashboardView),
    countKey: `dashboard-views|${key}`,
  };
}

export function dashboardCatalog(): ListSource<ReturnType<typeof toCatalogEntry>> {
  return {
    model: DashboardCatalogEntry,
    // The catalog's key is its identity: it breaks ties where other lists use id.
    columns: { id: 'key' },
    toItem: (row) => toCatalogEntry(row as DashboardCatalogEntry),
    countKey: 'dashboard-catalog',
  };
}
