import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import { checkOtlpToken, createOtlpToken } from '../../auth/tokens/otlpTokens';
import { createScimToken } from '../../auth/tokens/scimTokens';
import { listOrganizationTokens, revokeToken } from '../../auth/tokens/everyKind';
import { isWellFormedToken, OTLP_TOKEN_PREFIX } from '../../auth/tokenFormat';
import { managedSettings } from '../../services/telemetry/managedSettings';
import { invalid } from '../../errors';
import { label, organizationInput } from './inputs';
import { asAdmin } from './administration';

const tokenInput = z.strictObject({ ...organizationInput, token_id: idParam('token_id') });

/** An organization's identity provider tokens (`/scim/v2`), for its admins. */
export const scimTokensRouter = router({
  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listOrganizationTokens(input.organization_id, 'scim');
  }),

  create: settingsProcedure.input(z.strictObject({ ...organizationInput, name: label('SCIM token') })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    const created = await createScimToken({ organizationId: input.organization_id, name: input.name, actor });
    return { ...created, scim_base_url: `${ctx.services.settings.publicBase}/scim/v2` };
  }),

  revoke: settingsProcedure.input(tokenInput).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return revokeToken(input.token_id, { actor, within: { organizationId: input.organization_id, kind: 'scim' } });
  }),
});

/** An organization's telemetry tokens (`/otlp`) and Claude Code's managed settings, for its admins. */
export const otlpTokensRouter = router({
  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listOrganizationTokens(input.organization_id, 'otlp');
  }),

  create: settingsProcedure
    .input(z.strictObject({ ...organizationInput, name: label('OTLP token'), user_id: idParam('user_id').optional() }))
    .mutation(async ({ ctx, input }) => {
      const { actor } = await asAdmin(ctx, input.organization_id);
      const created = await createOtlpToken({ organizationId: input.organization_id, user: input.user_id, name: input.name, actor });
      return { ...created, managed_settings: managedSettings(ctx.services.settings.publicBase, created.token) };
    }),

  revoke: settingsProcedure.input(tokenInput).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return revokeToken(input.token_id, { actor, within: { organizationId: input.organization_id, kind: 'otlp' } });
  }),

  /** A mutation though it changes nothing: the token travels in the body, never in a URL. */
  managedSettings: settingsProcedure.input(z.strictObject({ ...organizationInput, token: z.string() })).mutation(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    // Said without echoing the value: a mistaken paste may well be some other live secret.
    if (!isWellFormedToken(input.token, OTLP_TOKEN_PREFIX)) throw invalid('token must be an OTLP token as created here (otlp_ and 36 letters and digits)');
    const check = await checkOtlpToken(input.token, input.organization_id);
    if (!check.ok) throw invalid(check.refusal.replace('--token', 'token'));
    return managedSettings(ctx.services.settings.publicBase, input.token);
  }),
});
