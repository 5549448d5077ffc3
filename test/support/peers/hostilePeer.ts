import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the peer does with one request. */
export type Misbehaviour =
  /** A redirect (302 unless said) to this absolute URL. */
  | { redirect: string; status?: number }
  /**
   * An answer of `bytes` bytes, made lazily by repeating `chunk` (the last one cut to fit) and written only as fast as
   * the client reads: never held. `declareLength` sends its Content-Length, else it is chunked.
   */
  | { stream: { bytes: number; chunk: string; prefix?: string; declareLength?: boolean; headers?: Record<string, string> } }
  /** A plain answer. */
  | { status: number; body: string | Buffer; headers?: Record<string, string> };

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * A peer that misbehaves on purpose, for the outgoing calls' rules (docs/operating.md#outgoing-calls): it redirects
 * elsewhere, or answers without end. Every request is recorded with its headers, so a test sees what reached it (a
 * credential carried to another host, or nothing at all); a streamed answer counts the bytes it could write before
 * the client hung up.
 */
export class HostilePeer {
  readonly requests: SeenRequest[] = [];
  base = '';
  private server?: http.Server;
  private streamed: Promise<number>[] = [];

  constructor(private readonly behave: (request: SeenRequest) => Misbehaviour) {}

  /** The bytes each streamed answer wrote before it ended or its client went away, once all have. */
  sent(): Promise<number[]> {
    return Promise.all(this.streamed);
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const seen = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
        this.requests.push(seen);
        const how = this.behave(seen);
        if ('redirect' in how) return void res.writeHead(how.status ?? 302, { location: how.redirect }).end();
        if ('status' in how) return void res.writeHead(how.status, how.headers).end(how.body);
        this.streamed.push(streamLazily(res, how.stream));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function streamLazily(res: http.ServerResponse, how: Extract<Misbehaviour, { stream: unknown }>['stream']): Promise<number> {
  return new Promise((resolve) => {
    const prefix = Buffer.from(how.prefix ?? '');
    const chunk = Buffer.from(how.chunk);
    res.writeHead(200, { ...(how.declareLength ? { 'content-length': String(how.bytes) } : {}), ...how.headers });
    let sent = 0;
    let gone = false;
    res.on('close', () => {
      gone = true;
      resolve(sent);
    });
    const next = () => {
      while (!gone && sent < how.bytes) {
        const piece = sent === 0 && prefix.length ? prefix : chunk;
        const part = piece.subarray(0, Math.min(piece.length, how.bytes - sent));
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', next);
      }
      if (!gone) res.end();
    };
    next();
  });
}
