import type { IntegrationProvider } from '../provider';
import { opsgenieWebhook } from './webhook';

/** Opsgenie: alerts as incidents, pushed by its outgoing Webhook integration (docs/incidents.md#opsgenie). */
export const opsgenie = { id: 'opsgenie', name: 'Opsgenie', category: 'incidents', webhook: opsgenieWebhook } as const satisfies IntegrationProvider;
