import { z } from 'zod';
import type { Activity, PullRequestInput, RepositoryRef, ReviewActivityKind } from '../../services/git/activity';
import type { TaskEvent, TrackerAccount } from '../../services/work/taskInput';
import { githubIssueEvent, removesTask } from './issues';
import { invalid } from '../../errors';
import { commitInputs, commitSha, eventBodies, isIncidentLabel, lineCount, nullableText, nullableTime, providerId, pullRequestNumber, pushedCommits, readPayload, rootCause, fixedBy, text, time } from '../common/payload';
import { optionalProviderTime, providerTime } from '../common/times';

/** GitHub events this service stores (docs/ingest.md); any other is acknowledged and ignored. */
export const GITHUB_EVENTS = [
  'ping',
  'push',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'issue_comment',
  'repository',
  'deployment_status',
  'issues',
] as const;

/**
 * The top-level fields of each stored event's body, over all its actions, as GitHub documents them: the payload
 * schemas of octokit/webhooks (`payload-schemas/api.github.com/<event>/*.schema.json`, each `additionalProperties:
 * false`), and `enterprise`, which GitHub's webhook docs add to every event. They tell one event's body from another's.
 */
const GITHUB_BODY_FIELDS = {
  push: ['ref', 'before', 'after', 'created', 'deleted', 'forced', 'base_ref', 'compare', 'commits', 'head_commit', 'repository', 'pusher', 'sender', 'installation', 'organization', 'enterprise'],
  pull_request: ['action', 'number', 'pull_request', 'assignee', 'repository', 'installation', 'organization', 'sender', 'reason', 'milestone', 'changes', 'label', 'requested_reviewer', 'requested_team', 'before', 'after', 'enterprise'],
  pull_request_review: ['action', 'review', 'pull_request', 'repository', 'installation', 'organization', 'sender', 'changes', 'enterprise'],
  pull_request_review_comment: ['action', 'comment', 'pull_request', 'repository', 'installation', 'organization', 'sender', 'changes', 'enterprise'],
  issue_comment: ['action', 'issue', 'comment', 'repository', 'sender', 'installation', 'organization', 'changes', 'enterprise'],
  issues: ['action', 'issue', 'assignee', 'repository', 'sender', 'installation', 'organization', 'milestone', 'label', 'changes', 'enterprise'],
  repository: ['action', 'repository', 'sender', 'installation', 'organization', 'changes', 'enterprise'],
  deployment_status: ['action', 'deployment_status', 'deployment', 'check_run', 'workflow_run', 'workflow', 'repository', 'sender', 'installation', 'organization', 'enterprise'],
} as const;
const bodyOf = eventBodies(GITHUB_BODY_FIELDS);

const repository = z.looseObject({
  id: providerId,
  name: text,
  full_name: text,
  default_branch: text.nullish(),
  private: z.boolean(),
  created_at: nullableTime,
});
/** GitHub documents a sender for every action of the repository event; a deletion without one is no deletion of GitHub's. */
const repositoryEvent = z.looseObject({ repository, action: text, sender: z.looseObject({ login: text }) });

function repositoryRef(r: z.infer<typeof repository>): RepositoryRef {
  return {
    providerId: r.id,
    name: r.name,
    fullName: r.full_name,
    defaultBranch: r.default_branch ?? 'main',
    isPrivate: r.private,
    createdAt: optionalProviderTime(r.created_at, 'repository.created_at'),
  };
}

const push = z.looseObject({ repository, commits: pushedCommits });

const pullRequestFields = z.looseObject({
    number: pullRequestNumber,
    title: text,
    state: z.enum(['open', 'closed']),
    merged: z.boolean().nullish(),
    merged_at: nullableTime,
    closed_at: nullableTime,
    created_at: time,
    updated_at: time,
    user: z.looseObject({ login: text, id: providerId.nullish() }).nullish(),
    body: nullableText,
    additions: lineCount.nullish(),
    deletions: lineCount.nullish(),
    head: z.looseObject({ sha: commitSha }).nullish().catch(null),
    merge_commit_sha: commitSha,
    draft: z.boolean().nullish(),
});
/** A GitHub user: their login finds the member, their id says who they are (a login can change hands). */
const githubUser = z.looseObject({ login: text, id: providerId.nullish() });
const login = githubUser.nullish();
const idOf = (user: { id?: string | null } | null | undefined) => user?.id ?? null;
const pullRequest = z.looseObject({ action: text, repository, pull_request: pullRequestFields, after: text.nullish(), sender: login });

