/**
 * GitHub's history (README.md#history): the repositories a token or an App's installation reads, and from each its
 * pull requests with their reviews (by GraphQL, historyGraphql.ts), its review comments, its deployments with their
 * statuses, and its issues, a page of GitHub's list at a time, newest change first, until the window's start. Each
 * item comes out as its webhook delivery would (historyItems.ts).
 *
 * The cursor of a REST list is the address of its next page, as GitHub's `Link` header gives it (the pull requests',
 * GraphQL's endCursor, with the API and repository it belongs to): a list sorted newest change
 * first only pushes an item further back when something else changes, so resuming at a page's address skips nothing
 * that was behind it (what changed meanwhile is the next run's). A cursor that is no page of this list at this API
 * (another base URL, another repository's) is never followed: the list starts again from its first page, which
 * writes nothing twice.
 */
import { z } from 'zod';
import type { Activity } from '../../services/git/activity';
import type { HistoryKind, HistoryPage, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from '../../services/history/historySource';
import type { TaskInput } from '../../services/work/taskInput';
import { ProviderFailure } from '../../outbound/providerHttp';
import type { GitHubClient } from './historyClient';
import { readFailure } from './historyFailures';
import { lastReadyForReview, pullRequestsNumbered, pullRequestsPage, restPullRequest, restReview } from './historyGraphql';
import { deploymentActivity, issueItem, pullRequestActivity, RestObject, reviewActivity, reviewCommentActivity } from './historyItems';

const PER_PAGE = 100;

/** Octokit and its plugins load when a history is first read, not in every process that lists the providers (about 300 ms and 12 MB). */
const clientFor = async (reading: HistoryReading): Promise<GitHubClient> => (await import('./historyClient')).githubClient(reading);

/** What GitHub's lists say of each item that decides how the list is walked; the translation reads the rest. */
const repositoryKeys = z.looseObject({ id: z.number().int(), full_name: z.string() });
const deploymentKeys = z.looseObject({ id: z.number().int(), created_at: z.iso.datetime() });
const reviewCommentKeys = z.looseObject({ updated_at: z.iso.datetime(), pull_request_url: z.string().regex(/\/pulls\/\d+$/) });
const issueKeys = z.looseObject({ updated_at: z.iso.datetime(), pull_request: z.unknown().optional() });

/** The end of each kind's list's path, however GitHub names the repository in its pages' addresses. */
const LIST_PATH: Partial<Record<HistoryKind, string>> = { review_comments: '/pulls/comments', deployments: '/deployments', issues: '/issues' };

export const githubHistory: HistorySource = {
  defaultBaseUrl: 'https://api.github.com',
  scopeNoun: 'repositories',
  kinds: ['pull_requests', 'review_comments', 'deployments', 'issues'],

  async scopes(reading, only) {
    const found: HistoryScope[] = [];
    // An App's installation lists the repositories it was given; a token, those its owner reads (a fine-grained token: those selected).
    const listing = reading.credential.kind === 'github_app' ? 'GET /installation/repositories' : 'GET /user/repos';
    try {
      const client = await clientFor(reading);
      for await (const page of client.paginate.iterator(listing, { per_page: PER_PAGE })) {
        for (const repository of listed(page.data, 'the repositories the credential reads')) {
          const { id, full_name } = keysOf(repositoryKeys, repository, 'the repositories the credential reads', 'repository');
          found.push({ key: String(id), name: full_name });
        }
      }
    } catch (err) {
      throw readFailure(err, 'the repositories the credential reads');
    }
    found.sort((a, b) => a.name.localeCompare(b.name));
    if (!only) return found;
    // GitHub's names are not case sensitive.
    const named = (scope: HistoryScope, name: string) => scope.key === name || scope.name.toLowerCase() === name.toLowerCase();
    const unseen = only.filter((name) => !found.some((scope) => named(scope, name)));
    if (unseen.length > 0) throw new ProviderFailure(`the credential does not read ${unseen.join(', ')} (it reads ${found.length} repositories${found.length ? `: ${found.slice(0, 5).map((s) => s.name).join(', ')}${found.length > 5 ? ', …' : ''}` : ''})`);
    return found.filter((scope) => only.some((name) => named(scope, name)));
  },

  async *pages(reading, scope, kind, window, cursor) {
    const [owner, repo] = scope.name.split('/');
    if (!owner || !repo) throw new ProviderFailure(`${scope.name} is no GitHub repository's full name (owner/name)`);
    try {
      const client = await clientFor(reading);
      const repository: RestObject = (await client.request('GET /repos/{owner}/{repo}', { owner, repo })).data;
      const walk = { client, scope, repository, owner, repo, window, from: kind === 'pull_requests' ? graphqlCursorOf(cursor, reading, scope) : resumeAt(cursor, reading, scope, kind) };
      if (kind === 'pull_requests') yield* pullRequestPages(walk, reading);
      else if (kind === 'review_comments') yield* reviewCommentPages(walk);
      else if (kind === 'deployments') yield* deploymentPages(walk);
      else if (kind === 'issues') yield* issuePages(walk);
      else throw new ProviderFailure(`GitHub has no ${kind} to import`);
    } catch (err) {
      throw readFailure(err, scope.name);
    }
  },
};

/** One repository's list being walked. */
interface Walk {
  client: GitHubClient;
  scope: HistoryScope;
  repository: RestObject;
  owner: string;
  repo: string;
  window: HistoryWindow;
  /** Where the cursor resumes: a REST list's page, or the GraphQL endCursor of the pull requests'. */
  from: string | null;
}

/** A REST list's pages from the cursor's page, or from the first. */
function listPages(walk: Walk, route: string, params: Record<string, string | number>) {
  if (walk.from !== null) return walk.client.paginate.iterator(walk.from);
  return walk.client.paginate.iterator(route, { owner: walk.owner, repo: walk.repo, per_page: PER_PAGE, ...params });
}

/** Every page of a repository's sub-list (a pull request's reviews, a deployment's statuses), one at a time. */
async function* subList(walk: Walk, route: string, params: Record<string, string | number>): AsyncGenerator<unknown> {
  for await (const page of walk.client.paginate.iterator(route, { owner: walk.owner, repo: walk.repo, per_page: PER_PAGE, ...params })) {
    yield* listed(page.data, walk.scope.name);
  }
}

/**
 * Pull requests, most recently changed first, each with its reviews: fifty a GraphQL query (historyGraphql.ts), the
 * cursor the page's endCursor. A pull request with more reviews than the query brings has them all read by REST.
 */
async function* pullRequestPages(walk: Walk, reading: HistoryReading): AsyncGenerator<HistoryPage> {
  let after = walk.from;
  for (;;) {
    const page = await pullRequestsPage(walk.client, walk.owner, walk.repo, after, walk.scope.name);
    const activities: Activity[] = [];
    let done = false;
    for (const node of page.nodes) {
      if (new Date(node.updatedAt) < walk.window.since) {
        done = true;
        break;
      }
      const pullRequest = restPullRequest(node);
      push(activities, withReadyTime(pullRequestActivity(walk.scope.name, walk.repository, pullRequest), lastReadyForReview(node)));
      const reviews = node.reviews.pageInfo.hasNextPage
        ? subList(walk, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { pull_number: node.number })
        : node.reviews.nodes.map(restReview);
      for await (const review of reviews) push(activities, reviewActivity(walk.scope.name, walk.repository, pullRequest, review));
    }
    after = !done && page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    yield { read: page.nodes.length, activities, next: after === null ? null : graphqlCursor(reading, walk.scope, after) };
    if (after === null) return;
  }
}

/** The pull request's last ready for review, which no delivery of its state carries: its timeline's (historyGraphql.ts). */
function withReadyTime(activity: Activity | null, readyAt: Date | null): Activity | null {
  if (!activity || !readyAt || activity.kind !== 'pull_request') return activity;
  return { ...activity, pullRequest: { ...activity.pullRequest, readyForReviewAt: readyAt } };
}

/**
 * Review comments of the whole repository, most recently changed first from the window's start: a hundred a request
 * where each pull request's own list took one request each. Each is read with its pull request as it is now, the
 * page's pull requests fetched in one GraphQL query, so its translation is its delivery's.
 */
async function* reviewCommentPages(walk: Walk): AsyncGenerator<HistoryPage> {
  const params = { sort: 'updated', direction: 'desc', since: walk.window.since.toISOString() };
  for await (const page of listPages(walk, 'GET /repos/{owner}/{repo}/pulls/comments', params)) {
    const items = listed(page.data, walk.scope.name);
    const comments: { comment: unknown; number: number }[] = [];
    let done = false;
    for (const comment of items) {
      const { updated_at, pull_request_url } = keysOf(reviewCommentKeys, comment, walk.scope.name, 'review comment');
      if (new Date(updated_at) < walk.window.since) {
        done = true;
        break;
      }
      comments.push({ comment, number: Number(/\/pulls\/(\d+)$/.exec(pull_request_url)?.[1]) });
    }
    const numbers = [...new Set(comments.map((c) => c.number))];
    const pullRequests = await pullRequestsNumbered(walk.client, walk.owner, walk.repo, numbers, walk.scope.name);
    const activities: Activity[] = [];
    for (const { comment, number } of comments) {
      const pullRequest = pullRequests.get(number);
      if (pullRequest) push(activities, reviewCommentActivity(walk.scope.name, walk.repository, pullRequest, comment));
    }
    yield { read: items.length, activities, next: done ? null : nextPage(page.headers.link) };
    if (done) return;
  }
}

/** Deployments, newest first, each as the deliveries of its finished statuses, in the order they came. */
async function* deploymentPages(walk: Walk): AsyncGenerator<HistoryPage> {
  for await (const page of listPages(walk, 'GET /repos/{owner}/{repo}/deployments', {})) {
    const items = listed(page.data, walk.scope.name);
    const activities: Activity[] = [];
    let done = false;
    for (const deployment of items) {
      const { id, created_at } = keysOf(deploymentKeys, deployment, walk.scope.name, 'deployment');
      if (new Date(created_at) < walk.window.since) {
        done = true;
        break;
      }
      // GitHub lists a deployment's statuses newest first.
      const finished: Activity[] = [];
      for await (const status of subList(walk, 'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', { deployment_id: id })) {
        push(finished, deploymentActivity(walk.scope.name, walk.repository, deployment, status));
      }
      activities.push(...finished.reverse());
    }
    yield { read: items.length, activities, next: done ? null : nextPage(page.headers.link) };
    if (done) return;
  }
}

/** Issues changed since the window's start, most recently changed first: incidents when labelled so, else tasks. */
async function* issuePages(walk: Walk): AsyncGenerator<HistoryPage> {
  const params = { state: 'all', sort: 'updated', direction: 'desc', since: walk.window.since.toISOString() };
  for await (const page of listPages(walk, 'GET /repos/{owner}/{repo}/issues', params)) {
    const items = listed(page.data, walk.scope.name);
    const activities: Activity[] = [];
    const tasks: TaskInput[] = [];
    let done = false;
    for (const issue of items) {
      const { updated_at, pull_request } = keysOf(issueKeys, issue, walk.scope.name, 'issue');
      if (new Date(updated_at) < walk.window.since) {
        done = true;
        break;
      }
      // GitHub lists pull requests among issues; they are read with their reviews above.
      if (pull_request !== undefined) continue;
      const item = issueItem(walk.scope.name, walk.repository, issue);
      if (item && 'task' in item) tasks.push(item.task);
      else if (item) activities.push(item.activity);
    }
    yield { read: items.length, activities, tasks, next: done ? null : nextPage(page.headers.link) };
    if (done) return;
  }
}

function push(activities: Activity[], activity: Activity | null): void {
  if (activity) activities.push(activity);
}

/** A page of a list, which GitHub answers as an array (paginate unwraps the installation's `repositories`). */
function listed(data: unknown, scope: string): unknown[] {
  if (!Array.isArray(data)) throw new ProviderFailure(`${scope}: GitHub answered a page that is no list`);
  return data;
}

function keysOf<S extends z.ZodType>(schema: S, item: unknown, scope: string, what: string): z.infer<S> {
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProviderFailure(`${scope}: GitHub's ${what} could not be read (${issue.path.join('.') || 'the item'}: ${issue.message})`);
}

/** The next page's address in a `Link` header (RFC 8288, as GitHub sends it); null on the last page. */
function nextPage(link: string | undefined): string | null {
  const match = link ? /<([^<>]+)>;\s*rel="next"/.exec(link) : null;
  return match ? match[1] : null;
}

/** The cursor's page, when it is one of this repository's list of this kind at this API; else null, and the list starts again. */
function resumeAt(cursor: string | null, reading: HistoryReading, scope: HistoryScope, kind: HistoryKind): string | null {
  if (cursor === null) return null;
  let page: URL;
  try {
    page = new URL(cursor);
  } catch {
    return null;
  }
  const base = new URL(reading.baseUrl);
  const underBase = page.origin === base.origin && page.pathname.startsWith(base.pathname.replace(/\/*$/, '/'));
  // GitHub's pages name the repository by its id (`/repositories/{id}/pulls`); a first page, by its full name.
  const path = page.pathname.toLowerCase();
  const ofScope = path.includes(`/repositories/${scope.key}/`) || path.includes(`/repos/${scope.name.toLowerCase()}/`);
  const list = LIST_PATH[kind];
  return underBase && ofScope && list !== undefined && path.endsWith(list) ? cursor : null;
}

/**
 * A GraphQL list's cursor, with the API and the repository it was read from: GitHub's endCursor alone would be taken
 * by any repository's list, and would start it at another one's place.
 */
const graphqlCursorKeys = z.object({ api: z.string(), repository: z.string(), after: z.string() });

function graphqlCursor(reading: HistoryReading, scope: HistoryScope, after: string): string {
  return JSON.stringify({ api: reading.baseUrl, repository: scope.key, after });
}

/** The endCursor a cursor of this repository's pull requests at this API resumes after; else null, and the list starts again. */
function graphqlCursorOf(cursor: string | null, reading: HistoryReading, scope: HistoryScope): string | null {
  if (cursor === null) return null;
  let read: unknown;
  try {
    read = JSON.parse(cursor);
  } catch {
    return null;
  }
  const parsed = graphqlCursorKeys.safeParse(read);
  return parsed.success && parsed.data.api === reading.baseUrl && parsed.data.repository === scope.key ? parsed.data.after : null;
}
