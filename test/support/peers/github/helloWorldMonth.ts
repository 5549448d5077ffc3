import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copy, githubExamples } from '../ingest';
import type { RepositoryHistory } from './fakeGitHubApi';

/**
 * A month of work on Codertocat/Hello-World (March 2026), told once and rendered two ways: as the signed deliveries
 * GitHub's webhooks send while it happens, and as GitHub's REST API answers it afterwards (what the history importer
 * reads, served by test/support/peers/github/fakeGitHubApi.ts). Both renderings start from GitHub's own examples
 * (@octokit/webhooks-examples, of this very repository): a webhook's `pull_request`, `review`, `comment`,
 * `deployment`, `deployment_status` and `issue` are the REST objects, so the API serves the same objects in their
 * last state. Where the two differ, they differ as GitHub's do: a pull request of the list has no `merged` and no
 * line counts (the review events' pull request is that shape) but GraphQL, which the importer reads pull requests
 * from, counts its lines; a review's state is upper case in the REST API.
 *
 * The commits are a real repository made with git here (the history importer reads no commits: a clone brings them,
 * `npm run import -- git`), and the same commits are what the webhooks' pushes of the default branch carry.
 *
 * Of what the history importer says it does not read (src/integrations/github/README.md#history), the month holds
 * none: no comment on a pull request's conversation, no review dismissed later. It does hold a commit pushed to a
 * pull request's branch in review, as most months do: the REST API has no record of that push.
 */
export type Who = 'codertocat' | 'octocat' | 'hubot';
/** GitHub's users: Codertocat as the examples name it, octocat and hubot with their public ids. */
export const PEOPLE: Record<Who, { login: string; id: number; email: string; name: string }> = {
  codertocat: { login: 'Codertocat', id: 21031067, email: 'codertocat@hello-world.test', name: 'Codertocat' },
  octocat: { login: 'octocat', id: 583231, email: 'octocat@hello-world.test', name: 'The Octocat' },
  hubot: { login: 'hubot', id: 480938, email: 'hubot@hello-world.test', name: 'Hubot' },
};

/** The default branch's commits, oldest first: each merged pull request's head (merged by rebase) and the first. */
const COMMITS: { key: string; by: Who; at: string; message: string }[] = [
  { key: 'c0', by: 'codertocat', at: '2026-02-27T10:00:00Z', message: 'Initial commit' },
  { key: 'c1', by: 'codertocat', at: '2026-03-02T08:00:00Z', message: 'Greet by name' },
  { key: 'c2', by: 'octocat', at: '2026-03-03T09:00:00Z', message: 'Fix the greeting' },
  { key: 'c3', by: 'octocat', at: '2026-03-03T13:00:00Z', message: 'Say goodbye too' },
  { key: 'c4', by: 'hubot', at: '2026-03-05T09:30:00Z', message: 'Shorten the greeting' },
  { key: 'c5', by: 'codertocat', at: '2026-03-06T12:30:00Z', message: 'Restore the greeting' },
  { key: 'c6', by: 'octocat', at: '2026-03-09T09:00:00Z', message: 'Tidy the README' },
];

type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
interface PullRequestStory {
  number: number;
  by: Who;
  opened: string;
  /** A commit's key; a key of no default-branch commit names a head that never reached it. */
  head: string;
  size: [additions: number, deletions: number];
  /** Reviews in order; `comment`: a line comment on the diff, submitted in that review. */
  reviews: { by: Who; at: string; state: ReviewState; comment?: true }[];
  /** Commits pushed to its branch while open. */
  pushed?: { head: string; at: string }[];
  merged?: string;
  closed?: string;
}

