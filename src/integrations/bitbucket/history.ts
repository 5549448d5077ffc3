/**
 * Bitbucket Cloud's history (README.md#history): the pull requests of each repository the token reads, with their
 * activity logs, as the webhooks would have brought them (activity.ts, activityLog.ts).
 */
import { z } from 'zod';
import type { Activity, PullRequestInput, RepositoryRef } from '../../services/git/activity';
import type { HistoryKind, HistoryPage, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from '../../services/history/historySource';
import { ProviderFailure } from '../../outbound/providerHttp';
import { pullRequestFields, pullRequestInput, repository, repositoryRef } from './activity';
import { ActivityLog } from './activityLog';
import { apiUrl, BITBUCKET_API, getOne, getPage, parsed, repositoryPath, translated, withinRoot } from './api';

/** The most a page of pull requests or of a log holds (Bitbucket's cap for both). */
const PAGE_LENGTH = '50';
const STATES = ['OPEN', 'MERGED', 'DECLINED', 'SUPERSEDED'];

/**
 * The repositories the token reads: `/repositories?role=member`, the one listing that answers for every kind of
 * token. Its caller is the account (an API token's owner) or the access token's own bot user, a member of its
 * repository, project or workspace; `/user/permissions/repositories` needs the account scope, which access tokens
 * cannot have, and `/repositories/{workspace}` needs the workspace named.
 */
async function repositoriesOf(reading: HistoryReading, only?: readonly string[]): Promise<HistoryScope[]> {
  const what = 'Bitbucket: the repositories the token reads';
  const wanted = only?.map((name) => ({ name, key: comparable(name) }));
  const found: HistoryScope[] = [];
  let url: string | null = apiUrl(reading, '/repositories', { role: 'member', pagelen: '100' });
  while (url) {
    const page = await getPage(reading, url, what);
    for (const value of page.values) {
      const r = parsed(repository, value, what);
      const scope = { key: r.uuid, name: r.full_name };
      if (!wanted || wanted.some((w) => w.key === comparable(scope.key) || w.key === comparable(scope.name))) found.push(scope);
    }
    url = page.next;
  }
  const missing = wanted?.filter((w) => !found.some((s) => w.key === comparable(s.key) || w.key === comparable(s.name))) ?? [];
  if (missing.length) throw new ProviderFailure(`${what}: none is ${missing.map((m) => `'${m.name}'`).join(', ')} (give a full name, workspace/repository, or a uuid)`);
  return found.sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
}

/** Full names in any case, uuids with or without their braces. */
const comparable = (nameOrId: string) => nameOrId.trim().toLowerCase().replace(/^\{(.*)\}$/, '$1');

/**
 * Where a listing resumes: a page of pull requests, and how many of it are stored. A pull request whose log is read
 * in several pages is read again whole after a stop: its activity is stored once whatever the times it is read.
 */
interface Position {
  page: string;
  done: number;
}
const position = z.object({ page: z.string(), done: z.number().int().nonnegative() });

function resumed(reading: HistoryReading, cursor: string, what: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(cursor);
  } catch {
    value = undefined;
  }
  const result = position.safeParse(value);
  if (!result.success) throw new ProviderFailure(`${what}: the stored cursor is not this importer's (${cursor.slice(0, 100)})`);
  return { page: withinRoot(reading, result.data.page, what), done: result.data.done };
}

/** BBQL's time: ISO 8601 to the second, in UTC. */
const bbqlTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, '+00:00');

async function* pullRequestPages(reading: HistoryReading, scope: HistoryScope, kind: HistoryKind, window: HistoryWindow, cursor: string | null): AsyncGenerator<HistoryPage> {
  const what = `Bitbucket ${scope.name}`;
  if (kind !== 'pull_requests') throw new ProviderFailure(`${what}: Bitbucket's history has pull requests only, not ${kind}`);
  const repo = await repositoryNow(reading, scope, what);
  let at: Position | null = cursor
    ? resumed(reading, cursor, what)
    : {
        page: apiUrl(reading, `${repositoryPath(repo.fullName)}/pullrequests`, { state: STATES, sort: '-updated_on', q: `updated_on >= ${bbqlTime(window.since)}`, pagelen: PAGE_LENGTH }),
        done: 0,
      };
  while (at) {
    const listing = await getPage(reading, at.page, `${what}: pull requests`);
    const pullRequests = listing.values.map((value) => translated(what, () => pullRequestInput(parsed(pullRequestFields, value, `${what}: pull requests`))));
    // Newest change first: the window ends at the first one changed before it (the query's filter says the same).
    const older = pullRequests.findIndex((pr) => pr.updatedAt < window.since);
    const end = older === -1 ? pullRequests.length : older;
    const after: Position | null = older === -1 && listing.next ? { page: listing.next, done: 0 } : null;
    for (let i = at.done; i < end; i++) {
      const next = i + 1 < end ? { page: at.page, done: i + 1 } : after;
      yield* withLog(reading, repo, pullRequests[i], { again: { page: at.page, done: i }, next }, what);
    }
    at = after;
  }
}

/**
 * A pull request and its log, a page of the log at a time: the pull request with the first, the pushes with the
 * last, whose cursor moves past it; until then the cursor stays on it.
 */
async function* withLog(reading: HistoryReading, repo: RepositoryRef, pullRequest: PullRequestInput, places: { again: Position; next: Position | null }, scopeWhat: string): AsyncGenerator<HistoryPage> {
  const what = `${scopeWhat}: pull request #${pullRequest.number}'s activity`;
  const log = new ActivityLog(what);
  let url: string | null = apiUrl(reading, `${repositoryPath(repo.fullName)}/pullrequests/${pullRequest.number}/activity`, { pagelen: PAGE_LENGTH });
  let first = true;
  while (url) {
    const page = await getPage(reading, url, what);
    const reviews = log.read(page.values);
    url = page.next;
    const last = url === null;
    if (last) reviews.push(...log.pushes());
    const activities: Activity[] = [
      ...(first ? [{ kind: 'pull_request' as const, repository: repo, pullRequest }] : []),
      ...reviews.map((review) => ({ kind: 'review' as const, repository: repo, pullRequest, pullRequestCurrent: true, review })),
    ];
    const place = last ? places.next : places.again;
    yield { read: last ? 1 : 0, activities, next: place && JSON.stringify(place) };
    first = false;
  }
}

/**
 * The repository as it is now (its visibility, main branch and creation are not in a pull request's view of it), the
 * same one the scope was listed as: a name now another repository's is not read.
 */
async function repositoryNow(reading: HistoryReading, scope: HistoryScope, what: string): Promise<RepositoryRef> {
  const r = parsed(repository, await getOne(reading, apiUrl(reading, repositoryPath(scope.name)), `${what}: the repository`), `${what}: the repository`);
  if (comparable(r.uuid) !== comparable(scope.key)) throw new ProviderFailure(`${what}: the name is now another repository's (${r.uuid}, not ${scope.key}); list the scopes again`);
  return translated(what, () => repositoryRef(r));
}

/** What `npm run import -- bitbucket` reads: pull requests with their activity. */
export const bitbucketHistory: HistorySource = {
  defaultBaseUrl: BITBUCKET_API,
  scopeNoun: 'repositories',
  kinds: ['pull_requests'],
  scopes: repositoriesOf,
  pages: pullRequestPages,
};
