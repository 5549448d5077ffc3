import type { IntegrationProvider } from '../provider';
import { slackHistory } from './history';
import { slackWebhook } from './webhook';

/** Slack: conversations (who mentions or answers whom), pushed by its Events API (docs/conversations.md#slack), and their history read from its Web API (history.ts). */
export const slack = { id: 'slack', name: 'Slack', category: 'chat', webhook: slackWebhook, history: slackHistory, apiCredential: { name: 'the Slack app’s bot token (xoxb-…)' }, setup: 'Your Slack app’s Basic Information → Signing Secret: store it with Use the provider’s secret; Event Subscriptions: the URL as Request URL, bot events message.channels (and message.groups) (docs/conversations.md#connecting-a-workspace)' } as const satisfies IntegrationProvider;
