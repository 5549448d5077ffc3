import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import { gitAppView, listGitApps } from '../../services/git/apps/gitAppViews';
import { label, organizationInput } from './inputs';
import { asAdmin } from './administration';

const gitAppInput = z.strictObject({ ...organizationInput, git_app_id: idParam('git_app_id') });

/** An organization's git providers' connections (docs/ingest.md), for its admins: the same writer as `npm run gitapps`. */
export const gitAppsRouter = router({
  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listGitApps(ctx.services.settings.publicBase, ctx.services.settings.gitApps.providers, input.organization_id);
  }),

  create: settingsProcedure
    // The provider is checked against the registry's git providers by the writer, whose refusal names them.
    .input(z.strictObject({ ...organizationInput, provider: z.string({ error: 'provider must be a string' }), name: label('git app') }))
    .mutation(async ({ ctx, input }) => {
      const by = await asAdmin(ctx, input.organization_id);
      const { gitApps, publicBase } = ctx.services.settings;
      const { gitApp, secret } = await gitApps.create(input.organization_id, input.provider, input.name, by);
      return { git_app: gitAppView(publicBase, gitApps.providers, gitApp), secret, provider_settings: gitApps.providers.find(gitApp.provider)?.setup ?? null };
    }),

  rotateSecret: settingsProcedure.input(gitAppInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { gitApp, secret } = await ctx.services.settings.gitApps.rotateSecret(input.git_app_id, by);
    return { git_app: gitAppView(ctx.services.settings.publicBase, ctx.services.settings.gitApps.providers, gitApp), secret };
  }),

  /** The secret a rotation replaced is refused at once instead of at the end of its grace: for one that leaked. */
  endSecretGrace: settingsProcedure.input(gitAppInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { gitApp, ended } = await ctx.services.settings.gitApps.endSecretGrace(input.git_app_id, by);
    return { git_app: gitAppView(ctx.services.settings.publicBase, ctx.services.settings.gitApps.providers, gitApp), ended };
  }),
});
