import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import { ORGANIZATION_ROLES } from '../../services/people/members';
import { describeMember, listMembers } from '../../services/people/memberViews';
import { label, organizationInput } from './inputs';
import { asAdmin } from './administration';

const memberInput = z.strictObject({ ...organizationInput, user_id: idParam('user_id') });
const roleInput = z.enum(ORGANIZATION_ROLES, { error: `role must be one of ${ORGANIZATION_ROLES.join(', ')}` });
const emailInput = z
  .string({ error: 'email must be an e-mail address' })
  .trim()
  .max(320, { error: 'email must be at most 320 characters' })
  .pipe(z.email({ error: 'email must be an e-mail address' }));

/**
 * An organization's members by hand (docs/settings.md#members), for its admins: the same writer as SCIM's Users.
 * Refused (409) while its identity provider provisions them, and for the last active admin; another organization's
 * member named by id is not found.
 */
export const membersRouter = router({
  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listMembers(input.organization_id);
  }),

  add: settingsProcedure.input(z.strictObject({ ...organizationInput, email: emailInput, name: label('member'), role: roleInput })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return describeMember(await ctx.services.settings.members.add(input.organization_id, { email: input.email, name: input.name, role: input.role }, actor));
  }),

  setRole: settingsProcedure.input(memberInput.extend({ role: roleInput })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return describeMember(await ctx.services.settings.members.setRole(input.organization_id, input.user_id, input.role, actor));
  }),

  remove: settingsProcedure.input(memberInput).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    const { user } = await ctx.services.settings.members.remove(input.organization_id, input.user_id, actor);
    return { user_id: user.id, email: user.email };
  }),
});
