import { guard } from '../access/guard';
import { router } from './init';
import * as scopes from '../services/dashboards/dashboardScopes';
import { DashboardCatalogResource, DashboardViewResource, toDashboardView } from '../resources/activity';
import { idParam } from '../wire/query';
import { getEndpoint, listEndpoint } from './endpoint';

const tag = 'Dashboards';

export const dashboardViewsRouter = router({
  list: listEndpoint({
    path: '/dashboard-views',
    operationId: 'listDashboardViews',
    tag,
    summary: 'List dashboard views',
    description:
      "Dashboard views the caller can see: their organizations' views, their teams' views and their own private views (admins: every view of their organization).",
    resource: DashboardViewResource,
    source: async (ctx) => scopes.visibleDashboardViews(ctx.principal),
  }),

  // A static segment: registered before `/dashboard-views/{id}`.
  catalog: listEndpoint({
    path: '/dashboard-views/catalog',
    operationId: 'listDashboardCatalog',
    tag,
    summary: 'List dashboard types',
    description: 'The catalog of dashboard types a view can be created from. Sorted by key, ascending, by default.',
    resource: DashboardCatalogResource,
    source: async () => scopes.dashboardCatalog(),
  }),

  get: getEndpoint({
    path: '/dashboard-views/{id}',
    operationId: 'getDashboardView',
    tag,
    summary: 'Get a dashboard view',
    description: 'One dashboard view. 404 when it does not exist, 403 when the caller cannot see it.',
    resource: DashboardViewResource,
    params: { id: idParam('id', 'dashboard view') },
    load: async (ctx, { id }) => toDashboardView(await guard.dashboardView(ctx.principal, id)),
  }),
});
