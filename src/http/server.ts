import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import type { ErrorEnvelope } from '../wire/envelopes';

export interface ServerTimeouts {
  /** How long an idle keep-alive connection stays open: longer than any load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** How long a whole request may take to arrive; must exceed the time allowed for its head. */
  requestTimeoutMs: number;
}

/** Node's parser limit on a request head (URL and headers together). */
const MAX_HEAD_BYTES = 16 * 1024;
/** A request line longer than this is reported as a long URL (414) rather than long headers (431). */
const MAX_REQUEST_LINE_BYTES = 8 * 1024;

/**
 * The HTTP server every process and test serves the app with. Timeouts are set together:
 * - keep-alive idle: `keepAliveTimeoutMs` (a proxy must close first, so it never reuses a socket we closed);
 * - head: one second more, as Node requires, so a kept-alive socket's next head is not cut short;
 * - silence: a socket that sends nothing for as long as a head may take is closed, including one that never
 *   sends a byte (Node's own timers only start at the first byte);
 * - whole request: `requestTimeoutMs`.
 * Requests Node refuses before express sees them (oversized heads, malformed requests, timeouts) are answered
 * in the error envelope too.
 */
export function createHttpServer(app: Express, timeouts: ServerTimeouts): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEAD_BYTES }, app);
  const headersTimeoutMs = timeouts.keepAliveTimeoutMs + 1_000;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(timeouts.requestTimeoutMs, headersTimeoutMs);
  server.timeout = headersTimeoutMs;
  server.on('clientError', answerClientError);
  return server;
}

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

function answerClientError(err: ClientError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = describeClientError(err);
  const body = JSON.stringify({ status: 'error', error: { code: 'VALIDATION_ERROR', message } } satisfies ErrorEnvelope);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}

function describeClientError(err: ClientError): [number, string, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW': {
      const head = err.rawPacket?.toString('latin1') ?? '';
      const lineEnd = head.indexOf('\r\n');
      if (lineEnd === -1 || lineEnd > MAX_REQUEST_LINE_BYTES) {
        return [414, 'URI Too Long', `Request URL is too long: the URL and headers together may be at most ${MAX_HEAD_BYTES / 1024} KB; send fewer or shorter query parameters`];
      }
      return [431, 'Request Header Fields Too Large', `Request headers are too large: the URL and headers together may be at most ${MAX_HEAD_BYTES / 1024} KB; check the Authorization header and drop unneeded headers`];
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'The request did not arrive in time; send the whole request without pausing'];
    default:
      return [400, 'Bad Request', 'Malformed HTTP request; send a valid HTTP/1.1 request'];
  }
}
