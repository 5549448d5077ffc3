import { DashboardCatalogEntry, DashboardView } from '../../../db/models';
import { conditions } from '../../access/conditions';
import type { Principal } from '../../access/principal';
import { rules } from '../../access/rules';
import { toCatalogEntry, toDashboardView } from '../../resources/activity';
import type { ListSource } from '../query/listing';

export function visibleDashboardViews(p: Principal): ListSource<ReturnType<typeof toDashboardView>> {
  const scope = rules.dashboardViewScope(p);
  const key = [scope.userId, scope.organizationIds, scope.adminOrganizationIds, scope.memberTeamIds, scope.teamFilter ?? '*']
    .map((part) => (Array.isArray(part) ? [...part].sort().join(',') : part))
    .join('|');
  return {
    model: DashboardView,
    where: conditions.visibleDashboardViews(scope),
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
