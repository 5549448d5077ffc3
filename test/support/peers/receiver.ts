import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A request the receiver got, as it came. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** How the receiver answers one request: a status (200 by default), after a delay, with headers and a body. */
export interface Answer {
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A webhook receiver on node:http, as a customer would run one: it records every request and answers with the
 * answers queued for its path (then 200). `verify` checks a request with the `standardwebhooks` library, unchanged.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly answers = new Map<string, Answer[]>();
  private server?: http.Server;
  private port = 0;

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await receiver.listen();
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Queues answers for a path, used one per request in order; afterwards the path answers 200. */
  answer(path: string, ...answers: Answer[]): void {
    this.answers.set(path, [...(this.answers.get(path) ?? []), ...answers]);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Stops listening (connections refused) until `listen` again, on the same port. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  async listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const answer = this.answers.get(path)?.shift() ?? {};
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(answer.status ?? 200, answer.headers);
          res.end(answer.body ?? '');
        }, answer.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async close(): Promise<void> {
    await this.down();
  }
}

/** Waits until `ready()` holds, checking every 25 ms; fails with `what` after `timeoutMs`. */
export async function eventually(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The message's payload when its signature verifies with the secret, as a receiver using `standardwebhooks` sees it. */
export function verify(secret: string, received: Pick<Received, 'body' | 'headers'>): unknown {
  return new Webhook(secret).verify(received.body, received.headers);
}
