import type { IntegrationProvider } from '../provider';
import { copilotDay } from './puller';

/** GitHub Copilot: one GitHub organization's or enterprise's usage metrics, read by the service (docs/ai-vendors.md#github-copilot). */
export const copilot = {
  id: 'copilot',
  name: 'GitHub Copilot',
  category: 'ai',
  puller: {
    pullDay: copilotDay,
    accountKind: 'github_login',
    credentialName:
      'a GitHub token that may read the Copilot usage metrics (a fine-grained token or GitHub App token with "Organization Copilot metrics: read", or a classic token with read:org; for an enterprise, manage_billing:copilot or read:enterprise)',
    readsGithubAccount: true,
  },
} as const satisfies IntegrationProvider;
