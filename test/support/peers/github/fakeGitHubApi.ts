import { createPublicKey, KeyObject, verify } from 'node:crypto';
import { z } from 'zod';
import { ScriptedAnswer, ScriptedPeer, RecordedRequest } from '../scriptedPeer';

/**
 * A local stand-in for GitHub's REST and GraphQL APIs as the history importer reads them (src/integrations/github/README.md#history):
 * the repositories a credential reads, and each repository's pull requests (with reviews, by GraphQL), review comments,
 * deployments (with statuses) and issues, served from recorded answers (test/fixtures/history/github/README.md).
 * Lists are sorted and paged as GitHub documents them (newest change first where asked, `Link` to the next page
 * naming the repository by its id, as GitHub's own links do), `pageSize` items a page so a short history has several.
 * Scripted interruptions (a rate limit, a refusal) answer before the recorded answers, each once.
 */
export interface RepositoryHistory {
  repository: { id: number; full_name: string } & Record<string, unknown>;
  pulls?: PullRequest[];
  /** By pull request number. */
  reviews?: Map<number, unknown[]>;
  /** By pull request number: when it became ready for review, oldest first (its timeline's ReadyForReviewEvents). */
  readyForReview?: Map<number, string[]>;
  comments?: Map<number, unknown[]>;
  deployments?: { id: number }[];
  /** By deployment id, newest first as GitHub lists them. */
  statuses?: Map<number, unknown[]>;
  issues?: Issue[];
  /** Answers recorded for their paths (octokit/fixtures' pages, with their own `Link`), served before any other. */
  recorded?: { path: string; status: number; link: string; response: unknown }[];
  /** Another full name it answers to (a recorded repository standing for the one a recorded page names). */
  servedAs?: string;
}
type PullRequest = { number: number; updated_at: string } & Record<string, unknown>;
type Issue = { updated_at: string } & Record<string, unknown>;

