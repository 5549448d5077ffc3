import type { IntegrationProvider } from '../provider';
import { jiraWebhook } from './webhook';

/** Jira Cloud: issues as tasks, pushed by its admin webhooks (docs/trackers.md#jira-cloud); history by `npm run import -- jira`. */
export const jira = { id: 'jira', name: 'Jira', category: 'issues', webhook: jiraWebhook, setup: 'System → WebHooks → Create a WebHook: the URL, the secret in Secret, and under Issue tick created, updated and deleted (docs/trackers.md#connecting-jira-cloud)', namesPointsField: true } as const satisfies IntegrationProvider;
