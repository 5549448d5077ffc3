import type { Order } from 'sequelize';
import { DashboardCatalogEntry, DashboardView, Organization, Team } from '../../../db/models';
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

/** The views the dashboards page lists at once, by name; more than that says so. */
export const DASHBOARD_VIEWS_LISTED = 200;

/** The views the person sees (the `/v1` rules), by name, the first DASHBOARD_VIEWS_LISTED. */
export async function dashboardViewsOf(p: Principal): Promise<{ views: ReturnType<typeof toDashboardView>[]; more: boolean }> {
  const rows = await DashboardView.findAll({
    where: conditions.visibleDashboardViews(rules.dashboardViewScope(p)),
    order: [
      ['name', 'ASC'],
      ['id', 'ASC'],
    ],
    limit: DASHBOARD_VIEWS_LISTED + 1,
  });
  return { views: rows.slice(0, DASHBOARD_VIEWS_LISTED).map(toDashboardView), more: rows.length > DASHBOARD_VIEWS_LISTED };
}

/**
 * What a dashboard can be opened for: the person's organizations (with their role, which says whether money shows)
 * and each one's teams (whether they are in it, which says where they may share a view).
 */
export async function dashboardScopes(p: Principal) {
  const organizationIds = rules.accessibleOrganizationIds(p);
  const byName: Order = [
    ['name', 'ASC'],
    ['id', 'ASC'],
  ];
  const organizations = await Organization.findAll({ where: { id: organizationIds }, attributes: ['id', 'name'], order: byName });
  const teams = await Team.findAll({ where: { organization_id: organizationIds }, attributes: ['id', 'name', 'organization_id'], order: byName });
  return organizations.map((o) => ({
    id: o.id,
    name: o.name,
    role: p.organizations.get(o.id)!,
    teams: teams.filter((t) => t.organization_id === o.id && rules.canAccessTeam(p, t)).map((t) => ({ id: t.id, name: t.name, member: p.teams.has(t.id) })),
  }));
}
