import { z } from 'zod';
import { guard } from '../access/guard';
import { DASHBOARD_TYPES, isForAdmins } from '../services/dashboards/catalog';
import { dashboardScopes, dashboardViewsOf } from '../services/dashboards/dashboardScopes';
import { toDashboardView } from '../resources/activity';
import { idParam } from '../wire/query';
import type { AuthedContext, SettingsContext } from './context';
import { router, settingsProcedure } from './init';
import { metricResolvers, metricsQuery } from './metrics';
import { label } from './settings/inputs';

/** A metric of the Metrics API for the signed-in session: the same resolver, the same numbers, as `/v1/metrics/...`. */
const sessionMetric = <Answer>(resolve: (call: { ctx: AuthedContext; input: z.infer<typeof metricsQuery> }) => Promise<Answer>) =>
  settingsProcedure.meta({ sharedAnswer: true }).input(metricsQuery).query(({ ctx, input }) => resolve({ ctx: asCaller(ctx), input }));

/** The session's person as the Metrics API's caller. */
const asCaller = (ctx: SettingsContext): AuthedContext => ({ ...ctx, principal: ctx.settings.principal });

const TYPE_KEYS = DASHBOARD_TYPES.map((t) => t.key);
const typeKey = z.enum(TYPE_KEYS, { error: `type must be one of ${TYPE_KEYS.join(', ')}` });
const visibility = z.enum(['private', 'team', 'organization'], { error: 'visibility must be private, team or organization' });
const viewInput = { view_id: idParam('view_id') };

/** Where a view is shared: a `team` view names its team; the others may name the team they are about. */
const placement = z
  .strictObject({ ...viewInput, visibility, team_id: idParam('team_id').nullable().default(null) })
  .refine((p) => p.visibility !== 'team' || p.team_id !== null, { error: 'A team view needs team_id: the team it is shared with', path: ['team_id'] });

/**
 * Whether views of this type show money, so that only the organization's admins may place them: checked whenever a
 * view is placed (made or shared), as its owner may no longer be an admin. A type the catalog does not know is
 * taken as one.
 */
function isForAdminsType(key: string): boolean {
  const type = DASHBOARD_TYPES.find((t) => t.key === key);
  return type === undefined || isForAdmins(type);
}

/**
 * `dashboards.*` (docs/dashboards.md): what the dashboards page asks for and changes, for the signed-in session only
 * (CSRF and origin checked for changes, as for `settings.*`). `/v1/dashboard-views` shows the same views, read-only.
 */
export const dashboardsRouter = router({
  /** Every dashboard type with its panels; `for_admins`: its panels are money, for the organization's admins. */
  catalog: settingsProcedure.query(() => DASHBOARD_TYPES.map((t) => ({ ...t, for_admins: isForAdmins(t) }))),

  /** The organizations and teams the person may open a dashboard for, with their role in each organization. */
  scopes: settingsProcedure.query(({ ctx }) => dashboardScopes(ctx.settings.principal)),

  /** The views the person sees (the `/v1` rules), by name. */
  views: settingsProcedure.query(({ ctx }) => dashboardViewsOf(ctx.settings.principal)),

  view: settingsProcedure.input(z.strictObject(viewInput)).query(async ({ ctx, input }) => toDashboardView(await guard.dashboardView(ctx.settings.principal, input.view_id))),

  metrics: router({
    dora: sessionMetric(metricResolvers.dora),
    pullRequests: sessionMetric(metricResolvers.pullRequests),
    flow: sessionMetric(metricResolvers.flow),
    activity: sessionMetric(metricResolvers.activity),
    aiUsage: sessionMetric(metricResolvers.aiUsage),
    aiImpact: sessionMetric(metricResolvers.aiImpact),
    collaboration: sessionMetric(metricResolvers.collaboration),
    financial: sessionMetric(metricResolvers.financial),
  }),

  create: settingsProcedure
    .input(
      z
        .strictObject({ organization_id: idParam('organization_id'), type: typeKey, name: label('dashboard view'), visibility, team_id: idParam('team_id').nullable().default(null) })
        .refine((v) => v.visibility !== 'team' || v.team_id !== null, { error: 'A team view needs team_id: the team it is shared with', path: ['team_id'] }),
    )
    .mutation(async ({ ctx, input }) => {
      const { principal } = ctx.settings;
      await guard.dashboardViewPlace(principal, { organizationId: input.organization_id, teamId: input.team_id, forAdmins: isForAdminsType(input.type) });
      const view = await ctx.services.settings.dashboardViews.create(principal.userId, {
        organizationId: input.organization_id,
        type: input.type,
        name: input.name,
        visibility: input.visibility,
        teamId: input.team_id,
      });
      return toDashboardView(view);
    }),

  rename: settingsProcedure.input(z.strictObject({ ...viewInput, name: label('dashboard view') })).mutation(async ({ ctx, input }) => {
    const { principal } = ctx.settings;
    await guard.ownDashboardView(principal, input.view_id);
    return toDashboardView(await ctx.services.settings.dashboardViews.rename(input.view_id, input.name, principal.userId));
  }),

  share: settingsProcedure.input(placement).mutation(async ({ ctx, input }) => {
    const { principal } = ctx.settings;
    const view = await guard.ownDashboardView(principal, input.view_id);
    await guard.dashboardViewPlace(principal, { organizationId: view.organization_id, teamId: input.team_id, forAdmins: isForAdminsType(view.type) });
    return toDashboardView(await ctx.services.settings.dashboardViews.share(input.view_id, { visibility: input.visibility, teamId: input.team_id }, principal.userId));
  }),

  delete: settingsProcedure.input(z.strictObject(viewInput)).mutation(async ({ ctx, input }) => {
    const { principal } = ctx.settings;
    await guard.ownDashboardView(principal, input.view_id);
    await ctx.services.settings.dashboardViews.delete(input.view_id, principal.userId);
    return { deleted: input.view_id };
  }),
});
