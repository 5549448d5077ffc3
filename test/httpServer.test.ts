import net from 'node:net';
import { startTestApp, TestApp, DEMO } from './support/harness';
import { loadConfig } from '../src/config';
import { createHttpServer } from '../src/http/server';

/**
 * The HTTP server around the app (src/http/server.ts): what Node refuses before express sees a request is
 * answered in the error envelope, silent connections are closed, and the keep-alive idle timeout outlasts a
 * load balancer's.
 */

let t: TestApp;
let port: number;
beforeAll(async () => {
  // Short timeouts so the connection tests take seconds; the defaults are checked on their own below.
  t = await startTestApp({ KEEP_ALIVE_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '5000' });
  port = Number(new URL(await t.listen()).port);
});
afterAll(async () => t.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes and reads the answer until the server closes the connection. */
function exchange(bytes: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])),
        body: rest.join('\r\n\r\n'),
      });
    });
  });
}

function expectEnvelope(res: RawResponse, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const body = JSON.parse(res.body);
  expect(body).toEqual({ status: 'error', error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(message) } });
}

describe('requests Node refuses before express', () => {
  const long = 'a'.repeat(20_000);

  test('a URL over 16 KB → 414 in the error envelope', async () => {
    expectEnvelope(await exchange(`GET /v1/users?fields=${long} HTTP/1.1\r\nHost: x\r\n\r\n`), 414, /^Request URL is too long/);
  });

  test('a header over 16 KB → 431 in the error envelope', async () => {
    expectEnvelope(await exchange(`GET /v1/users HTTP/1.1\r\nHost: x\r\nX-Padding: ${long}\r\n\r\n`), 431, /^Request headers are too large/);
  });

  test('a token over 16 KB → 431 in the error envelope', async () => {
    expectEnvelope(await exchange(`GET /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer plat_${long}\r\n\r\n`), 431, /check the Authorization header/);
  });

  test('a malformed request → 400 in the error envelope', async () => {
    expectEnvelope(await exchange('GET /v1/users HTTP/1.1\r\nHost x\r\n\r\n'), 400, /^Malformed HTTP request/);
  });

  test('a request just under the limit is served as usual', async () => {
    const token = await t.token();
    const res = await exchange(`GET /v1/users/${DEMO.users.ada} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Padding: ${'a'.repeat(15_000)}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
  });
});

/** Resolves with how long the server took to close a connection that sent `bytes` (or nothing). */
function closedAfter(bytes: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => {
      if (bytes !== undefined) socket.write(bytes);
    });
    socket.on('data', () => undefined);
    socket.on('error', reject);
    socket.on('close', () => resolve(Date.now() - started));
  });
}

describe('connection timeouts (KEEP_ALIVE_TIMEOUT_MS=1000 here: a head must arrive within 2 s)', () => {
  test('a connection that never sends a byte is closed', async () => {
    const ms = await closedAfter(undefined);
    expect(ms).toBeGreaterThanOrEqual(1_500);
    expect(ms).toBeLessThan(15_000);
  });

  test('a connection that stops halfway through its head is closed', async () => {
    expect(await closedAfter('GET /v1/users HTTP/1.1\r\nHo')).toBeLessThan(15_000);
  });

  test('an idle keep-alive connection stays open past a second, then is closed', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let closedAt = 0;
    let answeredAt = 0;
    socket.on('data', () => {
      answeredAt ||= Date.now();
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('close', () => {
      closedAt = Date.now();
    });
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 800));
    expect(answeredAt).toBeGreaterThan(0);
    expect(closedAt).toBe(0);
    await closed;
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(900);
  });
});

describe('timeout settings', () => {
  test('defaults: keep-alive 65 s (longer than a load balancer’s 60 s); head and request timeouts above it', () => {
    const config = loadConfig({});
    expect(config.KEEP_ALIVE_TIMEOUT_MS).toBe(65_000);
    const defaults = createHttpServer(t.runtime.app, { keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS });
    expect(defaults.keepAliveTimeout).toBe(65_000);
    expect(defaults.headersTimeout).toBe(66_000);
    expect(defaults.timeout).toBe(66_000);
    expect(defaults.requestTimeout).toBe(120_000);
  });

  test('the answer announces the keep-alive timeout', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.headers.get('keep-alive')).toBe('timeout=1');
  });

  test('bad values are refused at start-up, naming the variable', () => {
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '0' })).toThrow(/KEEP_ALIVE_TIMEOUT_MS must be a positive integer/);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/REQUEST_TIMEOUT_MS must be a positive integer/);
  });
});
