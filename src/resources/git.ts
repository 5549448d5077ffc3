import type { Attributes } from 'sequelize';
import { z } from 'zod';
import type { Commit, Deployment, Incident, PullRequest, PullRequestActivity, Repository } from '../../db/models';
import { nullableTimestamp, timestamp } from '../wire/envelopes';
import { defineResource, iso, isoOrNull } from './resource';

export const RepositoryResource = defineResource(
  'Repository',
  'A repository of a git app.',
  {
    id: z.string(),
    git_app_id: z.string(),
    name: z.string(),
    full_name: z.string(),
    default_branch: z.string(),
    is_private: z.boolean(),
    created_at: timestamp,
  },
  { sort: ['created_at', 'name'] },
);

export const CommitResource = defineResource('Commit', 'A commit of a repository.', {
  id: z.string(),
  repository_id: z.string(),
  sha: z.string(),
  message: z.string(),
  author_id: z.string().nullable().meta({ description: 'The platform user, when the author is known' }),
  author_name: z.string(),
  additions: z.number().int(),
  deletions: z.number().int(),
  ai_assisted: z.boolean().meta({ description: "Its message carries an AI coding tool's mark (a `Co-Authored-By: Claude …` trailer, Claude Code's footer, …)" }),
  created_at: timestamp,
});

export const PullRequestResource = defineResource(
  'PullRequest',
  'A pull (merge) request of a repository.',
  {
    id: z.string(),
    repository_id: z.string(),
    number: z.number().int(),
    title: z.string(),
    state: z.enum(['open', 'closed', 'merged']),
    author_id: z.string().nullable(),
    additions: z.number().int().nullable().meta({ description: 'Lines added, as the provider counts them; null until a delivery says' }),
    deletions: z.number().int().nullable().meta({ description: 'Lines deleted, as the provider counts them; null until a delivery says' }),
    ai_assisted: z.boolean().meta({ description: "Its description carries an AI coding tool's mark" }),
    created_at: timestamp,
    merged_at: nullableTimestamp,
    closed_at: nullableTimestamp,
  },
  { sort: ['created_at', 'title'] },
);

export const PullRequestActivityResource = defineResource(
  'PullRequestActivity',
  'A review, approval, comment or pushed commit on a pull request, as its provider reported it.',
  {
    id: z.string(),
    pull_request_id: z.string(),
    kind: z.enum(['comment', 'approved', 'changes_requested', 'commit']).meta({
      description: 'comment: a comment or a review with comments only; approved and changes_requested: a review that says so; commit: new commits pushed',
    }),
    actor_id: z.string().nullable().meta({ description: 'The platform user who acted, when their provider user name is bound to the git app' }),
    created_at: timestamp,
  },
);

const fromApp = {
  app_id: z.string().nullable().meta({ description: 'The app it came from (PagerDuty, Opsgenie, the deployments API); null when a git provider reported it' }),
  service: z
    .string()
    .nullable()
    .meta({ description: 'What the app named as its board: a PagerDuty service id, an Opsgenie team or tag, the repository a CI job gave; `npm run apps -- map` ties it to a repository. Null from a git provider' }),
};

export const DeploymentResource = defineResource('Deployment', 'A deployment of a repository to an environment, as its provider reported it.', {
  id: z.string(),
  repository_id: z.string().nullable().meta({ description: "Null while its app's board is not mapped to a repository: the organization's figures count it" }),
  ...fromApp,
  environment: z.string(),
  status: z.enum(['success', 'failure']),
  sha: z.string().meta({ description: 'The commit deployed' }),
  created_at: timestamp,
  finished_at: timestamp,
});

export const IncidentResource = defineResource(
  'Incident',
  "A production incident: an issue of the repository labelled 'incident', a PagerDuty incident, an Opsgenie alert, or one a script reported.",
  {
    id: z.string(),
    repository_id: z.string().nullable().meta({ description: "Null while its app's service is not mapped to a repository: the organization's figures count it" }),
    ...fromApp,
    title: z.string(),
    cause_sha: z.string().nullable().meta({ description: "The commit that caused it, from 'root cause: <sha>' in its body, or the API's `cause_sha`" }),
    fix_sha: z.string().nullable().meta({ description: "The commit that fixed it, from 'fixed by: <sha>' in its body, or the API's `fix_sha`: its deployment is rework" }),
    created_at: timestamp,
    resolved_at: nullableTimestamp,
  },
);

export const toRepository = (r: Repository) => ({
  id: r.id,
  git_app_id: r.git_app_id,
  name: r.name,
  full_name: r.full_name,
  default_branch: r.default_branch,
  is_private: Boolean(r.is_private),
  created_at: iso(r.created_at),
});

/** A commit as read, or as the importer just wrote it. */
export const toCommit = (c: Pick<Commit, 'id' | 'repository_id' | 'sha' | 'message' | 'author_id' | 'author_name' | 'additions' | 'deletions' | 'ai_assisted' | 'created_at'>) => ({
  id: c.id,
  repository_id: c.repository_id,
  sha: c.sha,
  message: c.message,
  author_id: c.author_id,
  author_name: c.author_name,
  additions: c.additions,
  deletions: c.deletions,
  ai_assisted: Boolean(c.ai_assisted),
  created_at: iso(c.created_at),
});

export const toPullRequest = (p: PullRequest) => ({
  id: p.id,
  repository_id: p.repository_id,
  number: p.number,
  title: p.title,
  state: p.state,
  author_id: p.author_id,
  additions: p.additions ?? null,
  deletions: p.deletions ?? null,
  ai_assisted: Boolean(p.ai_assisted),
  created_at: iso(p.created_at),
  merged_at: isoOrNull(p.merged_at),
  closed_at: isoOrNull(p.closed_at),
});

export const toPullRequestActivity = (a: PullRequestActivity) => ({
  id: a.id,
  pull_request_id: a.pull_request_id,
  kind: a.kind,
  actor_id: a.actor_id,
  created_at: iso(a.created_at),
});

export const toDeployment = (d: Deployment) => ({
  id: d.id,
  repository_id: d.repository_id,
  app_id: d.app_id ?? null,
  service: d.board_key ?? null,
  environment: d.environment,
  status: d.status,
  sha: d.sha,
  created_at: iso(d.created_at),
  finished_at: iso(d.finished_at),
});

/** An incident as stored, read through its model or as a row (the writers' batched reads). */
export const toIncident = (i: Attributes<Incident>) => ({
  id: i.id,
  repository_id: i.repository_id,
  app_id: i.app_id ?? null,
  service: i.board_key ?? null,
  title: i.title,
  cause_sha: i.cause_sha,
  fix_sha: i.fix_sha ?? null,
  created_at: iso(i.created_at),
  resolved_at: isoOrNull(i.resolved_at),
});
