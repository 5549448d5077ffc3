/**
 * Every call this service makes to another's server goes through here (docs/operating.md#outgoing-calls): the AI
 * vendors' pulls, the importers, the identity provider, the outgoing webhooks. What each may reach is decided once:
 * - https only; plain http only to a loopback or private address, and only under the operator's allowance
 *   (WEBHOOK_ALLOW_PRIVATE=1, for tests and a private deployment). Webhooks alone take http to any address: their
 *   receiver chose it, and the body is signed, not secret.
 * - The address actually dialled is checked by the address guard: no loopback, private, link-local or metadata
 *   address unless allowed, at every connection and every redirect's hop.
 * - Redirects are followed only within the origin asked (the request's headers may carry a credential, which must
 *   never reach another host), except for a request that carries none (a vendor's signed report link), whose every hop
 *   is checked as the first; the caller may also take the 3xx as the answer.
 * - Every answer is streamed and cut off at a cap: a body larger than it errors with AnswerTooLarge while being read,
 *   never held whole; a declared length over the cap errors before a byte is read. Compressed answers count their
 *   decompressed bytes.
 * The answer is a fetch `Response`, so callers and libraries (openid-client) read it as they read fetch's.
 */
import http from 'node:http';
import https from 'node:https';
import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import zlib from 'node:zlib';
import type { Config } from '../config';
import { AddressRule, assertAllowedHost, assertAllowedLiteral, guardedLookup, hostOf, RefusedDestination } from './addressGuard';

export { RefusedDestination } from './addressGuard';

/** The operator's one allowance for loopback and private addresses; read only through privateAddressesAllowed. */
export const PRIVATE_ALLOWANCE = 'WEBHOOK_ALLOW_PRIVATE';

/** Whether the operator lets calls reach loopback and private addresses (and plain http to them). */
export function privateAddressesAllowed(config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE'>): boolean {
  return config.WEBHOOK_ALLOW_PRIVATE;
}

/** What every outgoing call obeys. */
export interface OutboundPolicy {
  /** privateAddressesAllowed: loopback and private addresses pass, and plain http to them. */
  allowPrivate: boolean;
  /** The most bytes of a JSON answer (a page of a vendor's or a tracker's API, an identity provider's document). */
  answerMaxBytes: number;
  /** The most bytes of a report file, read line by line (Copilot's NDJSON). */
  reportMaxBytes: number;
}

const MB = 1024 * 1024;

export function outboundPolicy(config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE' | 'OUTBOUND_ANSWER_MAX_MB' | 'OUTBOUND_REPORT_MAX_MB'>): OutboundPolicy {
  return { allowPrivate: privateAddressesAllowed(config), answerMaxBytes: config.OUTBOUND_ANSWER_MAX_MB * MB, reportMaxBytes: config.OUTBOUND_REPORT_MAX_MB * MB };
}

/** The answer's body went past its cap: it was cut off there, and nothing of it may be used. */
export class AnswerTooLarge extends Error {}

export type RequestBody = string | Uint8Array | ArrayBuffer | URLSearchParams;

export interface OutboundInit {
  method?: string;
  headers?: Record<string, string>;
  body?: RequestBody | null;
  /** Ends the call, the answer's body included; without one, a minute. */
  signal?: AbortSignal | null;
  /** Which cap the answer has: a JSON answer's (the default) or a report file's. */
  answer?: 'json' | 'report';
  /**
   * `same-origin` (the default): a redirect is followed within the origin asked, and one elsewhere is refused.
   * `anywhere`: for a request that carries no credential, every hop checked as the first. `manual`: the 3xx is the answer.
   */
  redirects?: 'same-origin' | 'anywhere' | 'manual';
  /** Webhooks only: plain http to any address the guard passes (the receiver chose the URL; the body is signed). */
  plainHttpAnywhere?: boolean;
}

