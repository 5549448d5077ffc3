import { z } from 'zod';
import type { Activity, PullRequestInput, PullRequestState, RepositoryRef, ReviewActivityInput } from '../../services/git/activity';
import type { TaskEvent, TrackerAccount } from '../../services/work/taskInput';
import { gitlabIssueEvent } from './issues';
import { commitInputs, commitSha, isIncidentLabel, nullableText, nullableTime, providerId, pullRequestNumber, pushedCommits, readPayload, rootCause, fixedBy, text, time } from '../common/payload';
import { optionalProviderTime, providerTime } from '../common/times';

/** `X-Gitlab-Event` values this service stores (docs/ingest.md), with the `object_kind` their bodies carry. */
export const GITLAB_EVENTS = {
  'Push Hook': 'push',
  'Merge Request Hook': 'merge_request',
  'Note Hook': 'note',
  'Deployment Hook': 'deployment',
  'Issue Hook': 'issue',
  'Confidential Issue Hook': 'issue',
} as const;

/** GitLab's visibility levels: 0 private, 10 internal, 20 public. */
const PUBLIC = 20;

const project = z.looseObject({
  id: providerId,
  name: text,
  path_with_namespace: text,
  default_branch: text.nullish(),
  visibility_level: z.number().int().nullish(),
});
type Project = z.infer<typeof project>;

function repositoryRef(p: Project): RepositoryRef {
  return {
    providerId: p.id,
    name: p.name,
    fullName: p.path_with_namespace,
    defaultBranch: p.default_branch ?? 'main',
    isPrivate: p.visibility_level !== PUBLIC,
    createdAt: null,
  };
}

const push = z.looseObject({ project, commits: pushedCommits });

const mergeRequestFields = z.looseObject({
  iid: pullRequestNumber,
  title: text,
  description: nullableText,
  state: z.enum(['opened', 'closed', 'merged', 'locked']),
  created_at: time,
  updated_at: time,
  merged_at: nullableTime,
  closed_at: nullableTime,
  last_commit: z.looseObject({ id: text }).nullish(),
  merge_commit_sha: commitSha,
  /** GitLab names the author by user id only. */
  author_id: providerId.nullish(),
  draft: z.boolean().nullish(),
});
/** The acting user: their user name finds the member, their id says who they are. */
const user = z.looseObject({ username: text, id: providerId.nullish() }).nullish();
const mergeRequest = z.looseObject({
  project,
  user,
  object_attributes: mergeRequestFields.extend({ action: text.nullish(), oldrev: text.nullish() }),
  /** What the update changed, each as `{previous, current}`: `draft` turned off is the merge request made ready. */
  changes: z.looseObject({ draft: z.looseObject({ previous: z.boolean().nullish(), current: z.boolean().nullish() }).nullish() }).nullish(),
});
const note = z.looseObject({
  project,
  user,
  object_attributes: z.looseObject({ id: providerId, noteable_type: text, created_at: time, system: z.boolean().nullish() }),
  merge_request: mergeRequestFields.nullish(),
});
const deployment = z.looseObject({
  project,
  status: text,
  status_changed_at: time,
  deployment_id: providerId,
  environment: text,
  short_sha: z.string().regex(/^[0-9a-f]{7,40}$/i, 'a commit id is hex digits'),
  commit_url: nullableText,
});

const issue = z.looseObject({
  project,
  labels: z.array(z.looseObject({ title: text })).nullish(),
  object_attributes: z.looseObject({
    id: providerId,
    title: text,
    description: nullableText,
    type: nullableText,
    state: text,
    created_at: time,
    updated_at: time,
    closed_at: nullableTime,
  }),
});

/** GitLab lists assignees by user name (and, in recent versions, id). */
const assignee = z.looseObject({ username: text, id: providerId.nullish() });
const issueTask = issue.extend({
  user,
  assignees: z.array(assignee).nullish(),
  object_attributes: issue.shape.object_attributes.extend({ action: text.nullish() }),
  changes: z
    .looseObject({
      state_id: z.unknown().optional(),
      assignees: z.looseObject({ previous: z.array(assignee).nullish() }).nullish(),
    })
    .nullish(),
});

