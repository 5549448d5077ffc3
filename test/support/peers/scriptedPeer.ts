import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of a scripted peer. */
export interface ScriptedAnswer {
  status: number;
  /** Sent as JSON; `text` is sent as it is instead. */
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** The connection drops after these bytes of a longer promised body. */
  cutAfter?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A local stand-in for a vendor's API: each request is answered by `answer` (which sees it whole) and recorded, so a
 * test scripts the vendor's documented answers and checks what the service asked.
 */
export class ScriptedPeer {
  readonly requests: RecordedRequest[] = [];
  base = '';
  private server?: http.Server;

  constructor(private readonly answer: (request: RecordedRequest, url: URL) => ScriptedAnswer) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const recorded = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(recorded);
        const { status, body, text, headers, cutAfter } = this.answer(recorded, new URL(recorded.path, this.base));
        if (cutAfter !== undefined) {
          res.writeHead(status, { 'content-length': String(cutAfter.length + 1000), ...headers });
          res.write(cutAfter, () => res.destroy());
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text ?? (body === undefined ? '' : JSON.stringify(body)));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
