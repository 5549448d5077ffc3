/**
 * Work in the domain's words, whatever tracker brought it (docs/trackers.md#trackers): the ingest transports translate
 * Jira, Linear, GitHub and GitLab payloads into these, the importers the providers' search answers, and one writer
 * (taskWriter.ts) stores them.
 */
import type { TaskStatus, TaskType } from '../../../db/models';

/** Someone as a tracker names them: matched to a member by e-mail, else by an account already linked. */
export interface TrackerAccount {
  /** The provider's account id (Jira `accountId`, Linear user id, GitHub user id). */
  externalId: string | null;
  email: string | null;
  /** A git provider's user name, matched through the git app's linked accounts (GitHub and GitLab issues). */
  username?: string | null;
}

/** One change of status the provider recorded. */
export interface StatusTransition {
  /** The provider's id of the change, unique per task: a redelivery or a second import adds nothing. */
  externalId: string;
  fromName: string | null;
  /** The provider's own category of each status; null when unknown (a Linear state no longer sent). */
  fromCategory: TaskStatus | null;
  toName: string;
  toCategory: TaskStatus;
  at: Date;
}

/** A task as its provider shows it now (a delivery's issue, or an issue from an import's page). */
export interface TaskInput {
  /** The board it sits on: a Jira project key, a Linear team key, a GitHub `owner/repo`, a GitLab project path. */
  board: string;
  /** The provider's id of the issue, unique per app. */
  externalId: string;
  title: string;
  type: TaskType;
  statusName: string;
  statusCategory: TaskStatus;
  assignee: TrackerAccount | null;
  storyPoints: number | null;
  /** The provider's id of its parent (Jira `parent`, Linear `parentId`), placed when that task is stored. */
  parentExternalId: string | null;
  createdAt: Date;
  /** The provider's time of this state: an older one arriving later changes nothing. */
  updatedAt: Date;
  /** When the provider says it was resolved or closed, for a task whose history does not show it. */
  resolvedAt: Date | null;
  /** What this delivery or import shows of its history (a delivery: its own change; an import: all of it). */
  transitions: StatusTransition[];
  /** Set when this change assigned the task: who did it, for a `task_assignment` interaction. */
  assignment?: { externalId: string; by: TrackerAccount | null; at: Date };
}

export type TaskEvent =
  | { kind: 'upsert'; task: TaskInput }
  /** The provider deleted (or removed) the issue at `at`. */
  | { kind: 'remove'; board: string; externalId: string; at: Date };

/** Where tasks come from: an app (Jira, Linear) or a git app (its repositories' issues). */
export interface TaskSource {
  appId: string;
  organizationId: string;
  provider: string;
  /** Git apps match people through their linked user names, apps through their linked account ids. */
  accounts: 'app' | 'git_app';
}

/** What one event did, for the delivery's answer and the import's summary. */
export type TaskResult = 'created' | 'updated' | 'unchanged' | 'stale' | 'removed' | 'unknown';
