import type { IntegrationProvider } from '../provider';
import { opsgenieHistory } from './history';
import { opsgenieWebhook } from './webhook';

/** Opsgenie: alerts as incidents, pushed by its outgoing Webhook integration (docs/incidents.md#opsgenie) and read from its Alert API (history.ts). */
export const opsgenie = { id: 'opsgenie', name: 'Opsgenie', category: 'incidents', webhook: opsgenieWebhook, history: opsgenieHistory, apiCredential: { name: 'an Opsgenie API key with Read access' }, setup: 'Settings → Integrations → Webhook: the URL, the custom header Authorization: Bearer <the secret>, actions Create, Close and AddNote with the alert description in the payload (docs/incidents.md#opsgenie)' } as const satisfies IntegrationProvider;
