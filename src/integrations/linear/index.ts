import type { IntegrationProvider } from '../provider';
import { linearWebhook } from './webhook';

/** Linear: issues as tasks, pushed by its data change webhooks (docs/trackers.md#linear); history by `npm run import -- linear`. */
export const linear = { id: 'linear', name: 'Linear', category: 'issues', webhook: linearWebhook, setup: 'Settings → API → Webhooks: the URL, data change events Issues; Linear makes its own signing secret: store it with Use the provider’s secret (docs/trackers.md#linear)' } as const satisfies IntegrationProvider;
