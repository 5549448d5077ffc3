import { z } from 'zod';
import { invalid } from '../../errors';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import { APP_LINKS, GIT_APP_LINKS, LinkTable } from '../../services/people/linkTables';
import { unlinkedAccounts } from '../../services/people/unmatchedAccounts';
import { organizationInput, text } from './inputs';
import { asAdmin } from './administration';

/** Accounts live on an app or on a git app: the input names exactly one. */
const connectionInput = { ...organizationInput, app_id: idParam('app_id').optional(), git_app_id: idParam('git_app_id', 'git app').optional() };

/** Where the named connection keeps its links, and its id. */
function connectionOf(input: { app_id?: string; git_app_id?: string }): { links: LinkTable; id: string } {
  const { app_id: appId, git_app_id: gitAppId } = input;
  if (appId !== undefined && gitAppId === undefined) return { links: APP_LINKS, id: appId };
  if (gitAppId !== undefined && appId === undefined) return { links: GIT_APP_LINKS, id: gitAppId };
  throw invalid('Give either app_id (an app’s accounts) or git_app_id (a git app’s user names)');
}

/**
 * Members' accounts on an organization's apps and git apps (docs/settings.md#setup), for its admins: the accounts
 * with activity and no member, busiest first, as `apps|gitapps unlinked` lists them, and a link made as the CLIs'
 * `link-user` makes one (audited as the admin's). Another organization's app or git app named by id is not found.
 */
export const accountsRouter = router({
  unlinked: settingsProcedure.input(z.strictObject(connectionInput)).query(async ({ ctx, input }) => {
    const by = await asAdmin(ctx, input.organization_id);
    const { links, id } = connectionOf(input);
    return unlinkedAccounts(links, id, by);
  }),

  link: settingsProcedure
    // An account as long as a link keeps (accounts files' limit too); a member by id or e-mail.
    .input(z.strictObject({ ...connectionInput, account: text('account', 200), user: text('user', 320) }))
    .mutation(async ({ ctx, input }) => {
      const by = await asAdmin(ctx, input.organization_id);
      const { links, id } = connectionOf(input);
      const link = await ctx.services.settings.accountLinks.linkUser(links, id, input.user, input.account, by);
      return { connection_id: link.connection_id, user_id: link.user_id, account: link.account, created_at: link.created_at.toISOString() };
    }),
});
