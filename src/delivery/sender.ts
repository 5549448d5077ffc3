import http from 'node:http';
import https from 'node:https';
import { assertPublicLiteral, ForbiddenAddressError, guardedLookup, parseEndpointUrl } from './addressGuard';

/** How one POST to an endpoint ended, as recorded in `webhook_attempts`. */
export interface AttemptOutcome {
  /** A 2xx answer. */
  delivered: boolean;
  /** 410 Gone: the receiver asks for no more deliveries. */
  gone: boolean;
  statusCode: number | null;
  /** Why there was no 2xx when there was no answer to say it (timeout, refused connection, forbidden address, redirect). */
  error: string | null;
  /** The start of the answer's body, for `webhooks deliveries`. */
  excerpt: string | null;
  durationMs: number;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** At most this much of an answer is read; the rest is never downloaded. */
export const EXCERPT_BYTES = 1024;
const USER_AGENT = 'platform-api-webhooks/1';

/**
 * POSTs one message. The whole exchange (connect, answer, the excerpt) has `timeoutMs`; redirects are answers,
 * not followed (a 3xx is a failure naming where it pointed); the address is checked at connect time.
 */
export async function postMessage(target: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptOutcome> {
  const started = Date.now();
  const failed = (error: string, statusCode: number | null = null, excerpt: string | null = null): AttemptOutcome => ({
    delivered: false,
    gone: false,
    statusCode,
    error,
    excerpt,
    durationMs: Date.now() - started,
  });
  let url: URL;
  try {
    const checked = parseEndpointUrl(target);
    url = checked.url;
    assertPublicLiteral(checked.host, options.allowPrivate);
  } catch (err) {
    return failed(`refused: ${(err as Error).message}`);
  }
  try {
    const answer = await exchange(url, body, headers, options);
    const { statusCode, excerpt } = answer;
    if (statusCode >= 200 && statusCode < 300) return { delivered: true, gone: false, statusCode, error: null, excerpt, durationMs: Date.now() - started };
    if (statusCode === 410) return { ...failed('410 Gone: the receiver asked for no more deliveries', statusCode, excerpt), gone: true };
    if (statusCode >= 300 && statusCode < 400) {
      return failed(`redirect to ${answer.location ?? '(no location)'} not followed; subscribe the final URL instead`, statusCode, excerpt);
    }
    return failed(`answered ${statusCode}`, statusCode, excerpt);
  } catch (err) {
    return failed(describe(err, options.timeoutMs));
  }
}

interface Answer {
  statusCode: number;
  location?: string;
  excerpt: string | null;
}

function exchange(url: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      agent: false,
      lookup: guardedLookup(options.allowPrivate),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': USER_AGENT },
    });
    const timer = setTimeout(() => req.destroy(new TimeoutError()), options.timeoutMs);
    const done = (fn: () => void) => {
      clearTimeout(timer);
      fn();
    };
    req.on('error', (err) => done(() => reject(err)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
        done(() => resolve({ statusCode: res.statusCode ?? 0, location: res.headers.location, excerpt: excerpt || null }));
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= EXCERPT_BYTES) finish();
      });
      res.on('end', finish);
      res.on('error', (err) => done(() => reject(err)));
    });
    req.end(body);
  });
}

class TimeoutError extends Error {}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof TimeoutError) return `no answer within ${timeoutMs} ms`;
  if (err instanceof ForbiddenAddressError) return `refused: ${err.message}`;
  const code = (err as NodeJS.ErrnoException).code;
  const messages: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host not found (DNS lookup failed)',
    EHOSTUNREACH: 'host unreachable',
    ETIMEDOUT: 'connection timed out',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  };
  return (code && messages[code]) ?? `request failed: ${(err as Error).message ?? String(err)}`.slice(0, 300);
}
