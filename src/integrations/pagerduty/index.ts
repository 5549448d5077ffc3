import type { IntegrationProvider } from '../provider';
import { pagerdutyHistory } from './history';
import { pagerdutyWebhook } from './webhook';

/** PagerDuty: incidents, pushed by its Webhooks v3 (docs/incidents.md#pagerduty) and read from its REST API v2 (history.ts). */
export const pagerduty = { id: 'pagerduty', name: 'PagerDuty', category: 'incidents', webhook: pagerdutyWebhook, history: pagerdutyHistory, apiCredential: { name: 'a read-only PagerDuty REST API key' }, setup: 'Integrations → Generic Webhooks (v3) → New Webhook: the URL; events incident.triggered, incident.resolved, incident.reopened, incident.annotated; PagerDuty shows its own signing secret once: store it with Use the provider’s secret (docs/incidents.md#pagerduty)' } as const satisfies IntegrationProvider;
