/**
 * The closed sets of values some columns hold, with no model or Sequelize behind them: what the wire's schemas
 * (src/resources/, src/procedures/) take from the data layer without loading a model.
 */

/** What an app brings in: the `/v1` App item's `category`, one a provider of src/integrations/ has. */
export const APP_CATEGORIES = ['issues', 'chat', 'git', 'incidents', 'deployments', 'ai'] as const;
export type AppCategory = (typeof APP_CATEGORIES)[number];

/**
 * The interactions recorded from real events (docs/metrics.md#activity): a review, a Slack message to someone, a
 * task assigned to someone. The `/v1` Interaction item's `type` and activity's `interactions_by_type`.
 */
export const INTERACTION_TYPES = ['code_review', 'communication', 'task_assignment'] as const;
export type InteractionType = (typeof INTERACTION_TYPES)[number];

export const TASK_TYPES = ['story', 'bug', 'task', 'epic'] as const;
export type TaskType = (typeof TASK_TYPES)[number];
/** Status categories (docs/trackers.md#status-categories): `canceled` never counts as completed. */
export const TASK_STATUSES = ['backlog', 'active', 'paused', 'done', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** An incident's urgency as PagerDuty gives it (docs/incidents.md#what-is-stored); the other sources have none. */
export const INCIDENT_URGENCIES = ['high', 'low'] as const;
export type IncidentUrgency = (typeof INCIDENT_URGENCIES)[number];
/** Opsgenie's priorities, PagerDuty's by default: what an organization may count in time to restore (docs/metrics.md#what-counts). */
export const INCIDENT_PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;
