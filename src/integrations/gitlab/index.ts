import type { IntegrationProvider } from '../provider';
import { gitlabWebhook } from './webhook';

/** GitLab: commits, merge requests, reviews, deployments and issues, pushed by its webhooks to a git app. */
export const gitlab = { id: 'gitlab', name: 'GitLab', category: 'git', webhook: gitlabWebhook } as const satisfies IntegrationProvider;
