import type { IntegrationProvider } from '../provider';
import { deploymentsWebhook } from './webhook';

/** The deployments API: deployments and incidents from any CI or script (docs/incidents.md#the-deployments-api). */
export const deployments = { id: 'deployments', name: 'Deployments API', category: 'deployments', webhook: deploymentsWebhook, boardsNameRepositories: true } as const satisfies IntegrationProvider;