const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 60_000;
const USER_AGENT = 'platform-api';
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** The call, with the rules above; rejects with RefusedDestination when where it would go is refused. */
export async function outboundFetch(policy: OutboundPolicy, target: string | URL, init: OutboundInit = {}): Promise<Response> {
  const signal = init.signal ?? AbortSignal.timeout(DEFAULT_TIMEOUT_MS);
  const limit = init.answer === 'report' ? { bytes: policy.reportMaxBytes, setting: 'OUTBOUND_REPORT_MAX_MB' } : { bytes: policy.answerMaxBytes, setting: 'OUTBOUND_ANSWER_MAX_MB' };
  const mode = init.redirects ?? 'same-origin';
  let url = new URL(target);
  let method = (init.method ?? 'GET').toUpperCase();
  let headers = requestHeaders(init.headers, init.body);
  let body = init.body == null ? undefined : bytesOf(init.body);
  for (let hop = 0; ; hop++) {
    const rule = destinationRule(url, policy, init.plainHttpAnywhere ?? false);
    const res = await exchange(url, method, headers, body, rule, signal);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (mode === 'manual' || !REDIRECTS.has(status) || location === undefined) return answerOf(res, url, method, limit, signal);
    res.destroy();
    const next = new URL(location, url);
    if (hop >= MAX_REDIRECTS) throw new RefusedDestination(`${url.origin} redirected more than ${MAX_REDIRECTS} times`);
    if (mode === 'same-origin' && next.origin !== url.origin) {
      throw new RefusedDestination(`${url.origin} redirected to ${next.origin}${next.pathname}, another origin: not followed, so the request's credential is not sent there (give the final address instead)`);
    }
    // As fetch does: a 303, or a 301 or 302 after a POST, is followed with a GET and no body.
    if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type' && name !== 'content-length'));
    }
    url = next;
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The address rule for a URL, or RefusedDestination when its form is refused: https; plain http only under the
 * allowance and then only to addresses that are not public (or, for webhooks, any address the guard passes).
 */
export function destinationRule(url: URL, policy: Pick<OutboundPolicy, 'allowPrivate'>, plainHttpAnywhere = false): AddressRule {
  if (url.username || url.password) throw new RefusedDestination(`${url.protocol}//${url.host} holds a user name or password; credentials go in headers`);
  if (url.protocol === 'https:') return { allowPrivate: policy.allowPrivate, privateOnly: false };
  if (url.protocol !== 'http:') throw new RefusedDestination(`${url.protocol}// is not called; outgoing calls use https://`);
  if (plainHttpAnywhere) return { allowPrivate: policy.allowPrivate, privateOnly: false };
  if (!policy.allowPrivate) {
    throw new RefusedDestination(`${url.origin} is plain http; outgoing calls use https:// (http:// only to a loopback or private address, when ${PRIVATE_ALLOWANCE}=1)`);
  }
  return { allowPrivate: true, privateOnly: true };
}

/** A URL checked before it is stored or used (a base URL given on the command line): its form, then every address its host resolves to. */
export async function checkDestination(text: string, policy: Pick<OutboundPolicy, 'allowPrivate'>): Promise<void> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedDestination(`'${text}' is not an absolute URL`);
  }
  await assertAllowedHost(hostOf(url), destinationRule(url, policy));
}

/** The first `bytes` of an answer's body as text (an excerpt for a log or a message), the rest never read; '' when it cannot be read. */
export async function answerExcerpt(answer: Response, bytes: number): Promise<string> {
  if (!answer.body) return '';
  const reader = answer.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // What arrived before the break is the excerpt.
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, bytes).toString('utf8');
}

function requestHeaders(given: Record<string, string> | undefined, body: RequestBody | null | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(given ?? {})) headers[name.toLowerCase()] = value;
  // The caps count decompressed bytes, so asking for compression costs no safety.
  headers['accept-encoding'] = 'gzip, deflate, br';
  if (!headers['content-type'] && typeof body === 'string') headers['content-type'] = 'text/plain;charset=UTF-8';
  if (!headers['content-type'] && body instanceof URLSearchParams) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
  return headers;
}

function bytesOf(body: RequestBody): Buffer {
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** One request and its answer's head; the body is left in the stream. */
function exchange(url: URL, method: string, headers: Record<string, string>, body: Buffer | undefined, rule: AddressRule, signal: AbortSignal): Promise<http.IncomingMessage> {
  assertAllowedLiteral(hostOf(url), rule);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method,
      // A connection of its own: the address checked at its lookup is the one this request goes to.
      agent: false,
      lookup: guardedLookup(rule),
      headers: body === undefined ? headers : { ...headers, 'content-length': String(body.length) },
    });
    const abort = () => req.destroy(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    req.on('error', (err) => {
      signal.removeEventListener('abort', abort);
      reject(err);
    });
    req.on('response', (res) => {
      signal.removeEventListener('abort', abort);
      resolve(res);
    });
    req.end(body);
  });
}

/** The answer as fetch's Response, its body streamed through the decoder and the cap. */
function answerOf(res: http.IncomingMessage, url: URL, method: string, limit: { bytes: number; setting: string }, signal: AbortSignal): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new Error(`${url.origin} answered with HTTP status ${status}`);
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  let body: WebReadableStream | null = null;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) res.resume();
  else {
    const decoder = decoderFor(headers.get('content-encoding'));
    if (decoder) {
      headers.delete('content-encoding');
      headers.delete('content-length');
    }
    body = Readable.toWeb(capped(res, decoder, url, limit, signal));
  }
  // Node's web stream is the body Node's Response takes; the pages' check (tsconfig.pages.json) reads this
  // file with the DOM's library, whose ReadableStream type is another, so the types cannot say so.
  const response = new Response(body as unknown as ConstructorParameters<typeof Response>[0], { status, statusText: res.statusMessage, headers });
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

function decoderFor(encoding: string | null): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

/** The body, decoded, erroring with AnswerTooLarge past the cap (at once when its declared length is past it), or with the signal's reason. */
function capped(res: http.IncomingMessage, decoder: Transform | undefined, url: URL, limit: { bytes: number; setting: string }, signal: AbortSignal): Readable {
  const tooLarge = () => new AnswerTooLarge(`${url.origin}${url.pathname} sent more than ${describeBytes(limit.bytes)}: the answer was cut off there and is not used (${limit.setting} sets the limit)`);
  let read = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      if (read > limit.bytes) return done(tooLarge());
      done(null, chunk);
    },
  });
  const abort = () => res.destroy(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  pipeline(decoder ? [res, decoder, cap] : [res, cap], () => signal.removeEventListener('abort', abort));
  const declared = Number(res.headers['content-length']);
  // Once the Response holds the stream (a stream that failed before it is one the Response refuses).
  if (!decoder && Number.isFinite(declared) && declared > limit.bytes) process.nextTick(() => cap.destroy(tooLarge()));
  return cap;
}

const describeBytes = (bytes: number) => (bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`);
