import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { idParam } from '../../wire/query';
import { describeTeam, listTeams, teamMembers } from '../../services/people/teamViews';
import { label, organizationInput } from './inputs';
import { asAdmin } from './administration';

const teamInput = z.strictObject({ ...organizationInput, team_id: idParam('team_id') });
/** A member by user id or by e-mail address. */
const userInput = z
  .string({ error: 'user must be a user id or an e-mail address' })
  .trim()
  .min(1, { error: 'user must not be empty' })
  .max(320, { error: 'user must be at most 320 characters' });

/**
 * An organization's teams made by hand (docs/settings.md#teams), for its admins: the same writer as SCIM's Groups. A
 * team its identity provider owns is refused (409); another organization's team named by id is not found.
 */
export const teamsRouter = router({
  list: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return listTeams(input.organization_id);
  }),

  members: settingsProcedure.input(teamInput).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return teamMembers(await ctx.services.settings.teams.findIn(input.organization_id, input.team_id));
  }),

  create: settingsProcedure.input(z.strictObject({ ...organizationInput, name: label('team') })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return describeTeam(await ctx.services.settings.teams.create(input.organization_id, { name: input.name, externalId: null }, [], { kind: 'admin', actor }));
  }),

  rename: settingsProcedure.input(teamInput.extend({ name: label('team') })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return describeTeam(await ctx.services.settings.teams.rename(input.organization_id, input.team_id, input.name, actor));
  }),

  delete: settingsProcedure.input(teamInput).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    const team = await ctx.services.settings.teams.delete(input.organization_id, input.team_id, { kind: 'admin', actor });
    return { id: team.id, name: team.name };
  }),

  addMember: settingsProcedure.input(teamInput.extend({ user: userInput })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    const { team, userId } = await ctx.services.settings.teams.changeMember(input.organization_id, input.team_id, input.user, 'add', actor);
    return { team: await describeTeam(team), user_id: userId };
  }),

  removeMember: settingsProcedure.input(teamInput.extend({ user: userInput })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    const { team, userId } = await ctx.services.settings.teams.changeMember(input.organization_id, input.team_id, input.user, 'remove', actor);
    return { team: await describeTeam(team), user_id: userId };
  }),

  /** The team's manager reads its members' interactions (docs/api.md#who-sees-what); a team may have several. */
  setRole: settingsProcedure
    .input(teamInput.extend({ user_id: idParam('user_id'), role: z.enum(['member', 'manager'], { error: 'role must be member or manager' }) }))
    .mutation(async ({ ctx, input }) => {
      const { actor } = await asAdmin(ctx, input.organization_id);
      const membership = await ctx.services.settings.teams.setMemberRole(input.organization_id, input.team_id, input.user_id, input.role, actor);
      return { team_id: membership.team_id, user_id: membership.user_id, role: membership.role };
    }),
});
