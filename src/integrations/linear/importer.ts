/**
 * Linear's issues read from its GraphQL API for a backfill (docs/trackers.md#linear): every issue (or those updated
 * since a date) with its state history, a page of 50 at a time, waiting out Linear's rate limits.
 */
import { z } from 'zod';
import { AnswerTooLarge, OutboundPolicy, outboundFetch, RefusedDestination } from '../../outbound/outboundFetch';
import type { TaskInput } from '../../services/work/taskInput';
import { LinearHistory, linearHistory, linearIssueNode, linearIssueTask } from './tasks';

export const LINEAR_API_URL = 'https://api.linear.app';

/** A failure the operator can act on: the key, the address, Linear's answer. */
export class LinearImportError extends Error {}

export interface LinearImportOptions {
  /** A personal API key (sent as is) or an OAuth access token (`lin_oauth_…`, sent as a bearer token). */
  apiKey: string;
  /** The API's root; the GraphQL endpoint is `<baseUrl>/graphql`. */
  baseUrl?: string;
  /** Where calls may go and how much of an answer is read (src/outbound). */
  outbound: OutboundPolicy;
  /** Only issues updated at or after this time. */
  since?: Date;
  /** Told of each wait for a rate limit. */
  onWait?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

// Linear refuses a query over 10,000 complexity points, counting a connection's nodes by its `first`: 50 issues
// with 25 history entries and 20 labels each stay well under it. Longer histories are read in further pages.
const HISTORY_FIELDS = 'nodes { id createdAt fromState { id name type } toState { id name type } } pageInfo { hasNextPage endCursor }';
const ISSUES_QUERY = `query Issues($cursor: String, $filter: IssueFilter) {
  issues(first: 50, after: $cursor, filter: $filter, orderBy: updatedAt) {
    nodes {
      id title createdAt updatedAt completedAt canceledAt estimate
      team { id key }
      state { id name type }
      assignee { id email }
      labels(first: 20) { nodes { name } }
      parent { id }
      history(first: 25) { ${HISTORY_FIELDS} }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;
const HISTORY_QUERY = `query IssueHistory($id: String!, $cursor: String) {
  issue(id: $id) { history(first: 50, after: $cursor) { ${HISTORY_FIELDS} } }
}`;

const issuesPage = z.looseObject({
  issues: z.looseObject({ nodes: z.array(linearIssueNode), pageInfo: z.looseObject({ hasNextPage: z.boolean(), endCursor: z.string().nullish() }) }),
});
const historyPage = z.looseObject({ issue: z.looseObject({ history: linearHistory }) });

/** Rate-limited answers are retried this many times before the import gives up. */
const MAX_WAITS = 5;
const DEFAULT_WAIT_S = 60;
const MAX_WAIT_S = 3600;
/** A page Linear has not answered in this long is not coming. */
const REQUEST_TIMEOUT_MS = 60_000;

/** The issues, a page at a time, each with all its state changes. */
export async function* linearIssuePages(options: LinearImportOptions): AsyncGenerator<TaskInput[]> {
  let cursor: string | null = null;
  do {
    const filter = options.since ? { updatedAt: { gte: options.since.toISOString() } } : null;
    const page: z.infer<typeof issuesPage> = read(issuesPage, await query(options, ISSUES_QUERY, { cursor, filter }), 'issues');
    const tasks: TaskInput[] = [];
    for (const node of page.issues.nodes) tasks.push(linearIssueTask(node, await wholeHistory(options, node.id, node.history)));
    yield tasks;
    cursor = page.issues.pageInfo.hasNextPage ? (page.issues.pageInfo.endCursor ?? null) : null;
  } while (cursor);
}

async function wholeHistory(options: LinearImportOptions, issueId: string, first: LinearHistory): Promise<LinearHistory['nodes']> {
  const entries = [...first.nodes];
  let more = first.pageInfo;
  while (more?.hasNextPage && more.endCursor) {
    const page = read(historyPage, await query(options, HISTORY_QUERY, { id: issueId, cursor: more.endCursor }), `history of issue ${issueId}`);
    entries.push(...page.issue.history.nodes);
    more = page.issue.history.pageInfo;
  }
  return entries;
}

function read<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new LinearImportError(`Linear's answer for the ${what} is not what its API documents: ${issue.path.join('.') || 'data'}: ${issue.message}`);
}

const graphqlAnswer = z.looseObject({
  data: z.unknown().optional(),
  errors: z.array(z.looseObject({ message: z.string().optional(), extensions: z.looseObject({ code: z.string().optional() }).optional() })).optional(),
});

/** One GraphQL request, repeated after a rate limit's wait; its `data`, or a LinearImportError saying why not. */
async function query(options: LinearImportOptions, text: string, variables: Record<string, unknown>): Promise<unknown> {
  const url = `${(options.baseUrl ?? LINEAR_API_URL).replace(/\/+$/, '')}/graphql`;
  const authorization = options.apiKey.startsWith('lin_oauth_') ? `Bearer ${options.apiKey}` : options.apiKey;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let waits = 0; ; waits++) {
    let res: Response;
    try {
      res = await outboundFetch(options.outbound, url, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ query: text, variables }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (e) {
      if (e instanceof RefusedDestination) throw new LinearImportError(`Refused to call ${url}: ${e.message}`);
      throw new LinearImportError(`Could not reach Linear at ${url}: ${e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e)}`);
    }
    const answer = graphqlAnswer.safeParse(await res.json().catch(notJson));
    const errors = answer.success ? (answer.data.errors ?? []) : [];
    const codes = errors.map((e) => e.extensions?.code);
    if (res.status === 429 || codes.includes('RATELIMITED')) {
      if (waits >= MAX_WAITS) throw new LinearImportError(`Linear's rate limit still refuses after ${MAX_WAITS} waits; run the import again later (it resumes: nothing is stored twice)`);
      const seconds = waitSeconds(res.headers);
      options.onWait?.(seconds);
      await sleep(seconds * 1000);
      continue;
    }
    const message = errors.map((e) => e.message).filter(Boolean).join('; ') || `HTTP ${res.status}`;
    if (res.status === 401 || res.status === 403 || codes.includes('AUTHENTICATION_ERROR')) {
      throw new LinearImportError(`Linear refused the API key (${message}); check --key-file (a personal API key from Settings → Security & access, or an OAuth token)`);
    }
    if (!res.ok || !answer.success || errors.length > 0 || answer.data.data === undefined) throw new LinearImportError(`Linear answered ${res.status}: ${message}`);
    return answer.data.data;
  }
}

/** An answer that is not JSON is read as none; one past its cap is refused with what the cap says. */
function notJson(err: unknown): null {
  if (err instanceof AnswerTooLarge) throw new LinearImportError(err.message);
  return null;
}

/** `Retry-After` (seconds or a date), else the reset time of Linear's rate limit headers (ms since the epoch), else a minute. */
function waitSeconds(headers: Headers, now = Date.now()): number {
  const retryAfter = headers.get('retry-after');
  const reset = headers.get('x-ratelimit-requests-reset') ?? headers.get('x-ratelimit-complexity-reset');
  let seconds = DEFAULT_WAIT_S;
  if (retryAfter && /^\d+$/.test(retryAfter.trim())) seconds = Number(retryAfter);
  else if (retryAfter && !Number.isNaN(Date.parse(retryAfter))) seconds = (Date.parse(retryAfter) - now) / 1000;
  else if (reset && /^\d+$/.test(reset.trim())) seconds = (Number(reset) - now) / 1000;
  return Math.min(MAX_WAIT_S, Math.max(1, Math.ceil(seconds)));
}
