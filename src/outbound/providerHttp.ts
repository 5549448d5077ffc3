/**
 * Requests to a provider's API (the AI vendors' pulls, docs/ai-vendors.md#how-a-pull-goes; the history importers,
 * docs/history.md), as a careful client makes them: a 429's
 * `Retry-After` (seconds or a date; without one, until the reset GitLab's or PagerDuty's `RateLimit-Reset` names) and GitHub's
 * exhausted rate limit (`x-ratelimit-remaining: 0` until `x-ratelimit-reset`) are waited out; a 5xx or a dropped connection is tried again after 1, 2, 4 and 8 seconds; a
 * 401, or a 403 that is not a rate limit, means the credential no longer reads the API. Every request is an outgoing
 * call (src/outbound): https only, through the address guard, no redirect to another origin, each answer capped.
 */
import { setTimeout as wait } from 'node:timers/promises';
import { AnswerTooLarge, answerExcerpt, OutboundInit, OutboundPolicy, outboundFetch, RefusedDestination } from './outboundFetch';

/** The provider refused the credential: the connection is failing until a new one is stored. */
export class CredentialRefused extends Error {}

/** The provider's answer could not be used: what was being read (a vendor's day, a scope's history) stops, with this reason. */
export class ProviderFailure extends Error {}

export interface ProviderHttp {
  /** Where calls may go and how much of an answer is read (outboundPolicy of the configuration). */
  outbound: OutboundPolicy;
  /** Waits `ms`; a wait whose `signal` is aborted (its run stopped meanwhile) ends at once, failing, its timer cleared. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => Date;
  /** Told of each wait, for the CLI's progress. */
  onWait?: (seconds: number, why: string) => void;
}

export const defaultHttp = (outbound: OutboundPolicy): ProviderHttp => ({ outbound, sleep: (ms, signal) => wait(ms, undefined, { signal }), now: () => new Date() });

const ATTEMPTS = 5;
/** A wait longer than this is not waited: the pull stops and the next one starts where it did. */
const MAX_WAIT_S = 900;
const REQUEST_TIMEOUT_MS = 60_000;

/** A successful answer (2xx, 404 included when asked), after the waits and retries above. */
export async function providerRequest(http: ProviderHttp, url: string, init: OutboundInit, what: string, accept404 = false): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let answer: Response;
    try {
      answer = await outboundFetch(http.outbound, url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (err) {
      // Asking again would be refused again.
      if (err instanceof RefusedDestination) throw new ProviderFailure(`${what}: refused: ${err.message}`);
      if (attempt >= ATTEMPTS) throw new ProviderFailure(`${what}: no answer after ${ATTEMPTS} tries (${err instanceof Error ? err.message : String(err)})`);
      await backOff(http, attempt, `${what}: no answer`);
      continue;
    }
    if (answer.ok || (accept404 && answer.status === 404)) return answer;
    const wait = rateLimitWait(answer, http.now());
    if (wait !== null) {
      await answer.body?.cancel();
      if (attempt >= ATTEMPTS || wait > MAX_WAIT_S) throw new ProviderFailure(`${what}: rate limited by the vendor (asked to wait ${wait} s)`);
      http.onWait?.(wait, `${what}: rate limited`);
      await http.sleep(wait * 1000);
      continue;
    }
    const said = await excerpt(answer);
    if (answer.status === 401 || answer.status === 403) throw new CredentialRefused(`${what}: the vendor refused the credential (${answer.status}${said ? `: ${said}` : ''})`);
    if (answer.status >= 500 && attempt < ATTEMPTS) {
      await backOff(http, attempt, `${what}: the vendor answered ${answer.status}`);
      continue;
    }
    throw new ProviderFailure(`${what}: the vendor answered ${answer.status}${said ? `: ${said}` : ''}`);
  }
}

/** The answer's body: a connection dropped while it is read refuses that day, as one dropped before it would, and so does an answer past its cap. */
export async function textOf(answer: Response, what: string): Promise<string> {
  try {
    return await answer.text();
  } catch (err) {
    throw bodyFailure(err, what);
  }
}

