import type { AppProvider } from '../../services/apps/providers';
import type { AppWebhooks } from './appDelivery';
import { jiraWebhooks } from './jira';
import { linearWebhooks } from './linear';

/** The app providers that push to `/ingest/<provider>/<app id>`, each with how its deliveries are read (docs/trackers.md#trackers). */
export const APP_WEBHOOKS: Partial<Record<AppProvider, AppWebhooks>> = {
  jira: jiraWebhooks,
  linear: linearWebhooks,
};
