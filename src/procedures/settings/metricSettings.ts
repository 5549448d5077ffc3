import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { organizationInput } from './inputs';
import { asAdmin } from './administration';

/**
 * What counts in an organization's figures (docs/metrics.md#what-counts), for its admins: read, and changed with a
 * new version and an audit entry. The settings are checked by the service (a message per mistake), so the input here
 * only says where they go.
 */
export const metricSettingsRouter = router({
  get: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return ctx.services.settings.metricSettings.get(input.organization_id);
  }),

  update: settingsProcedure.input(z.strictObject({ ...organizationInput, settings: z.unknown() })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return ctx.services.settings.metricSettings.update(input.organization_id, input.settings, actor);
  }),
});
