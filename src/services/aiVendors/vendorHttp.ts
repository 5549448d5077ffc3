/**
 * Requests to an AI vendor's API (docs/ai-vendors.md#how-a-pull-goes), as a careful client makes them: a 429's
 * `Retry-After` (seconds or a date) and GitHub's exhausted rate limit (`x-ratelimit-remaining: 0` until
 * `x-ratelimit-reset`) are waited out; a 5xx or a dropped connection is tried again after 1, 2, 4 and 8 seconds; a
 * 401, or a 403 that is not a rate limit, means the credential no longer reads usage.
 */

/** The vendor refused the credential: the app is failing until a new one is stored. */
export class CredentialRefused extends Error {}

/** The vendor's answer could not be used: the pull of that day stops, with this reason. */
export class VendorFailure extends Error {}

export interface VendorHttp {
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  now: () => Date;
  /** Told of each wait, for the CLI's progress. */
  onWait?: (seconds: number, why: string) => void;
}

export const defaultHttp = (): VendorHttp => ({ fetch: globalThis.fetch, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), now: () => new Date() });

const ATTEMPTS = 5;
/** A wait longer than this is not waited: the pull stops and the next one starts where it did. */
const MAX_WAIT_S = 900;
const REQUEST_TIMEOUT_MS = 60_000;

/** A successful answer (2xx, 404 included when asked), after the waits and retries above. */
export async function vendorRequest(http: VendorHttp, url: string, init: RequestInit, what: string, accept404 = false): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let answer: Response;
    try {
      answer = await http.fetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (err) {
      if (attempt >= ATTEMPTS) throw new VendorFailure(`${what}: no answer after ${ATTEMPTS} tries (${err instanceof Error ? err.message : String(err)})`);
      await backOff(http, attempt, `${what}: no answer`);
      continue;
    }
    if (answer.ok || (accept404 && answer.status === 404)) return answer;
    const wait = rateLimitWait(answer, http.now());
    if (wait !== null) {
      await answer.body?.cancel();
      if (attempt >= ATTEMPTS || wait > MAX_WAIT_S) throw new VendorFailure(`${what}: rate limited by the vendor (asked to wait ${wait} s)`);
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
    throw new VendorFailure(`${what}: the vendor answered ${answer.status}${said ? `: ${said}` : ''}`);
  }
}

/** The answer's body: a connection dropped while it is read refuses that day, as one dropped before it would. */
export async function textOf(answer: Response, what: string): Promise<string> {
  try {
    return await answer.text();
  } catch (err) {
    throw new VendorFailure(`${what}: the answer broke off (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The answer's JSON, or a failure naming what it was. */
export async function jsonOf(answer: Response, what: string): Promise<unknown> {
  const text = await textOf(answer, what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new VendorFailure(`${what}: the answer is not JSON (${text.slice(0, 100)})`);
  }
}

async function backOff(http: VendorHttp, attempt: number, why: string): Promise<void> {
  const seconds = 2 ** (attempt - 1);
  http.onWait?.(seconds, why);
  await http.sleep(seconds * 1000);
}

/** Seconds to wait before asking again, when the answer says so: a 429, or GitHub's spent rate limit. */
function rateLimitWait(answer: Response, now: Date): number | null {
  const retryAfter = answer.headers.get('retry-after');
  if (answer.status === 429 || (answer.status === 403 && retryAfter !== null)) return retryAfter === null ? 60 : secondsUntil(retryAfter, now);
  if ((answer.status === 403 || answer.status === 429) && answer.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(answer.headers.get('x-ratelimit-reset'));
    return Number.isFinite(reset) ? Math.max(1, Math.ceil(reset - now.getTime() / 1000)) : 60;
  }
  return null;
}

/** `Retry-After` as seconds or as an HTTP date; at least one second. */
function secondsUntil(value: string, now: Date): number {
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(1, Math.ceil((at - now.getTime()) / 1000)) : 60;
}

/** What the vendor said, short, for the app's last result: never the request's headers. */
async function excerpt(answer: Response): Promise<string> {
  const text = (await answer.text().catch(() => '')).replace(/\s+/g, ' ').trim();
  return text.slice(0, 200);
}
