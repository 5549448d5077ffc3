/**
 * GitHub and GitLab issues as tasks (docs/ingest.md#github-and-gitlab-issues): one rule for both providers, shared by
 * the webhook translations (src/ingest) and any importer of a repository's issues later. Imports only the
 * provider-neutral shapes of services/work.
 */
import type { StatusTransition, TaskInput, TrackerAccount } from '../../services/work/taskInput';

/** An issue as its provider shows it now, read from a webhook's payload (or an issue of the REST API). */
export interface GitIssue {
  /** The repository's `owner/repo` (GitHub) or the project's `path_with_namespace` (GitLab). */
  board: string;
  /** The issue's global id (GitHub `issue.id`, GitLab `object_attributes.id`), not its number in the repository. */
  externalId: string;
  title: string;
  open: boolean;
  /** Closed as not planned (GitHub's `state_reason`; GitLab gives no reason). */
  notPlanned: boolean;
  labels: string[];
  /** The first is the task's assignee. */
  assignees: TrackerAccount[];
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
}

export interface GitIssueStatus {
  name: string;
  category: TaskInput['statusCategory'];
}

/**
 * Git providers know two states; the categories need four. Each gets a name of its own, so that `apps map-status`
 * can count any of them elsewhere.
 */
export const GIT_ISSUE_STATUSES = {
  open: { name: 'open', category: 'backlog' },
  assigned: { name: 'assigned', category: 'active' },
  closed: { name: 'closed', category: 'done' },
  notPlanned: { name: 'not planned', category: 'canceled' },
} as const satisfies Record<string, GitIssueStatus>;

export function gitIssueStatus(open: boolean, assigned: boolean, notPlanned: boolean): GitIssueStatus {
  if (open) return assigned ? GIT_ISSUE_STATUSES.assigned : GIT_ISSUE_STATUSES.open;
  return notPlanned ? GIT_ISSUE_STATUSES.notPlanned : GIT_ISSUE_STATUSES.closed;
}

/** What the issue's state was before the change a delivery reports, when it reports one. */
export function transition(issue: GitIssue, from: GitIssueStatus, action: string): StatusTransition[] {
  const to = statusOf(issue);
  if (from.name === to.name) return [];
  // A redelivery of the same change names the same update time; two changes of one issue never share one.
  return [{ externalId: `${action}@${issue.updatedAt.toISOString()}`, fromName: from.name, fromCategory: from.category, toName: to.name, toCategory: to.category, at: issue.updatedAt }];
}

export const statusOf = (issue: GitIssue) => gitIssueStatus(issue.open, issue.assignees.length > 0, issue.notPlanned);

/** The task an issue is; `transitions` and `assignment` say what the delivery's change did. */
export function gitIssueTask(issue: GitIssue, transitions: StatusTransition[], assignedBy?: TrackerAccount | null): TaskInput {
  const status = statusOf(issue);
  return {
    board: issue.board,
    externalId: issue.externalId,
    title: issue.title,
    type: issue.labels.some((l) => l.trim().toLowerCase() === 'bug') ? 'bug' : 'task',
    statusName: status.name,
    statusCategory: status.category,
    assignee: issue.assignees[0] ?? null,
    storyPoints: null,
    parentExternalId: null,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    resolvedAt: issue.open ? null : (issue.closedAt ?? issue.updatedAt),
    transitions,
    // Unique in the organization: the issue and the time of the change that assigned it.
    ...(assignedBy !== undefined ? { assignment: { externalId: `${issue.externalId}:assigned@${issue.updatedAt.toISOString()}`, by: assignedBy, at: issue.updatedAt } } : {}),
  };
}

/** The same account, by the provider's id when both have one, else by user name. */
export function sameAccount(a: TrackerAccount | null | undefined, b: TrackerAccount | null | undefined): boolean {
  if (!a || !b) return false;
  if (a.externalId && b.externalId) return a.externalId === b.externalId;
  return !!a.username && a.username === b.username;
}
