import { z } from 'zod';
import type { Activity, PullRequestState, RepositoryRef } from '../services/git/activity';
import { commitInputs, isIncidentLabel, nullableText, nullableTime, providerId, pullRequestNumber, pushedCommits, readPayload, rootCause, text, time } from './payload';
import { optionalProviderTime, providerTime } from './times';

/** `X-Gitlab-Event` values this service stores (DESIGN §13), with the `object_kind` their bodies carry. */
export const GITLAB_EVENTS = {
  'Push Hook': 'push',
  'Merge Request Hook': 'merge_request',
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

const mergeRequest = z.looseObject({
  project,
  user: z.looseObject({ username: text }).nullish(),
  object_attributes: z.looseObject({
    iid: pullRequestNumber,
    title: text,
    description: nullableText,
    state: z.enum(['opened', 'closed', 'merged', 'locked']),
    action: text.nullish(),
    created_at: time,
    updated_at: time,
    merged_at: nullableTime,
    closed_at: nullableTime,
  }),
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

const MR_STATES: Record<string, PullRequestState> = { opened: 'open', locked: 'open', merged: 'merged', closed: 'closed' };

/** What a GitLab delivery says, as activity (the body's `object_kind` was checked against the header). */
export function gitlabActivity(kind: (typeof GITLAB_EVENTS)[keyof typeof GITLAB_EVENTS], payload: unknown): Activity | { ignored: string } {
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
      const state = MR_STATES[mr.state];
      const updatedAt = providerTime(mr.updated_at, 'object_attributes.updated_at');
      // GitLab names the author by numeric id only; on `open` the acting user is the author.
      const author = mr.action === 'open' ? (p.user?.username ?? null) : null;
      const mergedAt = state === 'merged' ? (optionalProviderTime(mr.merged_at, 'object_attributes.merged_at') ?? updatedAt) : null;
      const closedAt = state === 'open' ? null : (optionalProviderTime(mr.closed_at, 'object_attributes.closed_at') ?? mergedAt ?? updatedAt);
      return {
        kind: 'pull_request',
        repository: repositoryRef(p.project),
        pullRequest: { number: mr.iid, title: mr.title, state, authorUsername: author, body: mr.description, size: null, createdAt: providerTime(mr.created_at, 'object_attributes.created_at'), mergedAt, closedAt, updatedAt },
      };
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
      if (!incident) return { ignored: "the issue is neither labelled 'incident' nor of type Incident" };
      const updatedAt = providerTime(item.updated_at, 'object_attributes.updated_at');
      return {
        kind: 'incident',
        repository: repositoryRef(p.project),
        incident: {
          externalId: item.id,
          title: item.title,
          causeSha: rootCause(item.description),
          createdAt: providerTime(item.created_at, 'object_attributes.created_at'),
          resolvedAt: item.state === 'closed' ? (optionalProviderTime(item.closed_at, 'object_attributes.closed_at') ?? updatedAt) : null,
          updatedAt,
        },
      };
    }
  }
}
