import type { IntegrationProvider } from '../provider';
import { gitlabHistory } from './history';
import { gitlabWebhook } from './webhook';

/** GitLab: commits, merge requests, reviews, deployments and issues, pushed by its webhooks to a git app, and their history read from its API. */
export const gitlab = {
  id: 'gitlab',
  name: 'GitLab',
  category: 'git',
  webhook: gitlabWebhook,
  apiCredential: { name: 'a GitLab access token (personal, group or project)' },
  history: gitlabHistory,
  setup: 'Triggers: Push events (all branches), Merge request events, Comments, Deployment events, Issues events',
} as const satisfies IntegrationProvider;
