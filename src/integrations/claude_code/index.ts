import type { IntegrationProvider } from '../provider';
import { claudeCodeDay } from './puller';

/** Claude Code: its organization's daily usage, read by the service with an Anthropic Admin API key (docs/ai-vendors.md#claude-code). */
export const claudeCode = {
  id: 'claude_code',
  name: 'Claude Code',
  category: 'ai',
  puller: {
    pullDay: claudeCodeDay,
    accountKind: 'email',
    credentialName: 'an Anthropic Admin API key (sk-ant-admin…), made by an organization admin in the Claude Console',
    readsGithubAccount: false,
  },
} as const satisfies IntegrationProvider;
