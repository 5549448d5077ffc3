/**
 * GitHub's REST objects read as the webhooks' deliveries of them (README.md#history): each is put in the body of the
 * event that would have brought it and read by the webhook's own translation (activity.ts), so an item imported is
 * the very input its delivery makes (a review's `review:<id>`, a comment's `review_comment:<id>`, an issue's task
 * or incident) and one seen both ways is one row. The REST objects are the webhooks' own (a pull request of a list
 * lacks `merged` and its line counts, as the review events' does); only the event around them is supplied here.
 */
import type { Activity } from '../../services/git/activity';
import type { TaskInput } from '../../services/work/taskInput';
import { DomainError } from '../../errors';
import { ProviderFailure } from '../../outbound/providerHttp';
import { githubActivity } from './activity';

/** A repository as GET /repos/{owner}/{repo} answers it: the `repository` of every event's body. */
export type RestObject = unknown;

/**
 * A pull request as its list shows it. The event is the one that brought it to the state it shows (`opened`, or
 * `closed` for a merged or closed one); none but `synchronize` changes what the translation makes of it.
 */
export function pullRequestActivity(scope: string, repository: RestObject, pullRequest: RestObject): Activity | null {
  const state = typeof pullRequest === 'object' && pullRequest !== null && 'state' in pullRequest ? pullRequest.state : null;
  return read(scope, 'pull request', () => githubActivity('pull_request', { action: state === 'open' ? 'opened' : 'closed', repository, pull_request: pullRequest }));
}

/** A review of GET .../pulls/{n}/reviews, as its `submitted` delivery (a pending or dismissed one is no activity, as there). */
export function reviewActivity(scope: string, repository: RestObject, pullRequest: RestObject, review: RestObject): Activity | null {
  return read(scope, 'review', () => githubActivity('pull_request_review', { action: 'submitted', repository, pull_request: pullRequest, review }));
}

/** A review comment of GET .../pulls/{n}/comments, as its `created` delivery. */
export function reviewCommentActivity(scope: string, repository: RestObject, pullRequest: RestObject, comment: RestObject): Activity | null {
  return read(scope, 'review comment', () => githubActivity('pull_request_review_comment', { action: 'created', repository, pull_request: pullRequest, comment }));
}

/** One status of a deployment, as the `deployment_status` delivery of it: a finished one is the deployment's activity. */
export function deploymentActivity(scope: string, repository: RestObject, deployment: RestObject, status: RestObject): Activity | null {
  return read(scope, 'deployment status', () => githubActivity('deployment_status', { action: 'created', repository, deployment, deployment_status: status }));
}

/**
 * An issue of GET .../issues (never a pull request), as an `edited` delivery: an incident when labelled so, else a
 * task. An edit changes no status and assigns no one: the REST issue shows where it stands, not the change that took
 * it there, so the task carries no transition of its own.
 */
export function issueItem(scope: string, repository: RestObject, issue: RestObject): { activity: Activity } | { task: TaskInput } | null {
  const result = translated(scope, 'issue', () => githubActivity('issues', { action: 'edited', repository, issue }));
  if (!result || 'ignored' in result) return null;
  if ('tasks' in result) {
    const [event] = result.tasks;
    return event?.kind === 'upsert' ? { task: event.task } : null;
  }
  return { activity: result };
}

function read(scope: string, what: string, translate: () => ReturnType<typeof githubActivity>): Activity | null {
  const result = translated(scope, what, translate);
  return result && 'kind' in result ? result : null;
}

/** The translation refuses an object it cannot read as it refuses a delivery: here that is GitHub's answer, not a caller's body. */
function translated(scope: string, what: string, translate: () => ReturnType<typeof githubActivity>): ReturnType<typeof githubActivity> {
  try {
    return translate();
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'invalid') throw new ProviderFailure(`${scope}: GitHub's ${what} could not be read (${err.message})`);
    throw err;
  }
}
