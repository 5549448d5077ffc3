/** GitHub `issues` webhooks (or REST issues) as task events (docs/ingest.md#github-and-gitlab-issues). */
import type { TaskEvent, TrackerAccount } from '../../services/work/taskInput';
import { GIT_ISSUE_STATUSES, GitIssue, gitIssueStatus, gitIssueTask, sameAccount, transition } from '../common/gitIssues';

export interface GithubIssueChange {
  /** The webhook's `action`: opened, edited, closed, reopened, assigned, unassigned, labeled, deleted, … */
  action: string;
  issue: GitIssue;
  /** Who acted (`sender`). */
  sender: TrackerAccount | null;
  /** Whom an `assigned` or `unassigned` action concerns (the payload's top-level `assignee`). */
  assignee: TrackerAccount | null;
}

/** A deleted issue, or one transferred to another repository, leaves no task. */
export const removesTask = (action: string) => action === 'deleted' || action === 'transferred';

/**
 * What one `issues` action means for its task. The issue shows its state after the action; the action says what it
 * was before: `closed` and `reopened` change the state, `assigned` of the only assignee and `unassigned` of the last
 * one move an open issue between backlog and active. A deleted issue, or one transferred to another repository (it
 * arrives there as a new issue), leaves no task.
 */
export function githubIssueEvent(change: GithubIssueChange): TaskEvent {
  const { action, issue } = change;
  if (removesTask(action)) return { kind: 'remove', board: issue.board, externalId: issue.externalId, at: issue.updatedAt };
  const assigned = issue.assignees.length > 0;
  const before =
    action === 'closed' ? gitIssueStatus(true, assigned, false)
    : action === 'reopened' ? GIT_ISSUE_STATUSES.closed
    : action === 'assigned' && issue.open ? gitIssueStatus(true, issue.assignees.length > 1, false)
    : action === 'unassigned' && issue.open ? gitIssueStatus(true, true, false)
    : null;
  const transitions = before ? transition(issue, before, action) : [];
  // The task records its first assignee: assigning anyone else is no assignment of the task.
  const assignment = action === 'assigned' && sameAccount(change.assignee, issue.assignees[0]) ? change.sender : undefined;
  return { kind: 'upsert', task: gitIssueTask(issue, transitions, assignment) };
}
