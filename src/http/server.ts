import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { HeadRefusal, HeadRefusalKind, HeadRefuser, MAX_HEAD_BYTES } from '../wire/headRefusals';

export interface ServerTimeouts {
  /** How long an idle keep-alive connection stays open: longer than any load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** How long a whole request may take to arrive; must exceed the time allowed for its head. */
  requestTimeoutMs: number;
}

/** A request line longer than this is reported as a long URL (414) rather than long headers (431). */
const MAX_REQUEST_LINE_BYTES = 8 * 1024;
/** How often Node looks for heads and requests past their timeouts: the most a deadline is overrun by. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
};

/**
 * The HTTP server every process and test serves the app with. Timeouts are set together:
 * - keep-alive idle: `keepAliveTimeoutMs` (a proxy must close first, so it never reuses a socket we closed);
 * - head: one second more, as Node requires, so a kept-alive socket's next head is not cut short; a head still
 *   incomplete then is refused and its connection closed, however slowly it trickles in;
 * - silence: a socket that sends nothing for as long as a head may take is closed, including one that never
 *   sends a byte (Node's own timers only start at the first byte);
 * - whole request: `requestTimeoutMs`.
 * Requests Node refuses before express sees them (oversized heads, malformed requests, timeouts) are answered
 * by `refuse`, in the terms of the surface their path names, and the connection is closed.
 */
export function createHttpServer(app: Express, timeouts: ServerTimeouts, refuse: HeadRefuser): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEAD_BYTES, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, app);
  const headersTimeoutMs = timeouts.keepAliveTimeoutMs + 1_000;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(timeouts.requestTimeoutMs, headersTimeoutMs);
  server.timeout = headersTimeoutMs;
  server.on('clientError', (err: ClientError, socket: Socket) => answerClientError(err, socket, refuse));
  return server;
}

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

function answerClientError(err: ClientError, socket: Socket, refuse: HeadRefuser): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const head = err.rawPacket?.toString('latin1') ?? '';
  const refusal: HeadRefusal = { kind: kindOf(err, head), path: requestPath(head), clientIp: socket.remoteAddress ?? 'unknown' };
  refuse(refusal)
    .then((answer) => {
      if (!socket.writable) return socket.destroy();
      const headers = { ...answer.headers, 'Content-Length': String(Buffer.byteLength(answer.body)), 'Cache-Control': 'no-store', Connection: 'close' };
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      // Ended and then destroyed: a client that keeps sending would otherwise hold its half of the socket open.
      socket.end(`HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Error'}\r\n${lines.join('')}\r\n${answer.body}`, () => socket.destroy());
    })
    .catch(() => socket.destroy());
}

function kindOf(err: ClientError, head: string): HeadRefusalKind {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW': {
      const lineEnd = head.indexOf('\r\n');
      return lineEnd === -1 || lineEnd > MAX_REQUEST_LINE_BYTES ? 'url_too_long' : 'headers_too_large';
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'timeout';
    default:
      return 'malformed';
  }
}

/** `GET /scim/v2/Users?… HTTP/1.1` → `/scim/v2/Users?…`, as far as it arrived. */
function requestPath(head: string): string {
  const line = head.slice(0, head.indexOf('\r\n') === -1 ? head.length : head.indexOf('\r\n'));
  return line.split(' ')[1] ?? '';
}

/** Chooses the surface by the path's prefix (case-insensitive, as express routes); `fallback` for the rest. */
export function refuserByPath(surfaces: [prefix: string, refuse: HeadRefuser][], fallback: HeadRefuser): HeadRefuser {
  return (refusal) => {
    const path = refusal.path.toLowerCase();
    const match = surfaces.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`));
    return (match?.[1] ?? fallback)(refusal);
  };
}
