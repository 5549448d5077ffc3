import type { IntegrationProvider } from '../provider';
import { pagerdutyWebhook } from './webhook';

/** PagerDuty: incidents, pushed by its Webhooks v3 (docs/incidents.md#pagerduty). */
export const pagerduty = { id: 'pagerduty', name: 'PagerDuty', category: 'incidents', webhook: pagerdutyWebhook, apiCredential: { name: 'a PagerDuty REST API key' }, setup: 'Integrations → Generic Webhooks (v3) → New Webhook: the URL; events incident.triggered, incident.resolved, incident.reopened, incident.annotated; PagerDuty shows its own signing secret once: store it with Use the provider’s secret (docs/incidents.md#pagerduty)' } as const satisfies IntegrationProvider;
