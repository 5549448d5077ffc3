import type { IntegrationProvider } from '../provider';
import { linearWebhook } from './webhook';

/** Linear: issues as tasks, pushed by its data change webhooks (docs/trackers.md#linear); history by `npm run import -- linear`. */
export const linear = { id: 'linear', name: 'Linear', category: 'issues', webhook: linearWebhook } as const satisfies IntegrationProvider;
