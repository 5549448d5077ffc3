import { router } from '../init';
import { sessionProcedure } from './session';
import { apiTokensRouter } from './apiTokens';
import { webhooksRouter } from './webhooks';
import { gitAppsRouter } from './gitApps';
import { appsRouter } from './apps';
import { teamsRouter } from './teams';
import { accountsRouter } from './accounts';
import { membersRouter } from './members';
import { otlpTokensRouter, scimTokensRouter } from './organizationTokens';
import { providersProcedure } from './providers';
import { setupProcedure } from './setup';
import { metricSettingsRouter } from './metricSettings';

/**
 * `settings.*` (docs/settings.md): what a signed-in person manages in the product's settings. Session only; not part of
 * the REST API or its OpenAPI document.
 */
export const settingsRouter = router({
  session: sessionProcedure,
  providers: providersProcedure,
  setup: setupProcedure,
  apiTokens: apiTokensRouter,
  webhooks: webhooksRouter,
  gitApps: gitAppsRouter,
  apps: appsRouter,
  members: membersRouter,
  teams: teamsRouter,
  accounts: accountsRouter,
  scimTokens: scimTokensRouter,
  otlpTokens: otlpTokensRouter,
  metrics: metricSettingsRouter,
});