const account = (u: { username: string; id?: string | null } | null | undefined): TrackerAccount | null =>
  u ? { externalId: u.id ?? null, email: null, username: u.username } : null;

/** An issue that is no incident is a task of its project (src/integrations/gitlab/issues.ts says what each action does). */
function issueTaskEvent(payload: unknown): TaskEvent {
  const p = readPayload(issueTask, payload, 'Issue Hook');
  const item = p.object_attributes;
  const previous = p.changes?.assignees;
  return gitlabIssueEvent({
    action: item.action ?? null,
    issue: {
      board: p.project.path_with_namespace,
      externalId: item.id,
      title: item.title,
      open: item.state !== 'closed',
      notPlanned: false,
      labels: (p.labels ?? []).map((l) => l.title),
      assignees: (p.assignees ?? []).flatMap((a) => account(a) ?? []),
      createdAt: providerTime(item.created_at, 'object_attributes.created_at'),
      updatedAt: providerTime(item.updated_at, 'object_attributes.updated_at'),
      closedAt: optionalProviderTime(item.closed_at, 'object_attributes.closed_at'),
    },
    user: account(p.user),
    stateChanged: p.changes?.state_id !== undefined,
    previousAssignees: previous ? (previous.previous ?? []).flatMap((a) => account(a) ?? []) : null,
  });
}

const MR_STATES: Record<string, PullRequestState> = { opened: 'open', locked: 'open', merged: 'merged', closed: 'closed' };

function pullRequestInput(mr: z.infer<typeof mergeRequestFields>, author: string | null, at: string): PullRequestInput {
  const state = MR_STATES[mr.state];
  const updatedAt = providerTime(mr.updated_at, `${at}.updated_at`);
  const mergedAt = state === 'merged' ? (optionalProviderTime(mr.merged_at, `${at}.merged_at`) ?? updatedAt) : null;
  const closedAt = state === 'open' ? null : (optionalProviderTime(mr.closed_at, `${at}.closed_at`) ?? mergedAt ?? updatedAt);
  const createdAt = providerTime(mr.created_at, `${at}.created_at`);
  const commits = { head: commitSha.parse(mr.last_commit?.id), merge: state === 'merged' ? mr.merge_commit_sha : null };
  const authorProviderId = mr.author_id ?? null;
  return { number: mr.iid, title: mr.title, state, authorUsername: author, authorProviderId, body: mr.description, size: null, commits, createdAt, mergedAt, closedAt, updatedAt, draft: mr.draft ?? null };
}

/**
 * GitLab gives an approval no id of its own, and its API no time (the history importer, history.ts, reads who
 * approves from the API): the approver names it, so an approval seen by a hook and by the importer is one, kept at
 * the time first seen. An approval withdrawn and given again is the same reviewer's approval, as GitHub's dismissed
 * review stays the review it was.
 */
export const approvalExternalId = (approver: string | null) => `approval:${approver ?? ''}`;

/**
 * What a Merge Request Hook says of review: `approved` (the last approval needed) and `approval` (one of
 * several) are an approval by the acting user, at the merge request's update time (the approval's system note
 * touches it); an `update` with `oldrev` is new commits pushed, up to `last_commit`.
 */
function mergeRequestReview(mr: z.infer<typeof mergeRequest>['object_attributes'], actor: z.infer<typeof user>, at: Date): ReviewActivityInput | undefined {
  const by = { actorUsername: actor?.username ?? null, actorProviderId: actor?.id ?? null };
  if (mr.action === 'approved' || mr.action === 'approval') return { externalId: approvalExternalId(by.actorUsername), kind: 'approved', ...by, createdAt: at };
  if (mr.action === 'update' && mr.oldrev && mr.last_commit?.id) return { externalId: `commit:${mr.last_commit.id}`, kind: 'commit', ...by, createdAt: at };
  return undefined;
}

/**
 * What a GitLab delivery says, as activity or (an issue that is no incident) tasks; the body's `object_kind` was
 * checked against the header.
 */
