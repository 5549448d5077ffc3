import type { IntegrationProvider } from '../provider';
import { bitbucketWebhook } from './webhook';

/** Bitbucket Cloud: commits, pull requests and reviews, pushed by its webhooks to a git app. */
export const bitbucket = { id: 'bitbucket', name: 'Bitbucket', category: 'git', webhook: bitbucketWebhook } as const satisfies IntegrationProvider;
