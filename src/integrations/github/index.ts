import type { IntegrationProvider } from '../provider';
import { githubWebhook } from './webhook';

/** GitHub: commits, pull requests, reviews, deployments and issues, pushed by its webhooks to a git app. */
export const github = { id: 'github', name: 'GitHub', category: 'git', webhook: githubWebhook } as const satisfies IntegrationProvider;
