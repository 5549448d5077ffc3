import type { IntegrationProvider } from '../provider';
import { deploymentsWebhook } from './webhook';

/** The deployments API: deployments and incidents from any CI or script (docs/incidents.md#the-deployments-api). */
export const deployments = { id: 'deployments', name: 'Deployments API', category: 'deployments', webhook: deploymentsWebhook, setup: 'From your CI or script: POST each deployment to the URL + /deployments and each incident to + /incidents, with Authorization: Bearer <the secret> (docs/incidents.md#the-deployments-api)', boardsNameRepositories: true } as const satisfies IntegrationProvider;
