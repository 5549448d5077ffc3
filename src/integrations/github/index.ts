import type { IntegrationProvider } from '../provider';
import { githubHistory } from './history';
import { githubWebhook } from './webhook';

/** GitHub: commits, pull requests, reviews, deployments and issues, pushed by its webhooks to a git app and read from its API. */
export const github = {
  id: 'github',
  name: 'GitHub',
  category: 'git',
  webhook: githubWebhook,
  apiCredential: { name: 'a GitHub token, or a GitHub App installed on the organization', githubApp: true },
  history: githubHistory,
  setup: 'Content type application/json; events: Pushes, Pull requests, Pull request reviews, Pull request review comments, Issue comments, Repositories, Deployment statuses, Issues',
} as const satisfies IntegrationProvider;
