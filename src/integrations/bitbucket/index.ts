import type { IntegrationProvider } from '../provider';
import { bitbucketWebhook } from './webhook';

/** Bitbucket Cloud: commits, pull requests and reviews, pushed by its webhooks to a git app. */
export const bitbucket = {
  id: 'bitbucket',
  name: 'Bitbucket',
  category: 'git',
  webhook: bitbucketWebhook,
  apiCredential: { name: 'a Bitbucket access token (workspace, project or repository)' },
  setup:
    'Repository settings → Webhooks → Add webhook (or Workspace settings → Webhooks, for all its repositories): Secret as above; Triggers: Repository Push, Updated; Pull Request Created, Updated, Approved, Approval removed, Changes request created, Merged, Declined, Comment created',
  // A pull request names its head and merge commits by their first 12 hex digits (docs/ingest.md#bitbucket-cloud).
  abbreviatesShas: true,
} as const satisfies IntegrationProvider;
