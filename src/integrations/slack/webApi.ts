/**
 * Slack's Web API as the history importer calls it (docs/history.md#slack): through Slack's own client,
 * `@slack/web-api`, whose every request goes out through our outgoing-call rules (src/outbound: the address guard,
 * https only, the answer's cap). The client makes its requests with the `fetch` it is given (v8 no longer uses axios),
 * so it is given `outboundFetch`. Its own waits are turned off: it rejects a rate-limited call
 * (`rejectRateLimitedCalls`) and retries nothing, and the wait Slack asks for (`Retry-After`), like the back-off after
 * a 5xx or a dropped connection, is taken here through `reading.http`, told to `onWait` and slept with its `sleep`.
 */
import { LogLevel, WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError, WebClient, type FetchFunction, type WebAPICallResult } from '@slack/web-api';
import { AnswerTooLarge, outboundFetch, RefusedDestination } from '../../outbound/outboundFetch';
import { CredentialRefused, ProviderFailure } from '../../outbound/providerHttp';
import type { HistoryReading } from '../../services/history/historySource';

const ATTEMPTS = 5;
/** A wait longer than this is not waited: the import stops, and the next run starts where it did. */
const MAX_WAIT_S = 900;
const REQUEST_TIMEOUT_MS = 60_000;

/** Slack's answers that mean the token no longer reads the workspace (https://docs.slack.dev/reference/methods/conversations.history#errors). */
const REFUSED_TOKEN = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'token_expired', 'account_inactive', 'not_allowed_token_type']);

export type Params = Record<string, string | number | boolean | undefined>;

/** What a call reads, for waits and messages: the method, and the channel or listing it is for (`#general`). */
export interface Call {
  method: string;
  params: Params;
  /** `reading #general`, `listing the channels the bot is in`. */
  doing: string;
  /** The scopes the method needs, named when Slack's answer does not say (`channels:history, groups:history`). */
  scopes: string;
}

/** A client of one connection's Slack workspace, for one listing. */
export class SlackWebApi {
  private readonly client: WebClient;

  constructor(private readonly reading: HistoryReading) {
    if (reading.credential.kind !== 'token') throw new CredentialRefused("Slack's history is read with the Slack app's bot token (xoxb-…): store it with apps set-credential --token-file");
    this.client = new WebClient(reading.credential.token, {
      slackApiUrl: reading.baseUrl,
      allowAbsoluteUrls: false,
      fetch: guardedFetch(reading),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
      timeout: REQUEST_TIMEOUT_MS,
      logLevel: LogLevel.ERROR,
    });
  }

  /** The method's answer when Slack says `ok`; waits and retries as above; a refusal as CredentialRefused or ProviderFailure. */
  async call(call: Call): Promise<WebAPICallResult> {
    const what = `Slack ${call.method}, ${call.doing}`;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.apiCall(call.method, call.params);
      } catch (err) {
        const wait = waitBefore(err, attempt);
        if (wait === null) throw failure(err, call, what);
        if (attempt >= ATTEMPTS || wait.seconds > MAX_WAIT_S) throw new ProviderFailure(`${what}: ${wait.why} (asked to wait ${wait.seconds} s after ${attempt} tries); run the import again later, it resumes there`);
        this.reading.http.onWait?.(wait.seconds, `${what}: ${wait.why}`);
        await this.reading.http.sleep(wait.seconds * 1000);
      }
    }
  }
}

/** The client's requests, made by outboundFetch under the reading's policy. */
function guardedFetch(reading: HistoryReading): FetchFunction {
  return async (url, init) => {
    // Every call here is a form post; a file upload (a FormData body) is no call of the importer's.
    if (init?.body !== undefined && typeof init.body !== 'string') throw new RefusedDestination('a multipart body is not sent by the history importer');
    const answer = await outboundFetch(reading.http.outbound, url, {
      method: init?.method,
      headers: init?.headers,
      body: init?.body,
      signal: init?.signal,
      // The client asks for `redirect: 'error'`: a 3xx comes back as the answer, which it refuses as not a 200.
      redirects: init?.redirect === 'follow' ? 'same-origin' : 'manual',
    });
    if (answer.status !== 429) return answer;
    // The client reads only a 429's Retry-After, never its body: the connection is let go now.
    await answer.body?.cancel();
    return new Response(null, { status: 429, headers: answer.headers });
  };
}

/** How long to wait before asking again, when the failure passes with time: a rate limit, a 5xx, a dropped connection. */
function waitBefore(err: unknown, attempt: number): { seconds: number; why: string } | null {
  if (err instanceof WebAPIRateLimitedError) return { seconds: Math.max(1, err.retryAfter), why: 'rate limited by Slack' };
  const backOff = 2 ** (attempt - 1);
  if (err instanceof WebAPIHTTPError && err.statusCode >= 500) return { seconds: backOff, why: `Slack answered ${err.statusCode}` };
  if (err instanceof WebAPIRequestError && !(err.original instanceof RefusedDestination)) return { seconds: backOff, why: `no answer (${err.original.message})` };
  return null;
}

/** The failure a caller sees, naming what was being read and what to do. */
function failure(err: unknown, call: Call, what: string): Error {
  if (err instanceof WebAPIPlatformError) {
    const said = err.data.error;
    if (REFUSED_TOKEN.has(said)) return new CredentialRefused(`${what}: Slack refused the app's token (${said}); store the Slack app's current bot token (xoxb-…) with apps set-credential`);
    if (said === 'missing_scope') {
      const needed = 'needed' in err.data && typeof err.data.needed === 'string' && err.data.needed ? err.data.needed : call.scopes;
      return new CredentialRefused(`${what}: the Slack app's token lacks the ${needed} scope; add it under OAuth & Permissions, reinstall the app and store its new bot token with apps set-credential`);
    }
    if (said === 'not_in_channel' || said === 'channel_not_found') {
      return new ProviderFailure(`${what}: the app's bot is no longer in that channel (${said}); invite it again (/invite @your-app) and run the import again, or leave the channel out with --repos`);
    }
    return new ProviderFailure(`${what}: Slack answered ${said}`);
  }
  if (err instanceof WebAPIRequestError && err.original instanceof RefusedDestination) return new ProviderFailure(`${what}: refused: ${err.original.message}`);
  if (err instanceof WebAPIHTTPError) {
    if (err.statusCode === 401 || err.statusCode === 403) return new CredentialRefused(`${what}: Slack refused the app's token (HTTP ${err.statusCode}); store the Slack app's current bot token with apps set-credential`);
    return new ProviderFailure(`${what}: Slack answered HTTP ${err.statusCode}`);
  }
  if (err instanceof WebAPIRateLimitedError || err instanceof WebAPIRequestError) return new ProviderFailure(`${what}: ${err.message}`);
  if (err instanceof AnswerTooLarge) return new ProviderFailure(`${what}: ${err.message}`);
  return new ProviderFailure(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}
