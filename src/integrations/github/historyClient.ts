/**
 * The client GitHub's history is read with (README.md#history): Octokit with its pagination, throttling and retry
 * plugins (the throttling also covers GraphQL's answers), authenticated by a token or as a GitHub App's installation (whose tokens @octokit/auth-app fetches and
 * renews). Every request goes through the address guard and the answer cap (src/outbound/outboundFetch.ts); every
 * rate-limit wait is told to the reading's `onWait` and slept with its `sleep`; a refusal names the repository read.
 */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { Credential } from '../../services/apps/credential';
import type { HistoryReading } from '../../services/history/historySource';
import { outboundFetch, OutboundPolicy, RefusedDestination } from '../../outbound/outboundFetch';
import { ProviderFailure, ProviderHttp, textOf } from '../../outbound/providerHttp';
import { answerOf, graphqlRateLimitReset, retryAfter, throttlingRecognises } from './historyFailures';

/** The REST API version whose shapes the webhook translation (activity.ts) reads: 2026-03-10 renamed a deployment's `sha`. */
const API_VERSION = '2022-11-28';
/** Tries of one request held up by a rate limit before the import stops with the wait it was asked for. */
const RATE_LIMIT_RETRIES = 4;
/** GitHub's primary rate limit resets within the hour: a longer wait is not waited, the import stops and resumes later. */
const MAX_WAIT_S = 3660;
/** A 429 without `Retry-After`: a minute, as GitHub advises for a secondary rate limit without one. */
const DEFAULT_WAIT_S = 60;

/**
 * A failure trying again cannot mend (an address the guard refuses, an answer past its cap): thrown as it is past the
 * retry plugin, which would otherwise take Octokit's wrapping of it (a 500) for a server error and ask three times more.
 */
function finalFailures(octokit: Octokit) {
  octokit.hook.error('request', (error: unknown) => {
    const cause = error instanceof Error ? error.cause : undefined;
    throw cause instanceof ProviderFailure ? cause : error;
  });
  return {};
}

/** Hooks run innermost first in the order plugins are given: the throttling's retries, then final failures, then the retry plugin's. */
const GitHubOctokit = Octokit.plugin(paginateRest, throttling, finalFailures, retry);
export type GitHubClient = InstanceType<typeof GitHubOctokit>;

/** One client per reading: an App's installation token is fetched once and renewed by it, not once per repository. */
const clients = new WeakMap<HistoryReading, GitHubClient>();

export function githubClient(reading: HistoryReading): GitHubClient {
  let client = clients.get(reading);
  if (!client) {
    client = newClient(reading.credential, reading.baseUrl, reading.http);
    clients.set(reading, client);
  }
  return client;
}

const quiet = () => undefined;

function newClient(credential: Credential, baseUrl: string, http: ProviderHttp): GitHubClient {
  const authentication =
    credential.kind === 'github_app'
      ? { authStrategy: createAppAuth, auth: { appId: credential.appId, privateKey: credential.privateKey, installationId: credential.installationId } }
      : { auth: credential.token };
  const client = new GitHubOctokit({
    ...authentication,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    userAgent: 'platform-api',
    // Failures are thrown and reported with the repository they stopped; the plugins' own warnings would only repeat them.
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    request: { fetch: guardedFetch(http.outbound) },
    throttle: {
      // The wait is slept in the handlers below (the reading's sleep, which tests make instant), so the plugin's own is none.
      retryAfterBaseValue: 0,
      onRateLimit: (seconds: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) => waitOut(http, seconds, `GitHub's rate limit is spent (${options.method} ${options.url})`, retryCount),
      onSecondaryRateLimit: (seconds: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) =>
        waitOut(http, seconds, `GitHub's secondary rate limit (${options.method} ${options.url})`, retryCount),
    },
    // A 429 the throttling does not recognise is waited out below, by its Retry-After; never by the retry plugin's own schedule.
    retry: { doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
  });
  client.hook.before('request', (options) => {
    options.headers['x-github-api-version'] = API_VERSION;
  });
  client.hook.wrap('request', async (request, options) => {
    for (let retries = 0; ; retries++) {
      try {
        const response = await request(options);
        // The throttling knows GraphQL's spent limit at `/graphql` only; GitHub Enterprise's `/api/graphql` is waited out here.
        const reset = graphqlRateLimitReset(response);
        if (reset === null) return response;
        const seconds = reset - http.now().getTime() / 1000 + 1;
        if (!(await waitOut(http, seconds, `GitHub's GraphQL rate limit is spent (${options.method} ${options.url})`, retries))) return response;
      } catch (error) {
        const answer = answerOf(error);
        if (!answer || answer.status !== 429 || throttlingRecognises(answer)) throw error;
        const seconds = retryAfter(answer, http.now()) ?? DEFAULT_WAIT_S;
        if (!(await waitOut(http, seconds, `GitHub answered 429 Too Many Requests (${options.method} ${options.url})`, retries))) throw error;
      }
    }
  });
  return client;
}

/** Tells the wait and sleeps it; false (the request fails) when it is too long or the request has waited enough. */
async function waitOut(http: ProviderHttp, seconds: number, why: string, retries: number): Promise<boolean> {
  const wait = Math.max(1, Math.ceil(seconds));
  if (retries >= RATE_LIMIT_RETRIES || wait > MAX_WAIT_S) return false;
  http.onWait?.(wait, why);
  await http.sleep(wait * 1000);
  return true;
}

/** What Octokit hands its fetch. */
interface OctokitFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  signal?: AbortSignal | null;
}

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * Octokit's fetch, through the address guard. The body is read here, within the answer's cap: Octokit takes a body
 * it cannot read for an empty one, so an answer cut off at the cap would otherwise read as an empty page.
 */
function guardedFetch(policy: OutboundPolicy) {
  return async (url: string, init: OctokitFetchInit): Promise<Response> => {
    const what = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
    let answer: Response;
    try {
      answer = await outboundFetch(policy, url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal });
    } catch (err) {
      if (err instanceof RefusedDestination) throw new ProviderFailure(`${what}: refused: ${err.message}`);
      throw err;
    }
    const body = NULL_BODY_STATUSES.has(answer.status) ? null : await textOf(answer, what);
    const read = new Response(body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
    Object.defineProperty(read, 'url', { value: answer.url });
    return read;
  };
}
