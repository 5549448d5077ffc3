import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import { EVENT_TYPES } from '../../persistence/changes/events';
import { endpointView, listEndpoints, recentAttempts } from '../../services/webhooks/endpointViews';
import { eventsInput, organizationInput } from './inputs';
import { asAdmin } from './administration';

const endpointInput = z.strictObject({ ...organizationInput, endpoint_id: idParam('endpoint_id') });

/** An organization's outgoing webhooks (docs/webhooks.md), for its admins: the same writer as `npm run webhooks`. */
export const webhooksRouter = router({
  eventTypes: settingsProcedure.query(() => [...EVENT_TYPES]),

  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listEndpoints(input.organization_id);
  }),

  create: settingsProcedure
    .input(z.strictObject({ ...organizationInput, url: z.string().min(1, { error: 'url must not be empty' }), events: eventsInput.default(null) }))
    .mutation(async ({ ctx, input }) => {
      const by = await asAdmin(ctx, input.organization_id);
      const { endpoint, secret } = await ctx.services.settings.webhookEndpoints.create(input.organization_id, input.url, input.events, by);
      return { endpoint: endpointView(endpoint), secret };
    }),

  updateEvents: settingsProcedure.input(endpointInput.extend({ events: eventsInput })).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    return endpointView(await ctx.services.settings.webhookEndpoints.updateEvents(input.endpoint_id, input.events, by));
  }),

  disable: settingsProcedure.input(endpointInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    return endpointView(await ctx.services.settings.webhookEndpoints.disable(input.endpoint_id, by));
  }),

  enable: settingsProcedure.input(endpointInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { endpoint, resumed } = await ctx.services.settings.webhookEndpoints.enable(input.endpoint_id, by);
    return { endpoint: endpointView(endpoint), resumed };
  }),

  rotateSecret: settingsProcedure.input(endpointInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { endpoint, secret } = await ctx.services.settings.webhookEndpoints.rotateSecret(input.endpoint_id, by);
    return { endpoint: endpointView(endpoint), secret };
  }),

  deliveries: settingsProcedure
    .input(endpointInput.extend({ limit: z.number().int().min(1).max(100, { error: 'limit must be at most 100' }).default(20) }))
    .query(async ({ ctx, input }) => {
      await asAdmin(ctx, input.organization_id);
      return recentAttempts(input.endpoint_id, input.limit, input.organization_id);
    }),

  replay: settingsProcedure.input(z.strictObject({ ...organizationInput, delivery_id: idParam('delivery_id') })).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const delivery = await ctx.services.settings.webhookEndpoints.replay(input.delivery_id, by);
    return { id: delivery.id, replay_of: delivery.replay_of, event_id: delivery.event_id, event_type: delivery.event_type };
  }),
});
