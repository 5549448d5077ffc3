import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { organizationInput } from './inputs';
import { idParam } from '../../wire/query';
import { asAdmin } from './administration';
import { REPOSITORIES_EXPECTED } from '../../services/metrics/settings/teamRepositories';

const teamInput = { ...organizationInput, team_id: idParam('team_id') };

/**
 * What counts in an organization's figures (docs/metrics.md#what-counts), for its admins: read, and changed with a
 * new version and an audit entry. The settings are checked by the service (a message per mistake), so the input here
 * only says where they go. A team's repositories are such a setting (docs/metrics.md#what-a-team-covers).
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

  /** The repositories the team owns (null: none, it covers `authored`, those its members authored commits in). */
  teamRepositories: settingsProcedure.input(z.strictObject(teamInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return ctx.services.settings.teamRepositories.get(input.organization_id, input.team_id);
  }),

  /** Sets them whole, by id or full name, or null for the fallback: a new version of the settings, audited. */
  setTeamRepositories: settingsProcedure.input(z.strictObject({ ...teamInput, repositories: z.unknown().nonoptional({ error: REPOSITORIES_EXPECTED }) })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return ctx.services.settings.teamRepositories.set(input.organization_id, input.team_id, input.repositories, actor);
  }),
});
