import type { AppProvider } from '../../services/apps/providers';
import type { AppWebhooks } from './appDelivery';
import { jiraWebhooks } from './jira';
import { linearWebhooks } from './linear';
import { opsgenieWebhooks } from './opsgenie';
import { pagerdutyWebhooks } from './pagerduty';
import { deploymentsApi } from './deploymentsApi';
import { slackWebhooks } from './slack';

/** The app providers that push to `/ingest/<provider>/<app id>`, each with how its deliveries are read (docs/trackers.md#trackers, docs/incidents.md). */
export const APP_WEBHOOKS: Partial<Record<AppProvider, AppWebhooks>> = {
  jira: jiraWebhooks,
  linear: linearWebhooks,
  pagerduty: pagerdutyWebhooks,
  opsgenie: opsgenieWebhooks,
  deployments: deploymentsApi,
  slack: slackWebhooks,
};
