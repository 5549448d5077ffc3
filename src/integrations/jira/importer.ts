/**
 * Reads a Jira Cloud site's issues for a backfill (docs/trackers.md#backfilling-jira): `GET /rest/api/3/search/jql`
 * with `expand=changelog`, page after page by `nextPageToken`, as the user whose e-mail and API token are given.
 * scripts/import.ts stores each page with the task writer.
 */
import { DomainError } from '../../errors';
import { AnswerTooLarge, answerExcerpt, OutboundPolicy, outboundFetch, RefusedDestination } from '../../outbound/outboundFetch';
import { jiraSearchPage } from './tasks';
import type { TaskInput } from '../../services/work/taskInput';

export class JiraImportError extends Error {}

export interface JiraSearch {
  /** Where requests go: the site (`https://x.atlassian.net`), or `--base-url`. */
  baseUrl: string;
  /** Where calls may go and how much of an answer is read (src/outbound). */
  outbound: OutboundPolicy;
  email: string;
  token: string;
  /** Issues updated since then; every issue when undefined. */
  since?: Date;
  /** The app's story points field (`customfield_10016`), asked for besides the fields a task keeps. */
  pointsField: string | null;
  pageSize?: number;
  /** Told each wait a 429 or 503 asks for, in seconds. */
  onWait?: (seconds: number) => void;
}

/** What a task keeps; the search answers nothing else (never a description or a comment). */
const FIELDS = ['summary', 'issuetype', 'status', 'assignee', 'parent', 'project', 'created', 'updated', 'resolutiondate'];
const MAX_RETRIES = 5;
/** Longer waits than this are a site throttling hard: better to stop and say so. */
const MAX_WAIT_SECONDS = 300;

/** The issues, a page at a time, oldest update first; `nextPageToken` until Jira says the last page came. */
export async function* jiraIssuePages(search: JiraSearch): AsyncGenerator<TaskInput[]> {
  let token: string | undefined;
  do {
    const url = new URL('/rest/api/3/search/jql', search.baseUrl);
    url.searchParams.set('jql', jql(search.since));
    url.searchParams.set('expand', 'changelog');
    url.searchParams.set('fields', [...FIELDS, ...(search.pointsField ? [search.pointsField] : [])].join(','));
    url.searchParams.set('maxResults', String(search.pageSize ?? 100));
    if (token) url.searchParams.set('nextPageToken', token);
    const body = await getJson(url, search);
    let page;
    try {
      page = jiraSearchPage(body, search.pointsField);
    } catch (err) {
      if (err instanceof DomainError) throw new JiraImportError(`${url.origin} answered what is not a Jira search page: ${err.message}`);
      throw err;
    }
    yield page.tasks;
    token = page.nextPageToken;
  } while (token);
}

/**
 * Bounded, as the search requires. JQL reads a date in the Jira user's time zone: a day earlier covers any, and
 * issues read twice change nothing.
 */
function jql(since: Date | undefined): string {
  const from = since ? new Date(since.getTime() - 86_400_000) : new Date(0);
  const day = from.toISOString().slice(0, 10);
  return `updated >= "${day}" ORDER BY updated ASC`;
}

async function getJson(url: URL, search: JiraSearch): Promise<unknown> {
  const authorization = `Basic ${Buffer.from(`${search.email}:${search.token}`).toString('base64')}`;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await outboundFetch(search.outbound, url, { headers: { Authorization: authorization, Accept: 'application/json' } });
    } catch (err) {
      if (err instanceof RefusedDestination) throw new JiraImportError(`Refused to call ${url.origin}: ${err.message}`);
      throw new JiraImportError(`Could not reach ${url.origin}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`);
    }
    if (res.ok) {
      try {
        return await res.json();
      } catch (err) {
        if (err instanceof AnswerTooLarge) throw new JiraImportError(err.message);
        throw new JiraImportError(`${url.origin} answered ${res.status} with a body that is not JSON`);
      }
    }
    const wait = retryAfterSeconds(res.headers.get('retry-after'));
    if ((res.status === 429 || res.status === 503) && attempt < MAX_RETRIES && wait <= MAX_WAIT_SECONDS) {
      search.onWait?.(wait);
      await res.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      continue;
    }
    throw new JiraImportError(await refusal(res, url));
  }
}

/** Jira's Retry-After is in seconds (an HTTP date is read too); without one, a few seconds. */
function retryAfterSeconds(value: string | null): number {
  if (!value) return 5;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 5 : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

async function refusal(res: Response, url: URL): Promise<string> {
  const text = await answerExcerpt(res, 4096);
  let detail = text.slice(0, 300);
  try {
    const parsed = JSON.parse(text) as { errorMessages?: unknown; message?: unknown };
    if (Array.isArray(parsed.errorMessages) && parsed.errorMessages.length) detail = parsed.errorMessages.join('; ');
    else if (typeof parsed.message === 'string') detail = parsed.message;
  } catch {
    // Not JSON: its start says enough.
  }
  if (res.status === 401) return `${url.origin} refused the e-mail and API token (401): check --email and --token-file (an API token from id.atlassian.com)`;
  if (res.status === 429 || res.status === 503) return `${url.origin} kept asking to wait (${res.status}); run the import again later`;
  return `${url.origin} answered ${res.status} to the search${detail ? `: ${detail}` : ''}`;
}
