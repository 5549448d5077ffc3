import type { IntegrationProvider } from '../provider';
import { pagerdutyWebhook } from './webhook';

/** PagerDuty: incidents, pushed by its Webhooks v3 (docs/incidents.md#pagerduty). */
export const pagerduty = { id: 'pagerduty', name: 'PagerDuty', category: 'incidents', webhook: pagerdutyWebhook } as const satisfies IntegrationProvider;