/** GitHub's documented answer to a token it does not know. */
export const BAD_CREDENTIALS = { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' };

export class FakeGitHubApi {
  pageSize = 20;
  readonly repositories: RepositoryHistory[] = [];
  /** Tokens it accepts (`Authorization: token …` or `Bearer …`). */
  readonly tokens = new Set<string>();
  private readonly interruptions: { when: (request: RecordedRequest, url: URL) => boolean; answer: ScriptedAnswer }[] = [];
  private app?: { appId: string; installationId: string; publicKey: KeyObject; token: { token: string } & Record<string, unknown> };
  private readonly peer = new ScriptedPeer((request, url) => this.answer(request, url));

  get base(): string {
    return this.peer.base;
  }

  get requests(): RecordedRequest[] {
    return this.peer.requests;
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  stop(): Promise<void> {
    return this.peer.stop();
  }

  reset(): void {
    this.repositories.length = 0;
    this.tokens.clear();
    this.interruptions.length = 0;
    this.peer.requests.length = 0;
    this.app = undefined;
    this.pageSize = 20;
  }

  /** The next request `when` matches is answered so, once. */
  interrupt(when: (request: RecordedRequest, url: URL) => boolean, answer: ScriptedAnswer): void {
    this.interruptions.push({ when, answer });
  }

  /**
   * A GitHub App installed with `installationId`: `POST /app/installations/{id}/access_tokens` signed by the App's key
   * (an RS256 JWT whose `iss` is the App's id) answers `token` as GitHub documents, and the token then reads.
   */
  installApp(appId: string, installationId: string, publicKeyPem: string, token: { token: string } & Record<string, unknown>): void {
    this.app = { appId, installationId, publicKey: createPublicKey(publicKeyPem), token };
  }

  /** Link headers and redirects in recorded answers name api.github.com; here they name the fake. */
  private local(text: string): string {
    return text.replaceAll('https://api.github.com', this.base);
  }

  private answer(request: RecordedRequest, asked: URL): ScriptedAnswer {
    const interruption = this.interruptions.findIndex((i) => i.when(request, asked));
    if (interruption >= 0) return this.interruptions.splice(interruption, 1)[0].answer;
    // GitHub Enterprise Server's addresses: REST under `/api/v3`, GraphQL at `/api/graphql`.
    const url = new URL(asked.href.replace(/\/api\/v3(?=\/)/, '').replace(/\/api\/graphql$/, '/graphql'));
    const tokenRequest = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(url.pathname);
    if (request.method === 'POST' && tokenRequest) return this.installationToken(request, tokenRequest[1]);
    const authorization = /^(?:token|bearer) (.+)$/i.exec(String(request.headers.authorization ?? ''));
    if (!authorization || !this.tokens.has(authorization[1])) return { status: 401, body: BAD_CREDENTIALS };
    if (request.method === 'POST' && url.pathname === '/graphql') return this.graphql(request);
    if (url.pathname === '/user/repos') return this.paged(url, this.repositories.map((r) => r.repository), '/user/repos');
    if (url.pathname === '/installation/repositories') {
      const page = this.paged(url, this.repositories.map((r) => r.repository), '/installation/repositories');
      return { ...page, body: { total_count: this.repositories.length, repositories: page.body } };
    }
    for (const history of this.repositories) {
      const recorded = history.recorded?.find((r) => isRecordedFor(r.path, request.path, url));
      if (recorded) return { status: recorded.status, body: recorded.response, headers: { link: this.local(recorded.link) } };
      const names = [history.repository.full_name, ...(history.servedAs ? [history.servedAs] : [])].map((name) => `/repos/${name}`);
      const prefix = [...names, `/repositories/${history.repository.id}`].find((p) => url.pathname.toLowerCase() === p.toLowerCase() || url.pathname.toLowerCase().startsWith(`${p.toLowerCase()}/`));
      if (prefix !== undefined) return this.repositoryAnswer(history, url, url.pathname.slice(prefix.length));
    }
    return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
  }

  private repositoryAnswer(history: RepositoryHistory, url: URL, rest: string): ScriptedAnswer {
    const list = `/repositories/${history.repository.id}${rest}`;
    if (rest === '') return { status: 200, body: history.repository };
    if (rest === '/pulls') return this.paged(url, newestChangeFirst(history.pulls ?? []), list);
    if (rest === '/pulls/comments') {
      // GitHub's `since`: only comments updated at or after it.
      const since = url.searchParams.get('since');
      const comments = newestChangeFirst([...(history.comments?.values() ?? [])].flat().filter(isChanged));
      return this.paged(url, comments.filter((c) => since === null || c.updated_at >= since.replace(/\.\d+Z$/, 'Z')), list);
    }
    const ofPull = /^\/pulls\/(\d+)\/(reviews|comments)$/.exec(rest);
    if (ofPull) return this.paged(url, (ofPull[2] === 'reviews' ? history.reviews : history.comments)?.get(Number(ofPull[1])) ?? [], list);
    if (rest === '/deployments') return this.paged(url, [...(history.deployments ?? [])].sort((a, b) => b.id - a.id), list);
    const statuses = /^\/deployments\/(\d+)\/statuses$/.exec(rest);
    if (statuses) return this.paged(url, history.statuses?.get(Number(statuses[1])) ?? [], list);
    if (rest === '/issues') {
      // GitHub's `since`: only issues updated at or after it.
      const since = url.searchParams.get('since');
      const issues = newestChangeFirst(history.issues ?? []).filter((i) => since === null || i.updated_at >= since.replace(/\.\d+Z$/, 'Z'));
      return this.paged(url, issues, list);
    }
    return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
  }

  /**
   * GitHub's GraphQL API as the importer asks it (src/integrations/github/historyGraphql.ts), answered from the REST
   * objects stored: a repository's pull requests, most recently changed first, `first` (at most `pageSize`) after the
   * `after` cursor, each with its first reviews (as many as asked, at most `pageSize`); or the pull requests its
   * aliases name by number. The nodes are the REST objects in GraphQL's spelling (a merged pull request's state
   * MERGED, a bot's login without `[bot]`); the cursors are the fake's own, opaque as GitHub's.
   */
  private graphql(request: RecordedRequest): ScriptedAnswer {
    const { query, variables } = JSON.parse(request.body) as { query: string; variables: Record<string, unknown> };
    const fullName = `${String(variables.owner)}/${String(variables.name)}`.toLowerCase();
    const history = this.repositories.find((h) => [h.repository.full_name, h.servedAs].some((name) => name?.toLowerCase() === fullName));
    if (!history) {
      const message = `Could not resolve to a Repository with the name '${fullName}'.`;
      return { status: 200, body: { data: { repository: null }, errors: [{ type: 'NOT_FOUND', path: ['repository'], locations: [{ line: 2, column: 3 }], message }] } };
    }
    const pulls = history.pulls ?? [];
    if (!query.includes('pullRequests(')) {
      const named = [...query.matchAll(/(\w+): pullRequest\(number: (\d+)\)/g)].map(([, alias, number]) => {
        const pull = pulls.find((p) => p.number === Number(number));
        return [alias, pull ? graphqlPullRequest(pull) : null];
      });
      return { status: 200, body: { data: { repository: Object.fromEntries(named) } } };
    }
    const sorted = newestChangeFirst(pulls);
    const from = typeof variables.after === 'string' ? Number(Buffer.from(variables.after, 'base64').toString().replace(/^cursor:v2:/, '')) + 1 : 0;
    const page = sorted.slice(from, from + Math.min(Number(variables.first), this.pageSize));
    const reviewsAsked = Math.min(Number(variables.reviews), this.pageSize);
    const nodes = page.map((pull) => {
      const reviews = (history.reviews?.get(pull.number) ?? []).map(graphqlReview);
      const ready = (history.readyForReview?.get(pull.number) ?? []).slice(-1).map((createdAt) => ({ createdAt }));
      return { ...graphqlPullRequest(pull), timelineItems: { nodes: ready }, reviews: { pageInfo: { hasNextPage: reviews.length > reviewsAsked }, nodes: reviews.slice(0, reviewsAsked) } };
    });
    const endCursor = page.length ? Buffer.from(`cursor:v2:${from + page.length - 1}`).toString('base64') : null;
    const pageInfo = { endCursor, hasNextPage: from + page.length < sorted.length };
    return { status: 200, body: { data: { repository: { pullRequests: { pageInfo, nodes } } } } };
  }

  /** One page of `items` by the request's `page`, with GitHub's `Link` to the next and last pages. */
  private paged(url: URL, items: unknown[], list: string): ScriptedAnswer & { body: unknown[] } {
    const page = Number(url.searchParams.get('page') ?? '1');
    const last = Math.max(1, Math.ceil(items.length / this.pageSize));
    const at = (n: number) => {
      const target = new URL(`${this.base}${list}`);
      url.searchParams.forEach((value, name) => target.searchParams.set(name, value));
      target.searchParams.set('page', String(n));
      return target.href;
    };
    const links = page < last ? [`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`] : [];
    return { status: 200, body: items.slice((page - 1) * this.pageSize, page * this.pageSize), headers: links.length ? { link: links.join(', ') } : {} };
  }

  private installationToken(request: RecordedRequest, installationId: string): ScriptedAnswer {
    const jwt = /^bearer (.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    if (!this.app || installationId !== this.app.installationId || !jwt || !this.signedByApp(jwt)) {
      return { status: 401, body: { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' } };
    }
    this.tokens.add(this.app.token.token);
    return { status: 201, body: this.app.token };
  }

  /** An RS256 JWT signed with the App's private key, issued by the App, not expired. */
  private signedByApp(jwt: string): boolean {
    const [header, payload, signature] = jwt.split('.');
    if (!header || !payload || !signature || !this.app) return false;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { iss?: unknown; exp?: unknown };
    const signed = verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), this.app.publicKey, Buffer.from(signature, 'base64url'));
    return signed && String(claims.iss) === this.app.appId && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
  }
}

/**
 * A recorded page answers its own path; a recorded first page (no `page`) also answers its list asked with other
 * parameters (the importer asks for every state, newest change first): the recorded answer is what GitHub gave.
 */
function isRecordedFor(recordedPath: string, path: string, url: URL): boolean {
  if (recordedPath === path) return true;
  const recorded = new URL(recordedPath, url);
  return !recorded.searchParams.has('page') && !url.searchParams.has('page') && recorded.pathname === url.pathname;
}

const isChanged = (item: unknown): item is { updated_at: string } => typeof item === 'object' && item !== null && 'updated_at' in item && typeof item.updated_at === 'string';

/** What the fake reads of a stored REST object to answer GraphQL. */
const restUser = z.looseObject({ login: z.string(), id: z.number().int(), type: z.string().optional() }).nullish();
const restPullRequest = z.looseObject({
  number: z.number().int(),
  title: z.string(),
  state: z.string(),
  body: z.string().nullable(),
  user: restUser,
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
  merged_at: z.string().nullable(),
  head: z.looseObject({ sha: z.string() }).optional(),
  merge_commit_sha: z.string().nullable(),
  /** The single pull request's counts; GET .../pulls names none, GraphQL does. */
  additions: z.number().int().optional(),
  deletions: z.number().int().optional(),
});
const restReview = z.looseObject({ id: z.number().int(), state: z.string(), submitted_at: z.string().nullish(), user: restUser });

/** A REST user as GraphQL names the actor: GraphQL's Bot login lacks the `[bot]` REST adds. */
function graphqlActor(user: z.infer<typeof restUser>) {
  if (!user) return null;
  const bot = user.type === 'Bot';
  return { __typename: bot ? 'Bot' : 'User', login: bot ? user.login.replace(/\[bot\]$/, '') : user.login, databaseId: user.id };
}

function graphqlPullRequest(rest: PullRequest) {
  const pull = restPullRequest.parse(rest);
  return {
    number: pull.number,
    title: pull.title,
    state: pull.merged_at ? 'MERGED' : pull.state.toUpperCase(),
    body: pull.body,
    createdAt: pull.created_at,
    updatedAt: pull.updated_at,
    closedAt: pull.closed_at,
    mergedAt: pull.merged_at,
    headRefOid: pull.head?.sha ?? null,
    // GraphQL names a merge commit only once merged; REST's merge_commit_sha of an open one is a test merge.
    mergeCommit: pull.merged_at && pull.merge_commit_sha ? { oid: pull.merge_commit_sha } : null,
    additions: pull.additions ?? null,
    deletions: pull.deletions ?? null,
    author: graphqlActor(pull.user),
    isDraft: pull.draft === true,
  };
}

function graphqlReview(rest: unknown) {
  const review = restReview.parse(rest);
  return { databaseId: review.id, state: review.state, submittedAt: review.submitted_at ?? null, author: graphqlActor(review.user) };
}

const newestChangeFirst = <T extends { updated_at: string }>(items: T[]) => [...items].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
