import { z } from 'zod';
import { settingsProcedure } from '../init';
import { setupView } from '../../services/apps/setup';
import { organizationInput } from './inputs';
import { asAdmin } from './administration';

/**
 * An organization's sources at a glance, for its admins (docs/settings.md#setup): each git app, app, SCIM and OTLP
 * token with its state, its last delivery and refusal, and the next step.
 */
export const setupProcedure = settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
  await asAdmin(ctx, input.organization_id);
  const { apps, publicBase, clock } = ctx.services.settings;
  return setupView(input.organization_id, apps.providers, publicBase, clock());
});
