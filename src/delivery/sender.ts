import { answerExcerpt, OutboundPolicy, outboundFetch, RefusedDestination } from '../outbound/outboundFetch';
import { parseEndpointUrl } from './endpointUrl';

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
  outbound: OutboundPolicy;
}

/** At most this much of an answer is read; the rest is never downloaded. */
export const EXCERPT_BYTES = 1024;
const USER_AGENT = 'platform-api-webhooks/1';

/**
 * POSTs one message, as an outgoing call (src/outbound: the address guard at connect time). The whole exchange
 * (connect, answer, the excerpt) has `timeoutMs`; redirects are answers, not followed (a 3xx is a failure naming
 * where it pointed).
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
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const url = parseEndpointUrl(target);
    const answer = await outboundFetch(options.outbound, url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body,
      signal,
      redirects: 'manual',
      plainHttpAnywhere: true,
    });
    const statusCode = answer.status;
    const excerpt = (await answerExcerpt(answer, EXCERPT_BYTES)) || null;
    if (statusCode >= 200 && statusCode < 300) return { delivered: true, gone: false, statusCode, error: null, excerpt, durationMs: Date.now() - started };
    if (statusCode === 410) return { ...failed('410 Gone: the receiver asked for no more deliveries', statusCode, excerpt), gone: true };
    if (statusCode >= 300 && statusCode < 400) {
      return failed(`redirect to ${answer.headers.get('location') ?? '(no location)'} not followed; subscribe the final URL instead`, statusCode, excerpt);
    }
    return failed(`answered ${statusCode}`, statusCode, excerpt);
  } catch (err) {
    return failed(describe(err, signal, options.timeoutMs));
  }
}

function describe(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted && err === signal.reason) return `no answer within ${timeoutMs} ms`;
  if (err instanceof RefusedDestination) return `refused: ${err.message}`;
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
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
  const message = typeof err === 'object' && err !== null && 'message' in err ? err.message : undefined;
  return (code && messages[code]) ?? `request failed: ${message ?? String(err)}`.slice(0, 300);
}
