import { DashboardCatalogEntry, DashboardView } from '../../../db/models';
import { conditions } from '../../access/conditions';
import type { Principal } from '../../access/principal';
import { rules } from '../../access/rules';
import { toCatalogEntry, toDashboardView } from '../../resources/activity';
import type { ListSource } from '../../persistence/query/listSource';

export function visibleDashboardViews(p: Principal): ListSource<ReturnType<typeof toDashboardView>, DashboardView> {
  const scope = rules.dashboardViewScope(p);
  return {
    model: DashboardView,
    where: conditions.visibleDashboardViews(scope),
    toItem: toDashboardView,
  };
}

export function dashboardCatalog(): ListSource<ReturnType<typeof toCatalogEntry>, DashboardCatalogEntry> {
  return {
    model: DashboardCatalogEntry,
    // The catalog's key is its identity: it breaks ties where other lists use id.
    columns: { id: 'key' },
    toItem: toCatalogEntry,
  };
}
