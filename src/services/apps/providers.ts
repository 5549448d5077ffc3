import type { AppCategory } from '../../../db/models';

/**
 * The providers an app may connect (docs/trackers.md#apps) and what each brings in. Those that push to us are sent to
 * `/ingest/<provider>/<app id>` and prove it with the app's secret; the AI vendors' are read by the service.
 */
export const APP_PROVIDERS = {
  jira: { category: 'issues', name: 'Jira', pushes: true },
  linear: { category: 'issues', name: 'Linear', pushes: true },
  slack: { category: 'chat', name: 'Slack', pushes: true },
  pagerduty: { category: 'incidents', name: 'PagerDuty', pushes: true },
  opsgenie: { category: 'incidents', name: 'Opsgenie', pushes: true },
  deployments: { category: 'deployments', name: 'Deployments API', pushes: true },
  copilot: { category: 'ai', name: 'GitHub Copilot', pushes: false },
  cursor: { category: 'ai', name: 'Cursor', pushes: false },
  claude_code: { category: 'ai', name: 'Claude Code', pushes: false },
} as const satisfies Record<string, { category: AppCategory; name: string; pushes: boolean }>;

export type AppProvider = keyof typeof APP_PROVIDERS;

/** The providers that send us webhooks, and so need a secret; the AI vendors' apps are read by the service instead (§20). */
export type PushProvider = { [P in AppProvider]: (typeof APP_PROVIDERS)[P]['pushes'] extends true ? P : never }[AppProvider];

export const isAppProvider = (provider: string): provider is AppProvider => Object.hasOwn(APP_PROVIDERS, provider);

/** Every provider, in the order above (the CLI's usage and the settings page's choices). */
export const APP_PROVIDER_IDS: readonly AppProvider[] = Object.keys(APP_PROVIDERS).filter(isAppProvider);

export const isPushProvider = (provider: string): provider is PushProvider => isAppProvider(provider) && APP_PROVIDERS[provider].pushes;

/** Trackers: their boards are mapped to teams, and their tasks carry status categories. */
export const TRACKER_PROVIDERS = ['jira', 'linear'] as const satisfies readonly AppProvider[];
