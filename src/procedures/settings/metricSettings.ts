import { z } from 'zod';
import { router, settingsProcedure } from '../init';
import { organizationInput } from './inputs';
import { idParam } from '../../wire/query';
import { asAdmin } from './administration';
import type { CostRateTarget } from '../../services/finance/costRates';
import { REPOSITORIES_EXPECTED } from '../../services/metrics/settings/teamRepositories';
import { OWN_PRODUCTION_EXPECTED, REPOSITORY_EXPECTED } from '../../services/metrics/settings/repositoryProduction';

const teamInput = { ...organizationInput, team_id: idParam('team_id') };

/**
 * What counts in an organization's figures (docs/metrics.md#what-counts), for its admins: read, and changed with a
 * new version and an audit entry. The settings are checked by the service (a message per mistake), so the input here
 * only says where they go. A team's repositories are such a setting (docs/metrics.md#what-a-team-covers).
 */
const seatPriceInput = z.strictObject({
  ...organizationInput,
  tool: z.string({ error: 'tool must be the name of an AI tool, e.g. copilot' }).trim().min(1, { error: 'tool must not be empty' }).max(64, { error: 'tool must be at most 64 characters' }),
  monthly: z.number({ error: 'monthly must be a seat price a month, or null to unset it' }).nullable(),
});

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

  /** Each AI tool's seat price a month, in the organization's currency (the financial figures' AI spend). */
  seatPrices: settingsProcedure.input(z.strictObject(organizationInput)).query(async ({ ctx, input }) => {
    await asAdmin(ctx, input.organization_id);
    return ctx.services.settings.costRates.seatPrices(input.organization_id);
  }),

  /** Sets one tool's seat price (null unsets it), as `npm run costs -- set --tool` does; audited as cost_rate.set or cost_rate.unset. */
  setSeatPrice: settingsProcedure.input(seatPriceInput).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    const { costRates } = ctx.services.settings;
    const target: CostRateTarget = { subject: 'tool', tool: input.tool };
    if (input.monthly === null) {
      const prices = await costRates.seatPrices(input.organization_id);
      if (prices.tools.some((t) => t.tool === input.tool && t.monthly !== null)) await costRates.unset(input.organization_id, target, actor);
    } else await costRates.set(input.organization_id, target, { amount: input.monthly }, actor);
    return costRates.seatPrices(input.organization_id);
  }),

  /**
   * A repository's own production environments (by id or full name), or null for the organization's: a new version of
   * the settings, audited; answers the settings as `get` does.
   */
  setRepositoryProduction: settingsProcedure
    .input(
      z.strictObject({
        ...organizationInput,
        repository: z.unknown().nonoptional({ error: REPOSITORY_EXPECTED }),
        production_environments: z.unknown().nonoptional({ error: OWN_PRODUCTION_EXPECTED }),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { actor } = await asAdmin(ctx, input.organization_id);
      return ctx.services.settings.repositoryProduction.set(input.organization_id, { repository: input.repository, production_environments: input.production_environments }, actor);
    }),

  /** Sets them whole, by id or full name, or null for the fallback: a new version of the settings, audited. */
  setTeamRepositories: settingsProcedure.input(z.strictObject({ ...teamInput, repositories: z.unknown().nonoptional({ error: REPOSITORIES_EXPECTED }) })).mutation(async ({ ctx, input }) => {
    const { actor } = await asAdmin(ctx, input.organization_id);
    return ctx.services.settings.teamRepositories.set(input.organization_id, input.team_id, input.repositories, actor);
  }),
});