export function gitlabActivity(kind: (typeof GITLAB_EVENTS)[keyof typeof GITLAB_EVENTS], payload: unknown): Activity | { ignored: string } | { tasks: TaskEvent[] } {
  switch (kind) {
    case 'push': {
      const p = readPayload(push, payload, 'Push Hook');
      return {
        kind: 'push',
        repository: repositoryRef(p.project),
        commits: commitInputs(p.commits),
      };
    }
    case 'merge_request': {
      const p = readPayload(mergeRequest, payload, 'Merge Request Hook');
      const mr = p.object_attributes;
      // GitLab names the author by numeric id only; on `open` the acting user is the author.
      const opened = pullRequestInput(mr, mr.action === 'open' ? (p.user?.username ?? null) : null, 'object_attributes');
      const madeReady = p.changes?.draft?.previous === true && p.changes.draft.current === false;
      const pr = madeReady ? { ...opened, readyForReviewAt: opened.updatedAt } : opened;
      const review = mergeRequestReview(mr, p.user, pr.updatedAt);
      if (review) return { kind: 'review', repository: repositoryRef(p.project), pullRequest: pr, pullRequestCurrent: true, review };
      return { kind: 'pull_request', repository: repositoryRef(p.project), pullRequest: pr };
    }
    case 'note': {
      const p = readPayload(note, payload, 'Note Hook');
      const n = p.object_attributes;
      if (n.noteable_type !== 'MergeRequest' || !p.merge_request) return { ignored: `a comment on a ${n.noteable_type}, not on a merge request` };
      if (n.system) return { ignored: "a system note is GitLab's, not a reviewer's" };
      const review = { externalId: `note:${n.id}`, kind: 'comment' as const, actorUsername: p.user?.username ?? null, actorProviderId: p.user?.id ?? null, createdAt: providerTime(n.created_at, 'object_attributes.created_at') };
      // The merge request as a note shows it carries no merge time: it only makes one not stored yet.
      const pr = pullRequestInput(p.merge_request, null, 'merge_request');
      return { kind: 'review', repository: repositoryRef(p.project), pullRequest: pr, pullRequestCurrent: false, review };
    }
    case 'deployment': {
      const p = readPayload(deployment, payload, 'Deployment Hook');
      const status = p.status === 'success' ? 'success' : p.status === 'failed' ? 'failure' : undefined;
      if (!status) return { ignored: `deployment status '${p.status}' is not a finished deployment` };
      const at = providerTime(p.status_changed_at, 'status_changed_at');
      // The full sha is only in the commit's URL.
      const fullSha = /\/commit\/([0-9a-f]{40})\/?$/i.exec(p.commit_url ?? '')?.[1];
      return {
        kind: 'deployment',
        repository: repositoryRef(p.project),
        deployment: { externalId: p.deployment_id, environment: p.environment, status, sha: (fullSha ?? p.short_sha).toLowerCase(), createdAt: at, finishedAt: at },
      };
    }
    case 'issue': {
      const p = readPayload(issue, payload, 'Issue Hook');
      const item = p.object_attributes;
      // GitLab has incidents of its own (work item type Incident); a label `incident` makes one of any issue.
      const incident = item.type?.toLowerCase() === 'incident' || (p.labels ?? []).some((l) => isIncidentLabel(l.title));
      if (!incident) return { tasks: [issueTaskEvent(payload)] };
      const updatedAt = providerTime(item.updated_at, 'object_attributes.updated_at');
      return {
        kind: 'incident',
        repository: repositoryRef(p.project),
        incident: {
          externalId: item.id,
          title: item.title,
          causeSha: rootCause(item.description),
          fixSha: fixedBy(item.description),
          createdAt: providerTime(item.created_at, 'object_attributes.created_at'),
          resolvedAt: item.state === 'closed' ? (optionalProviderTime(item.closed_at, 'object_attributes.closed_at') ?? updatedAt) : null,
          updatedAt,
        },
      };
    }
  }
}

/** What the history importer (history.ts) reads the API's projects and merge requests with, as the hooks' are read. */
export { project as gitlabProject, mergeRequestFields as gitlabMergeRequestFields, repositoryRef, pullRequestInput };
