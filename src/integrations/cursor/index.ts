import type { IntegrationProvider } from '../provider';
import { cursorDay } from './puller';

/** Cursor: its team's daily usage, read by the service with an Admin API key (docs/ai-vendors.md#cursor). */
export const cursor = {
  id: 'cursor',
  name: 'Cursor',
  category: 'ai',
  puller: { pullDay: cursorDay, accountKind: 'email', credentialName: 'a Cursor Admin API key, made by a team admin in the Cursor dashboard', readsGithubAccount: false },
} as const satisfies IntegrationProvider;
