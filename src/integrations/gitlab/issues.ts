/** GitLab `Issue Hook` webhooks as task events (docs/ingest.md#github-and-gitlab-issues). */
import type { TaskEvent, TrackerAccount } from '../../services/work/taskInput';
import { GIT_ISSUE_STATUSES, GitIssue, gitIssueStatus, gitIssueTask, sameAccount, transition } from '../common/gitIssues';

export interface GitlabIssueChange {
  /** `object_attributes.action`: open, close, reopen, update. */
  action: string | null;
  issue: GitIssue;
  /** Who acted (`user`). */
  user: TrackerAccount | null;
  /** `changes.state_id` was sent: the state changed. */
  stateChanged: boolean;
  /** `changes.assignees.previous` when the assignees changed, else null. */
  previousAssignees: TrackerAccount[] | null;
}

/**
 * What one Issue Hook means for its task. `close` and `reopen` (or any change of `state_id`) change the state;
 * a change of `assignees` on an open issue moves it between backlog and active, and assigns the task when its
 * first assignee is new. GitLab gives no reason for a close: a closed issue is done.
 */
export function gitlabIssueEvent(change: GitlabIssueChange): TaskEvent {
  const { issue, previousAssignees } = change;
  const action = change.action ?? 'update';
  const closing = action === 'close' || (change.stateChanged && !issue.open);
  const reopening = action === 'reopen' || (change.stateChanged && issue.open);
  const before =
    closing ? gitIssueStatus(true, (previousAssignees ?? issue.assignees).length > 0, false)
    : reopening ? GIT_ISSUE_STATUSES.closed
    : previousAssignees && issue.open ? gitIssueStatus(true, previousAssignees.length > 0, false)
    : null;
  const transitions = before ? transition(issue, before, closing ? 'close' : reopening ? 'reopen' : 'assignees') : [];
  const first = issue.assignees[0];
  const newlyAssigned = previousAssignees !== null && !!first && !previousAssignees.some((p) => sameAccount(p, first));
  return { kind: 'upsert', task: gitIssueTask(issue, transitions, newlyAssigned ? change.user : undefined) };
}
