import { settingsProcedure } from '../init';

/**
 * The providers the service connects to (src/integrations/registry.ts), as the settings page offers them: the page's
 * catalog comes from here, so the next provider needs no edit of the page.
 */
export const providersProcedure = settingsProcedure.query(({ ctx }) => ctx.services.settings.apps.providers.offered);