const review = z.looseObject({
  action: text,
  repository,
  pull_request: pullRequestFields,
  review: z.looseObject({ id: providerId, state: text, user: login, submitted_at: nullableTime }),
});
const reviewComment = z.looseObject({
  action: text,
  repository,
  pull_request: pullRequestFields,
  comment: z.looseObject({ id: providerId, user: login, created_at: time }),
});
const issueComment = z.looseObject({
  action: text,
  repository,
  issue: z.looseObject({
    number: pullRequestNumber,
    title: text,
    body: nullableText,
    state: z.enum(['open', 'closed']),
    user: login,
    created_at: time,
    updated_at: time,
    closed_at: nullableTime,
    pull_request: z.looseObject({ merged_at: nullableTime }).nullish(),
  }),
  comment: z.looseObject({ id: providerId, user: login, created_at: time }),
});

/** GitHub's review states, as its webhooks spell them; a dismissed review is no activity. */
const REVIEW_KINDS: Record<string, ReviewActivityKind> = { approved: 'approved', changes_requested: 'changes_requested', commented: 'comment' };

function pullRequestInput(pr: z.infer<typeof pullRequestFields>): PullRequestInput {
  const mergedAt = optionalProviderTime(pr.merged_at, 'pull_request.merged_at');
  const merged = pr.merged === true || mergedAt !== null;
  return {
    number: pr.number,
    title: pr.title,
    state: pr.state === 'open' ? 'open' : merged ? 'merged' : 'closed',
    authorUsername: pr.user?.login ?? null,
    authorProviderId: idOf(pr.user),
    body: pr.body,
    size: pr.additions != null && pr.deletions != null ? { additions: pr.additions, deletions: pr.deletions } : null,
    // GitHub's merge_commit_sha of an open pull request is a test merge, not a commit of the repository's history.
    commits: { head: pr.head?.sha ?? null, merge: merged ? pr.merge_commit_sha : null },
    createdAt: providerTime(pr.created_at, 'pull_request.created_at'),
    mergedAt: pr.state === 'open' ? null : mergedAt,
    closedAt: pr.state === 'open' ? null : (optionalProviderTime(pr.closed_at, 'pull_request.closed_at') ?? mergedAt),
    updatedAt: providerTime(pr.updated_at, 'pull_request.updated_at'),
    draft: pr.draft ?? null,
  };
}

const deploymentStatus = z.looseObject({
  repository,
  deployment_status: z.looseObject({ state: text, created_at: time }),
  deployment: z.looseObject({ id: providerId, sha: text, environment: text, created_at: time }),
});

const issueLabels = z.looseObject({
  action: text,
  issue: z.looseObject({ labels: z.array(z.looseObject({ name: text })).nullish() }),
});

const issueFields = z.looseObject({
  id: providerId,
  title: text,
  body: nullableText,
  state: z.enum(['open', 'closed']),
  labels: z.array(z.looseObject({ name: text })).nullish(),
  created_at: time,
  updated_at: time,
  closed_at: nullableTime,
});
const issues = z.looseObject({ action: text, repository, issue: issueFields });
const issueTask = issues.extend({
  issue: issueFields.extend({ state_reason: nullableText, assignees: z.array(githubUser).nullish() }),
  assignee: login,
  sender: login,
});

/** Actions whose issue is partial (no state): they change nothing a task keeps. */
const PARTIAL_ISSUE_ACTIONS = ['pinned', 'unpinned'];

const account = (user: z.infer<typeof login>): TrackerAccount | null => (user ? { externalId: idOf(user), email: null, username: user.login } : null);

