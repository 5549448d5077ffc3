import type { IntegrationProvider } from '../provider';
import { bitbucketHistory } from './history';
import { bitbucketWebhook } from './webhook';

/** Bitbucket Cloud: commits, pull requests and reviews, pushed by its webhooks to a git app; its pull requests' history read from its API. */
export const bitbucket = {
  id: 'bitbucket',
  name: 'Bitbucket',
  category: 'git',
  webhook: bitbucketWebhook,
  // The store keeps one token: an API token goes in as `email:api_token`, sent as Basic (api.ts).
  apiCredential: { name: 'a Bitbucket access token (workspace, project or repository), or an API token written as email:api_token' },
  history: bitbucketHistory,
  setup:
    'Repository settings → Webhooks → Add webhook (or Workspace settings → Webhooks, for all its repositories): Secret as above; Triggers: Repository Push, Updated; Pull Request Created, Updated, Approved, Approval removed, Changes request created, Merged, Declined, Comment created',
  // A pull request names its head and merge commits by their first 12 hex digits (docs/ingest.md#bitbucket-cloud).
  abbreviatesShas: true,
} as const satisfies IntegrationProvider;