export const PULL_REQUESTS: PullRequestStory[] = [
  {
    number: 1, by: 'codertocat', opened: '2026-03-02T08:30:00Z', head: 'c1', size: [12, 3], merged: '2026-03-02T13:00:00Z',
    reviews: [{ by: 'octocat', at: '2026-03-02T10:00:00Z', state: 'COMMENTED', comment: true }, { by: 'octocat', at: '2026-03-02T12:00:00Z', state: 'APPROVED' }],
  },
  {
    number: 2, by: 'octocat', opened: '2026-03-03T09:30:00Z', head: 'c2', size: [40, 8], merged: '2026-03-03T16:00:00Z',
    reviews: [{ by: 'hubot', at: '2026-03-03T11:00:00Z', state: 'CHANGES_REQUESTED' }, { by: 'hubot', at: '2026-03-03T15:00:00Z', state: 'APPROVED' }],
    pushed: [{ head: 'c3', at: '2026-03-03T13:05:00Z' }],
  },
  {
    number: 3, by: 'codertocat', opened: '2026-03-04T10:00:00Z', head: 'x3', size: [5, 5], closed: '2026-03-05T08:00:00Z',
    reviews: [{ by: 'hubot', at: '2026-03-04T11:30:00Z', state: 'COMMENTED', comment: true }],
  },
  {
    number: 4, by: 'hubot', opened: '2026-03-05T10:00:00Z', head: 'c4', size: [2, 0], merged: '2026-03-06T09:00:00Z',
    reviews: [{ by: 'codertocat', at: '2026-03-05T14:00:00Z', state: 'APPROVED' }],
  },
  {
    number: 5, by: 'codertocat', opened: '2026-03-06T11:00:00Z', head: 'x5', size: [100, 20],
    reviews: [{ by: 'octocat', at: '2026-03-06T13:00:00Z', state: 'COMMENTED', comment: true }],
  },
  {
    number: 6, by: 'codertocat', opened: '2026-03-06T12:40:00Z', head: 'c5', size: [1, 1], merged: '2026-03-06T14:00:00Z',
    reviews: [{ by: 'octocat', at: '2026-03-06T13:30:00Z', state: 'APPROVED' }],
  },
  {
    // Only its author's own review: merged unreviewed.
    number: 7, by: 'octocat', opened: '2026-03-09T09:10:00Z', head: 'c6', size: [7, 2], merged: '2026-03-09T10:00:00Z',
    reviews: [{ by: 'octocat', at: '2026-03-09T09:20:00Z', state: 'COMMENTED' }],
  },
];

/** Production unless named; each goes in progress at its creation and finishes as its state says. */
export const DEPLOYMENTS: { id: number; head: string; created: string; finished: string; state: 'success' | 'failure'; environment?: string }[] = [
  { id: 1001, head: 'c1', created: '2026-03-02T13:10:00Z', finished: '2026-03-02T13:30:00Z', state: 'success' },
  { id: 1002, head: 'c3', created: '2026-03-03T16:10:00Z', finished: '2026-03-03T16:40:00Z', state: 'failure' },
  { id: 1003, head: 'c3', created: '2026-03-04T09:00:00Z', finished: '2026-03-04T09:20:00Z', state: 'success' },
  { id: 1004, head: 'c4', created: '2026-03-06T09:10:00Z', finished: '2026-03-06T09:30:00Z', state: 'success', environment: 'staging' },
  { id: 1005, head: 'c4', created: '2026-03-06T09:40:00Z', finished: '2026-03-06T10:00:00Z', state: 'success' },
  // While the incident is open: rework.
  { id: 1006, head: 'c5', created: '2026-03-06T14:10:00Z', finished: '2026-03-06T14:30:00Z', state: 'success' },
  { id: 1007, head: 'c6', created: '2026-03-09T10:10:00Z', finished: '2026-03-09T10:30:00Z', state: 'success' },
];

/** An issue labelled `incident`, naming deployment 1005's commit as its cause, closed four hours later. */
export const INCIDENT = { id: 444500100, number: 10, title: 'The greeting is blank', cause: 'c4', by: 'hubot' as Who, opened: '2026-03-06T11:00:00Z', closed: '2026-03-06T15:00:00Z' };

/** A clone of the repository: its default branch holds COMMITS, authored and committed at their times. */
export class Clone {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hello-world-'));
  private readonly shas = new Map<string, string>();

  constructor() {
    execFileSync('git', ['init', '-q', '-b', 'master', this.dir]);
    this.git(['remote', 'add', 'origin', 'git@github.com:Codertocat/Hello-World.git']);
    for (const c of COMMITS) {
      fs.writeFileSync(path.join(this.dir, 'README.md'), `Hello World\n\n${c.message}\n`);
      this.git(['add', '-A']);
      const person = PEOPLE[c.by];
      const who = { GIT_AUTHOR_NAME: person.name, GIT_AUTHOR_EMAIL: person.email, GIT_COMMITTER_NAME: person.name, GIT_COMMITTER_EMAIL: person.email };
      this.git(['commit', '-q', '-m', c.message], { ...who, GIT_AUTHOR_DATE: c.at, GIT_COMMITTER_DATE: c.at });
      this.shas.set(c.key, this.git(['rev-parse', 'HEAD']).trim());
    }
  }

