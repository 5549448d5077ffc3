/**
 * GitLab's REST objects as its hooks show them, translated by the hooks' own translation (activity.ts), so an item
 * imported is the input its hook makes: where the API's object differs from the hook's, only the shape is adapted.
 */
import { z } from 'zod';
import { DomainError } from '../../errors';
import { ProviderFailure } from '../../outbound/providerHttp';
import type { Activity, PullRequestInput, RepositoryRef, ReviewActivityInput } from '../../services/git/activity';
import type { TaskInput } from '../../services/work/taskInput';
import { approvalExternalId, gitlabActivity, gitlabMergeRequestFields, gitlabProject, pullRequestInput, repositoryRef } from './activity';

/** A user as the API names one; the hooks' `user` has the same two fields. */
const apiUser = z.looseObject({ id: z.number().int(), username: z.string() });
export type ApiUser = z.infer<typeof apiUser>;

/** The API says `visibility`; the hooks say `visibility_level`. */
const VISIBILITY_LEVELS: Record<string, number> = { private: 0, internal: 10, public: 20 };
const apiProject = z.looseObject({ id: z.number().int(), visibility: z.string().nullish() });

/** The merge request's fields the hook carries under other names: its head (`sha`) and author (`author`). */
const apiMergeRequest = z.looseObject({ iid: z.number().int(), sha: z.string().nullish(), author: apiUser.nullish() });

/** A project read with `GET /projects/:id`, as the repository its hooks name. */
export function projectRepository(value: unknown, what: string): { ref: RepositoryRef; hookProject: Record<string, unknown> } {
  const p = read(apiProject, value, what);
  const hookProject = { ...p, visibility_level: p.visibility ? VISIBILITY_LEVELS[p.visibility] : undefined };
  return { ref: translate(what, () => repositoryRef(read(gitlabProject, hookProject, what))), hookProject };
}

/** A merge request of `GET /projects/:id/merge_requests`, as its Merge Request Hook's fields. */
export function mergeRequestFields(value: unknown, what: string): { hookFields: Record<string, unknown>; pullRequest: PullRequestInput } {
  const mr = read(apiMergeRequest, value, what);
  const hookFields = { ...mr, last_commit: mr.sha ? { id: mr.sha } : null, author_id: mr.author?.id ?? null };
  // The API names the author, where a hook names them only when it opens the merge request.
  const pullRequest = translate(what, () => pullRequestInput(read(gitlabMergeRequestFields, hookFields, what), mr.author?.username ?? null, `merge request !${mr.iid}`));
  return { hookFields, pullRequest };
}

const apiNote = z.looseObject({ author: apiUser.nullish() });

/** A note of `GET .../merge_requests/:iid/notes`, as its Note Hook: a comment, or (a system note) nothing. */
export function noteActivity(value: unknown, hookProject: Record<string, unknown>, hookFields: Record<string, unknown>, what: string): Activity | null {
  const note = read(apiNote, value, what);
  const result = translate(what, () => gitlabActivity('note', { object_kind: 'note', project: hookProject, user: note.author ?? null, object_attributes: value, merge_request: hookFields }));
  return 'kind' in result ? result : null;
}

const apiDeployment = z.looseObject({ id: z.number().int(), status: z.string(), updated_at: z.string(), sha: z.string(), environment: z.looseObject({ name: z.string() }) });

/**
 * A deployment of `GET /projects/:id/deployments`, as its Deployment Hook: a finished one is a deployment at the time
 * its status changed. The API gives no such time; a deployment's `updated_at` is set as its status changes and
 * rarely after, so it stands for the hook's `status_changed_at`.
 */
export function deploymentActivity(value: unknown, hookProject: Record<string, unknown>, what: string): Activity | null {
  const d = read(apiDeployment, value, what);
  const hook = { object_kind: 'deployment', project: hookProject, status: d.status, status_changed_at: d.updated_at, deployment_id: d.id, environment: d.environment.name, short_sha: d.sha, commit_url: null };
  const result = translate(what, () => gitlabActivity('deployment', hook));
  return 'kind' in result ? result : null;
}

const apiIssue = z.looseObject({
  labels: z.array(z.string()).nullish(),
  assignees: z.array(apiUser).nullish(),
  type: z.string().nullish(),
  issue_type: z.string().nullish(),
});

/**
 * An issue of `GET /projects/:id/issues`, as its Issue Hook without a change: an incident (the API's `type` is
 * `INCIDENT`, its `issue_type` `incident`), or its project's task as it stands.
 */
export function issueItem(value: unknown, hookProject: Record<string, unknown>, what: string): { activity: Activity } | { tasks: TaskInput[] } {
  const issue = read(apiIssue, value, what);
  const hook = {
    object_kind: 'issue',
    project: hookProject,
    labels: (issue.labels ?? []).map((title) => ({ title })),
    assignees: issue.assignees ?? [],
    user: null,
    object_attributes: { ...issue, type: issue.type ?? issue.issue_type ?? null, action: null },
    changes: null,
  };
  const result = translate(what, () => gitlabActivity('issue', hook));
  if ('tasks' in result) return { tasks: result.tasks.flatMap((event) => (event.kind === 'upsert' ? [event.task] : [])) };
  if ('kind' in result) return { activity: result };
  throw new ProviderFailure(`${what}: ${result.ignored}`);
}

/** An approval: GitLab's hooks and the importer name it by its approver alone (activity.ts). */
export function approvalReview(approver: ApiUser, at: Date): ReviewActivityInput {
  return { externalId: approvalExternalId(approver.username), kind: 'approved', actorUsername: approver.username, actorProviderId: String(approver.id), createdAt: at };
}

/** What the API's approvals name: who approves the merge request now. */
export const approvalsAnswer = z.looseObject({ approved_by: z.array(z.looseObject({ user: apiUser })).nullish() });

/** An approval's system note, `approved this merge request` (GitLab's SystemNoteService), by its author at its time. */
const approvalNote = z.looseObject({ system: z.literal(true), body: z.literal('approved this merge request'), author: apiUser, created_at: z.string() });

export function approvalNoted(value: unknown): { approver: ApiUser; at: Date } | null {
  const note = approvalNote.safeParse(value);
  if (!note.success) return null;
  const at = new Date(note.data.created_at);
  return Number.isNaN(at.getTime()) ? null : { approver: note.data.author, at };
}

export function read<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProviderFailure(`${what}: ${issue.path.length ? issue.path.join('.') : 'the item'}: ${issue.message}`);
}

/** The hooks' translation refuses a body it cannot read with `invalid`: from the API, that is an answer not to be used. */
function translate<T>(what: string, translation: () => T): T {
  try {
    return translation();
  } catch (err) {
    if (err instanceof DomainError) throw new ProviderFailure(`${what}: ${err.message}`);
    throw err;
  }
}