/** A line of a report longer than this is no user's day: the report is refused rather than held. */
const MAX_LINE_CHARS = 1024 * 1024;

/**
 * The answer's lines, as they arrive (an NDJSON report is never held whole: at most one line and the current chunk),
 * each with its number from 1; empty lines skipped. Failures as textOf's.
 */
export async function* linesOf(answer: Response, what: string): AsyncGenerator<{ line: string; n: number }> {
  if (!answer.body) return;
  const decoder = new TextDecoder();
  let pending = '';
  let n = 0;
  const reader = answer.body.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw bodyFailure(err, what);
      }
      pending += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      const lines = pending.split('\n');
      pending = chunk.done ? '' : (lines.pop() ?? '');
      if (pending.length > MAX_LINE_CHARS) throw new ProviderFailure(`${what}: line ${n + lines.length + 1} is longer than ${MAX_LINE_CHARS / 1024 / 1024} MB`);
      for (const line of lines) {
        n += 1;
        if (line.trim() !== '') yield { line, n };
      }
      if (chunk.done) return;
    }
  } finally {
    // A consumer that stopped early (a bad line) leaves the rest unread.
    void reader.cancel().catch(() => undefined);
  }
}

function bodyFailure(err: unknown, what: string): ProviderFailure {
  if (err instanceof AnswerTooLarge) return new ProviderFailure(`${what}: ${err.message}`);
  return new ProviderFailure(`${what}: the answer broke off (${err instanceof Error ? err.message : String(err)})`);
}

/** The answer's JSON, or a failure naming what it was. */
export async function jsonOf(answer: Response, what: string): Promise<unknown> {
  const text = await textOf(answer, what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderFailure(`${what}: the answer is not JSON (${text.slice(0, 100)})`);
  }
}

async function backOff(http: ProviderHttp, attempt: number, why: string): Promise<void> {
  const seconds = 2 ** (attempt - 1);
  http.onWait?.(seconds, why);
  await http.sleep(seconds * 1000);
}

/** Seconds to wait before asking again, when the answer says so: a 429, or GitHub's spent rate limit. */
function rateLimitWait(answer: Response, now: Date): number | null {
  const retryAfter = answer.headers.get('retry-after');
  if (answer.status === 429 || (answer.status === 403 && retryAfter !== null)) return retryAfter === null ? (untilReset(answer, now) ?? 60) : secondsUntil(retryAfter, now);
  if (answer.status === 403 && answer.headers.get('x-ratelimit-remaining') === '0') return untilReset(answer, now) ?? 60;
  return null;
}

/**
 * Seconds until the rate limit resets: GitHub's `x-ratelimit-reset` and GitLab's `RateLimit-Reset` give it in Unix
 * seconds, PagerDuty's `ratelimit-reset` (as the IETF RateLimit headers' draft has it) as the seconds left, which no
 * Unix time in use is as small as.
 */
function untilReset(answer: Response, now: Date): number | null {
  const reset = answer.headers.get('x-ratelimit-reset') ?? answer.headers.get('ratelimit-reset');
  const value = reset === null ? NaN : Number(reset);
  if (!Number.isFinite(value)) return null;
  return Math.max(1, Math.ceil(value < SECONDS_LEFT_BELOW ? value : value - now.getTime() / 1000));
}

/** A reset below this (2001-09-09 as a Unix time) is the seconds left, not a time. */
const SECONDS_LEFT_BELOW = 1_000_000_000;

/** `Retry-After` as seconds or as an HTTP date; at least one second. */
function secondsUntil(value: string, now: Date): number {
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(1, Math.ceil((at - now.getTime()) / 1000)) : 60;
}

/** What the vendor said, short, for the app's last result: never the request's headers. */
async function excerpt(answer: Response): Promise<string> {
  return (await answerExcerpt(answer, 1024)).replace(/\s+/g, ' ').trim().slice(0, 200);
}