/** An issue that is no incident is a task of its repository (src/integrations/github/issues.ts says what each action does). */
function issueTaskEvent(action: string, payload: unknown): TaskEvent {
  const p = readPayload(bodyOf('issues', issueTask, removesTask(action) ? 'deletes' : 'keeps'), payload, 'issues');
  const { issue } = p;
  return githubIssueEvent({
    action: p.action,
    issue: {
      board: p.repository.full_name,
      externalId: issue.id,
      title: issue.title,
      open: issue.state === 'open',
      notPlanned: issue.state_reason === 'not_planned',
      labels: (issue.labels ?? []).map((l) => l.name),
      assignees: (issue.assignees ?? []).flatMap((a) => account(a) ?? []),
      createdAt: providerTime(issue.created_at, 'issue.created_at'),
      updatedAt: providerTime(issue.updated_at, 'issue.updated_at'),
      closedAt: optionalProviderTime(issue.closed_at, 'issue.closed_at'),
    },
    sender: account(p.sender),
    assignee: account(p.assignee),
  });
}

/** What a GitHub delivery says, as activity or (an issue that is no incident) tasks; undefined for a ping. */
export function githubActivity(event: string, payload: unknown): Activity | undefined | { ignored: string } | { tasks: TaskEvent[] } {
  switch (event) {
    case 'ping':
      return undefined;
    case 'push': {
      const p = readPayload(bodyOf('push', push), payload, 'push');
      return {
        kind: 'push',
        repository: repositoryRef(p.repository),
        commits: commitInputs(p.commits),
      };
    }
    case 'repository': {
      const deletes = readPayload(z.looseObject({ action: text }), payload, 'repository').action === 'deleted';
      const p = readPayload(bodyOf('repository', repositoryEvent, deletes ? 'deletes' : 'keeps'), payload, 'repository');
      return { kind: 'repository', action: deletes ? 'deleted' : p.action === 'created' ? 'created' : 'updated', repository: repositoryRef(p.repository) };
    }
    case 'pull_request': {
      const p = readPayload(bodyOf('pull_request', pullRequest), payload, 'pull_request');
      // GitHub's `ready_for_review` is the draft made ready: the pull request's update time is when.
      const input = { ...pullRequestInput(p.pull_request), ...(p.action === 'ready_for_review' ? { readyForReviewAt: providerTime(p.pull_request.updated_at, 'pull_request.updated_at') } : {}) };
      // New commits pushed to the pull request's branch: `after` is the head they end at.
      if (p.action === 'synchronize' && p.after) {
        const review = { externalId: `commit:${p.after}`, kind: 'commit' as const, actorUsername: p.sender?.login ?? null, actorProviderId: idOf(p.sender), createdAt: input.updatedAt };
        return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: input, pullRequestCurrent: true, review };
      }
      return { kind: 'pull_request', repository: repositoryRef(p.repository), pullRequest: input };
    }
    case 'pull_request_review': {
      const p = readPayload(bodyOf('pull_request_review', review), payload, 'pull_request_review');
      const kind = REVIEW_KINDS[p.review.state.toLowerCase()];
      if (p.action !== 'submitted' || !kind) return { ignored: `a review ${p.action === 'submitted' ? `in state '${p.review.state}'` : p.action} is no review activity` };
      const input = pullRequestInput(p.pull_request);
      const createdAt = optionalProviderTime(p.review.submitted_at, 'review.submitted_at') ?? input.updatedAt;
      const activity = { externalId: `review:${p.review.id}`, kind, actorUsername: p.review.user?.login ?? null, actorProviderId: idOf(p.review.user), createdAt };
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: input, pullRequestCurrent: true, review: activity };
    }
    case 'pull_request_review_comment': {
      const p = readPayload(bodyOf('pull_request_review_comment', reviewComment), payload, 'pull_request_review_comment');
      if (p.action !== 'created') return { ignored: `an ${p.action} review comment adds no activity` };
      // Review comments and issue comments are numbered apart.
      const activity = { externalId: `review_comment:${p.comment.id}`, kind: 'comment' as const, actorUsername: p.comment.user?.login ?? null, actorProviderId: idOf(p.comment.user), createdAt: providerTime(p.comment.created_at, 'comment.created_at') };
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: pullRequestInput(p.pull_request), pullRequestCurrent: true, review: activity };
    }
    case 'issue_comment': {
      const p = readPayload(bodyOf('issue_comment', issueComment), payload, 'issue_comment');
      if (!p.issue.pull_request) return { ignored: 'a comment on an issue, not on a pull request' };
      if (p.action !== 'created') return { ignored: `an ${p.action} comment adds no activity` };
      const issue = p.issue;
      const mergedAt = optionalProviderTime(issue.pull_request?.merged_at, 'issue.pull_request.merged_at');
      const pr: PullRequestInput = {
        number: issue.number,
        title: issue.title,
        state: issue.state === 'open' ? 'open' : mergedAt ? 'merged' : 'closed',
        authorUsername: issue.user?.login ?? null,
        authorProviderId: idOf(issue.user),
        body: issue.body,
        size: null,
        commits: { head: null, merge: null },
        createdAt: providerTime(issue.created_at, 'issue.created_at'),
        mergedAt: issue.state === 'open' ? null : mergedAt,
        closedAt: issue.state === 'open' ? null : (optionalProviderTime(issue.closed_at, 'issue.closed_at') ?? mergedAt),
        updatedAt: providerTime(issue.updated_at, 'issue.updated_at'),
      };
      const activity = { externalId: `comment:${p.comment.id}`, kind: 'comment' as const, actorUsername: p.comment.user?.login ?? null, actorProviderId: idOf(p.comment.user), createdAt: providerTime(p.comment.created_at, 'comment.created_at') };
      return { kind: 'review', repository: repositoryRef(p.repository), pullRequest: pr, pullRequestCurrent: false, review: activity };
    }
    case 'deployment_status': {
      const p = readPayload(bodyOf('deployment_status', deploymentStatus), payload, 'deployment_status');
      const state = p.deployment_status.state;
      const status = state === 'success' ? 'success' : state === 'failure' || state === 'error' ? 'failure' : undefined;
      if (!status) return { ignored: `deployment status '${state}' is not a finished deployment` };
      if (!/^[0-9a-f]{7,40}$/i.test(p.deployment.sha)) throw invalid('deployment.sha must be a commit id (hex digits)');
      return {
        kind: 'deployment',
        repository: repositoryRef(p.repository),
        deployment: {
          externalId: p.deployment.id,
          environment: p.deployment.environment,
          status,
          sha: p.deployment.sha.toLowerCase(),
          createdAt: providerTime(p.deployment.created_at, 'deployment.created_at'),
          finishedAt: providerTime(p.deployment_status.created_at, 'deployment_status.created_at'),
        },
      };
    }
    case 'issues': {
      // Most issue events are of no incident, and some (pinned, unpinned) carry a partial issue: look at labels first.
      const labelled = readPayload(bodyOf('issues', issueLabels), payload, 'issues');
      if (!(labelled.issue.labels ?? []).some((l) => isIncidentLabel(l.name))) {
        if (PARTIAL_ISSUE_ACTIONS.includes(labelled.action)) return { ignored: `an issue ${labelled.action} changes no task` };
        return { tasks: [issueTaskEvent(labelled.action, payload)] };
      }
      if (labelled.action === 'deleted') return { ignored: 'a deleted issue leaves its incident as it was' };
      const { repository: repo, issue } = readPayload(bodyOf('issues', issues), payload, 'issues');
      return {
        kind: 'incident',
        repository: repositoryRef(repo),
        incident: {
          externalId: issue.id,
          title: issue.title,
          causeSha: rootCause(issue.body),
          fixSha: fixedBy(issue.body),
          createdAt: providerTime(issue.created_at, 'issue.created_at'),
          resolvedAt: issue.state === 'closed' ? optionalProviderTime(issue.closed_at, 'issue.closed_at') ?? providerTime(issue.updated_at, 'issue.updated_at') : null,
          updatedAt: providerTime(issue.updated_at, 'issue.updated_at'),
        },
      };
    }
    default:
      return { ignored: `event '${event}' is not stored by this service` };
  }
}