  /** A commit's sha; a head that never reached the default branch has one of its own, the same on every run. */
  sha(key: string): string {
    return this.shas.get(key) ?? createHash('sha1').update(`Hello-World ${key}`).digest('hex');
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private git(args: string[], env: Record<string, string> = {}): string {
    return execFileSync('git', ['-C', this.dir, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  }
}

const example = (event: string, action?: string) => copy(githubExamples(event).find((e) => action === undefined || e.action === action)!);
const user = (who: Who) => ({ ...example('pull_request', 'opened').sender, login: PEOPLE[who].login, id: PEOPLE[who].id });
const repository = () => example('pull_request', 'opened').repository;
const reviewId = (pr: number, n: number) => 80_000 + pr * 10 + n;
const commentId = (pr: number, n: number) => 90_000 + pr * 10 + n;

/** Every time something happened to a pull request: what its `updated_at` says at that time. */
const timesOf = (p: PullRequestStory) => [p.opened, ...p.reviews.map((r) => r.at), ...(p.pushed ?? []).map((c) => c.at), p.merged ?? p.closed ?? p.opened];
const headAt = (p: PullRequestStory, at: string) => (p.pushed ?? []).filter((c) => c.at <= at).reduce((head, c) => c.head, p.head);

/**
 * A pull request as it stood at `at`: the list's shape (the review events' `pull_request`), or, for the
 * `pull_request` events, the single pull request's shape, which adds `merged` and the line counts.
 */
function pullRequestAt(p: PullRequestStory, at: string, clone: Clone, shape: 'list' | 'single') {
  const end = p.merged ?? p.closed;
  const ended = end !== undefined && end <= at;
  const head = clone.sha(headAt(p, at));
  const template = shape === 'list' ? example('pull_request_review', 'submitted').pull_request : example('pull_request', 'opened').pull_request;
  const stood = {
    ...template,
    number: p.number,
    title: `Pull request ${p.number}`,
    user: user(p.by),
    state: ended ? 'closed' : 'open',
    created_at: p.opened,
    updated_at: at,
    closed_at: ended ? end : null,
    merged_at: ended && p.merged ? p.merged : null,
    head: { ...template.head, sha: head },
    // Merged by rebase: the head is the default branch's commit.
    merge_commit_sha: ended && p.merged ? head : template.merge_commit_sha,
  };
  if (shape === 'list') return stood;
  return { ...stood, merged: ended && p.merged !== undefined, additions: p.size[0], deletions: p.size[1] };
}

function reviewOf(p: PullRequestStory, n: number, clone: Clone, stateCase: 'rest' | 'webhook') {
  const r = p.reviews[n];
  const template = example('pull_request_review', 'submitted').review;
  return { ...template, id: reviewId(p.number, n), user: user(r.by), commit_id: clone.sha(headAt(p, r.at)), submitted_at: r.at, state: stateCase === 'rest' ? r.state : r.state.toLowerCase() };
}

function commentOf(p: PullRequestStory, n: number, clone: Clone) {
  const r = p.reviews[n];
  const template = example('pull_request_review_comment', 'created').comment;
  const sha = clone.sha(headAt(p, r.at));
  // The repository's list of review comments names each one's pull request by this address only.
  const pull_request_url = template.pull_request_url.replace(/\/pulls\/\d+$/, `/pulls/${p.number}`);
  return { ...template, id: commentId(p.number, n), pull_request_review_id: reviewId(p.number, n), pull_request_url, user: user(r.by), commit_id: sha, original_commit_id: sha, created_at: r.at, updated_at: r.at };
}

/** A deployment as it stood at `at` (its last status's time). */
function deploymentAt(d: (typeof DEPLOYMENTS)[number], at: string, clone: Clone) {
  const { deployment } = example('deployment_status');
  const environment = d.environment ?? 'production';
  return { ...deployment, id: d.id, sha: clone.sha(d.head), environment, original_environment: environment, created_at: d.created, updated_at: at };
}

/** A deployment's statuses, oldest first: in progress at its creation, then its end. */
function statusesOf(d: (typeof DEPLOYMENTS)[number]) {
  const { deployment_status: template } = example('deployment_status');
  const environment = d.environment ?? 'production';
  return [
    { ...template, id: d.id * 10 + 1, state: 'in_progress', environment, created_at: d.created, updated_at: d.created },
    { ...template, id: d.id * 10 + 2, state: d.state, environment, created_at: d.finished, updated_at: d.finished },
  ];
}

function incidentAt(at: string, clone: Clone) {
  const { issue: template } = example('issues', 'opened');
  const closed = INCIDENT.closed <= at;
  return {
    ...template,
    id: INCIDENT.id,
    number: INCIDENT.number,
    title: INCIDENT.title,
    user: user(INCIDENT.by),
    labels: [{ ...template.labels[0], name: 'incident', description: null, default: false }],
    body: `Everyone sees an empty greeting since the last deployment.\n\nroot cause: ${clone.sha(INCIDENT.cause).slice(0, 7)}`,
    state: closed ? 'closed' : 'open',
    state_reason: closed ? 'completed' : null,
    created_at: INCIDENT.opened,
    updated_at: at,
    closed_at: closed ? INCIDENT.closed : null,
  };
}

/** The month as GitHub's webhooks deliver it, in the order things happened (a push of the default branch per commit). */
export function deliveries(clone: Clone): { at: string; event: string; payload: unknown }[] {
  const out: { at: string; event: string; payload: unknown }[] = [];
  const push = copy(githubExamples('push').find((e) => e.commits.length === 1)!);
  for (const c of COMMITS) {
    const commit = { ...push.commits[0], id: clone.sha(c.key), tree_id: clone.sha(c.key), message: c.message, timestamp: c.at, author: { name: PEOPLE[c.by].name, email: PEOPLE[c.by].email, username: PEOPLE[c.by].login } };
    out.push({ at: c.at, event: 'push', payload: { ...push, ref: 'refs/heads/master', after: clone.sha(c.key), commits: [commit], head_commit: commit, pusher: { name: PEOPLE[c.by].login, email: PEOPLE[c.by].email } } });
  }
  for (const p of PULL_REQUESTS) {
    const event = (action: string, at: string, by: Who, extra: Record<string, unknown> = {}) => ({
      at,
      event: 'pull_request',
      payload: { ...example('pull_request', 'opened'), action, number: p.number, pull_request: pullRequestAt(p, at, clone, 'single'), sender: user(by), ...extra },
    });
    out.push(event('opened', p.opened, p.by));
    p.reviews.forEach((r, n) => {
      const around = { repository: repository(), pull_request: pullRequestAt(p, r.at, clone, 'list'), sender: user(r.by) };
      // A line comment is created with the review that submits it.
      if (r.comment) out.push({ at: r.at, event: 'pull_request_review_comment', payload: { ...example('pull_request_review_comment', 'created'), ...around, comment: commentOf(p, n, clone) } });
      out.push({ at: r.at, event: 'pull_request_review', payload: { ...example('pull_request_review', 'submitted'), ...around, review: reviewOf(p, n, clone, 'webhook') } });
    });
    let before = p.head;
    for (const c of p.pushed ?? []) {
      out.push(event('synchronize', c.at, p.by, { before: clone.sha(before), after: clone.sha(c.head) }));
      before = c.head;
    }
    const end = p.merged ?? p.closed;
    if (end) out.push(event('closed', end, p.by));
  }
  for (const d of DEPLOYMENTS) {
    for (const status of statusesOf(d)) out.push({ at: status.created_at, event: 'deployment_status', payload: { ...example('deployment_status'), deployment: deploymentAt(d, status.created_at, clone), deployment_status: status } });
  }
  out.push({ at: INCIDENT.opened, event: 'issues', payload: { ...example('issues', 'opened'), issue: incidentAt(INCIDENT.opened, clone) } });
  out.push({ at: INCIDENT.closed, event: 'issues', payload: { ...example('issues', 'opened'), action: 'closed', issue: incidentAt(INCIDENT.closed, clone) } });
  return out.sort((a, b) => a.at.localeCompare(b.at));
}

/** The month as GitHub's REST API answers it afterwards: every object in its last state. */
export function restHistory(clone: Clone): RepositoryHistory {
  const last = (p: PullRequestStory) => timesOf(p).reduce((latest, at) => (at > latest ? at : latest));
  return {
    repository: repository(),
    // The fake answers GraphQL from these: its pull requests count their lines.
    pulls: PULL_REQUESTS.map((p) => ({ ...pullRequestAt(p, last(p), clone, 'list'), additions: p.size[0], deletions: p.size[1] })),
    reviews: new Map(PULL_REQUESTS.map((p) => [p.number, p.reviews.map((_, n) => reviewOf(p, n, clone, 'rest'))])),
    comments: new Map(PULL_REQUESTS.map((p) => [p.number, p.reviews.flatMap((r, n) => (r.comment ? [commentOf(p, n, clone)] : []))])),
    deployments: DEPLOYMENTS.map((d) => deploymentAt(d, d.finished, clone)),
    // GitHub lists a deployment's statuses newest first.
    statuses: new Map(DEPLOYMENTS.map((d) => [d.id, statusesOf(d).reverse()])),
    issues: [incidentAt(INCIDENT.closed, clone)],
  };
}
