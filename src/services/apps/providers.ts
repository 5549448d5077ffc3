import type { AppCategory } from '../../../db/models';

/**
 * The providers an app may connect (docs/ingest.md#apps) and what each brings in. Those that push to us are sent to
 * `/ingest/<provider>/<app id>` and prove it with the app's secret; the AI vendors' are read by the service.
 */
export const APP_PROVIDERS = {
  jira: { category: 'issues', name: 'Jira' },
  linear: { category: 'issues', name: 'Linear' },
  slack: { category: 'chat', name: 'Slack' },
  pagerduty: { category: 'incidents', name: 'PagerDuty' },
  opsgenie: { category: 'incidents', name: 'Opsgenie' },
  deployments: { category: 'deployments', name: 'Deployments API' },
  copilot: { category: 'ai', name: 'GitHub Copilot' },
  cursor: { category: 'ai', name: 'Cursor' },
  claude_code: { category: 'ai', name: 'Claude Code' },
} as const satisfies Record<string, { category: AppCategory; name: string }>;

export type AppProvider = keyof typeof APP_PROVIDERS;

export const isAppProvider = (provider: string): provider is AppProvider => Object.hasOwn(APP_PROVIDERS, provider);

/** Trackers: their boards are mapped to teams, and their tasks carry status categories. */
export const TRACKER_PROVIDERS = ['jira', 'linear'] as const satisfies readonly AppProvider[];
