import { z } from 'zod';
import { TASK_STATUSES } from '../../../db/vocabulary';
import { invalid, notFound } from '../../errors';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import type { VendorAccess } from '../../services/apps/vendorSources';
import { APP_LINKS } from '../../services/people/linkTables';
import { appMappings, boardView, describeApp, listApps, repositoriesToMap, teamsToMap, userLinkView } from '../../services/apps/appViews';
import { organizationInput, text } from './inputs';
import { asAdmin } from './administration';

const appInput = z.strictObject({ ...organizationInput, app_id: idParam('app_id') });
/** Boards belong to an app or to a git app (its repositories' issues). */
const boardSourceInput = z.strictObject({ ...organizationInput, app_id: idParam('app_id', 'app or git app') });

/** How an AI vendor's app is read, from the create form's fields; undefined when none was given. */
function vendorAccessOf(input: { credential?: string; github_org?: string; github_enterprise?: string }): VendorAccess | undefined {
  const { credential, github_org: org, github_enterprise: enterprise } = input;
  if (credential === undefined && org === undefined && enterprise === undefined) return undefined;
  if (org !== undefined && enterprise !== undefined) throw invalid('Give github_org or github_enterprise, not both');
  const account = org !== undefined ? { kind: 'organization' as const, slug: org } : enterprise !== undefined ? { kind: 'enterprise' as const, slug: enterprise } : undefined;
  return { credential: credential ?? '', ...(account ? { account } : {}) };
}

/**
 * An organization's apps (docs/trackers.md#apps), for its admins: the same writer as `npm run apps`. Another
 * organization's app named by id is not found.
 */
export const appsRouter = router({
  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listApps(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, input.organization_id);
  }),

  create: settingsProcedure
    .input(
      z.strictObject({
        ...organizationInput,
        // Checked against the registry's app providers by the writer, whose refusal names them.
        provider: text('provider', 100),
        name: text('name', 200).optional(),
        points_field: text('points_field', 100).optional(),
        // An AI vendor's app: the credential it is read with (never shown back), and for Copilot whose reports. No base
        // URL here: where the service sends a credential is the operator's choice (npm run apps), not a web form's.
        credential: z.string({ error: 'credential must be a string' }).trim().optional(),
        github_org: text('github_org', 39).optional(),
        github_enterprise: text('github_enterprise', 39).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const by = await asAdmin(ctx, input.organization_id);
      const vendor = vendorAccessOf(input);
      const { app, secret } = await ctx.services.settings.apps.create(input.organization_id, input.provider, { name: input.name, pointsField: input.points_field, vendor }, by);
      return { app: await describeApp(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, app), secret };
    }),

  rotateSecret: settingsProcedure.input(appInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { app, secret } = await ctx.services.settings.apps.rotateSecret(input.app_id, by);
    return { app: await describeApp(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, app), secret };
  }),

  /** The secret a rotation replaced is refused at once instead of at the end of its grace: for one that leaked. */
  endSecretGrace: settingsProcedure.input(appInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { app, ended } = await ctx.services.settings.apps.endSecretGrace(input.app_id, by);
    return { app: await describeApp(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, app), ended };
  }),

  /** The secret the provider made (Linear's, Slack's, PagerDuty's), in place of ours; never echoed back. */
  setSecret: settingsProcedure.input(appInput.extend({ secret: z.string({ error: 'secret must be a string' }) })).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    return await describeApp(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, await ctx.services.settings.apps.setSecret(input.app_id, input.secret, by));
  }),

  disable: settingsProcedure.input(appInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    return await describeApp(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, await ctx.services.settings.apps.setActive(input.app_id, false, by));
  }),

  enable: settingsProcedure.input(appInput).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    return await describeApp(ctx.services.settings.publicBase, ctx.services.settings.apps.providers, await ctx.services.settings.apps.setActive(input.app_id, true, by));
  }),

  /** The teams a board may be mapped to. */
  teams: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return teamsToMap(input.organization_id);
  }),

  /** The repositories an incident tool's or the deployments API's board may be mapped to. */
  repositories: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return repositoriesToMap(input.organization_id);
  }),

  mappings: settingsProcedure.input(boardSourceInput).query(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    return appMappings(ctx.services.settings.apps, input.app_id, by);
  }),

  map: settingsProcedure
    .input(
      boardSourceInput.extend({ board: text('board', 200), team_id: idParam('team_id').optional(), repository_id: idParam('repository_id').optional() }),
    )
    .mutation(async ({ ctx, input }) => {
      const { team_id: teamId, repository_id: repositoryId } = input;
      const target = teamId !== undefined && repositoryId === undefined ? { teamId } : repositoryId !== undefined && teamId === undefined ? { repositoryId } : undefined;
      if (!target) throw invalid('Give either team_id (the board brings tasks) or repository_id (it brings incidents or deployments)');
      const by = await asAdmin(ctx, input.organization_id);
      return boardView(await ctx.services.settings.apps.map(input.app_id, input.board, target, by));
    }),

  unmap: settingsProcedure.input(boardSourceInput.extend({ board: text('board', 200), repository_id: idParam('repository_id').optional() })).mutation(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const repositoryId = input.repository_id;
    if (!(await ctx.services.settings.apps.unmap(input.app_id, input.board, by, repositoryId))) {
      throw notFound(`Board ${input.board} of ${input.app_id} is not mapped${repositoryId ? ` to repository ${repositoryId}` : ''}`);
    }
    return { app_id: input.app_id, board: input.board, ...(repositoryId ? { repository_id: repositoryId } : {}) };
  }),

  mapStatus: settingsProcedure
    .input(boardSourceInput.extend({ status: text('status', 200), category: z.enum(TASK_STATUSES, { error: `category must be one of ${TASK_STATUSES.join(', ')}` }) }))
    .mutation(async ({ ctx, input }) => {
      const by = await asAdmin(ctx, input.organization_id);
      const { tasks } = await ctx.services.settings.apps.mapStatus(input.app_id, input.status, input.category, by);
      return { app_id: input.app_id, status: input.status, category: input.category, tasks };
    }),

  /** The mappings panel's link; settings.accounts.link makes the same, through the same writer. */
  linkUser: settingsProcedure
    .input(appInput.extend({ user: text('user', 320), external_id: text('external_id', 200) }))
    .mutation(async ({ ctx, input }) => {
      const by = await asAdmin(ctx, input.organization_id);
      return userLinkView(await ctx.services.settings.accountLinks.linkUser(APP_LINKS, input.app_id, input.user, input.external_id, by));
    }),
});
