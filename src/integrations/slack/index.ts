import type { IntegrationProvider } from '../provider';
import { slackWebhook } from './webhook';

/** Slack: conversations (who mentions or answers whom), pushed by its Events API (docs/conversations.md#slack). */
export const slack = { id: 'slack', name: 'Slack', category: 'chat', webhook: slackWebhook } as const satisfies IntegrationProvider;
