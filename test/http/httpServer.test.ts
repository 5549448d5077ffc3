import net from 'node:net';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { loadConfig } from '../../src/config';
import { createHttpServer } from '../../src/http/server';

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

function expectEnvelope(res: RawResponse, status: number, code: string, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const body = JSON.parse(res.body);
  expect(body).toEqual({ status: 'error', error: { code, message: expect.stringMatching(message) } });
  // The spec: every response carries the rate-limit headers (here those of the client-IP tier).
  expect(Number(res.headers['x-ratelimit-limit'])).toBeGreaterThan(0);
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
}

describe('requests Node refuses before express', () => {
  const long = 'a'.repeat(20_000);

  test('a URL over 16 KB → 414 URI_TOO_LONG in the error envelope, with the rate-limit headers', async () => {
    expectEnvelope(await exchange(`GET /v1/users?fields=${long} HTTP/1.1\r\nHost: x\r\n\r\n`), 414, 'URI_TOO_LONG', /^Request URL is too long/);
  });

  test('a header over 16 KB → 431 HEADERS_TOO_LARGE in the error envelope', async () => {
    expectEnvelope(await exchange(`GET /v1/users HTTP/1.1\r\nHost: x\r\nX-Padding: ${long}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE', /^Request headers are too large/);
  });

  test('a token over 16 KB → 431 in the error envelope', async () => {
    expectEnvelope(await exchange(`GET /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer plat_${long}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE', /check the Authorization header/);
  });

  test('a malformed request → 400 VALIDATION_ERROR in the error envelope', async () => {
    expectEnvelope(await exchange('GET /v1/users HTTP/1.1\r\nHost x\r\n\r\n'), 400, 'VALIDATION_ERROR', /^Malformed HTTP request/);
  });

  test('each refusal spends a point of the client-IP tier', async () => {
    const first = await exchange(`GET /v1/users?fields=${long} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const second = await exchange(`GET /v1/users?fields=${long} HTTP/1.1\r\nHost: x\r\n\r\n`);
    for (const res of [first, second]) expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
  });

  test.each([
    ['a URL', (path: string) => `GET ${path}?filter=${long} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
    ['headers', (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Padding: ${long}\r\n\r\n`, 431],
  ])('on /scim/v2, %s over 16 KB is a SCIM error body', async (_what, request, status) => {
    for (const path of ['/scim/v2/Users', '/SCIM/v2/Groups']) {
      const res = await exchange(request(path));
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
      expect(JSON.parse(res.body)).toEqual({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: String(status),
        detail: expect.stringMatching(/URL and headers together may be at most 16 KB/),
      });
      expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    }
  });

  test('on /ingest, a URL over 16 KB is the ingest error envelope', async () => {
    const res = await exchange(`POST /ingest/github/gapp_x?x=${long} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectEnvelope(res, 414, 'URI_TOO_LONG', /^Request URL is too long/);
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

  test('connections trickling a header line every 500 ms, never ending their head, are all closed after the head timeout', async () => {
    // Half-open sockets, as a hostile client keeps them: only the server closing its side ends them.
    const trickle = () =>
      new Promise<{ ms: number; answer: string }>((resolve, reject) => {
        const started = Date.now();
        const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => socket.write('GET /v1/users HTTP/1.1\r\nHost: x\r\n'));
        const timer = setInterval(() => socket.writable && socket.write(`X-Trickle: ${Date.now()}\r\n`), 500);
        let answer = '';
        socket.on('data', (c: Buffer) => (answer += c.toString()));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearInterval(timer);
          resolve({ ms: Date.now() - started, answer });
        });
        setTimeout(() => reject(new Error('still open after 15 s')), 15_000).unref();
      });
    const results = await Promise.all(Array.from({ length: 20 }, trickle));
    for (const { ms, answer } of results) {
      expect(ms).toBeGreaterThanOrEqual(1_900);
      expect(ms).toBeLessThan(5_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
      expect(answer).toContain('"code":"REQUEST_TIMEOUT"');
    }
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
    const refuse = async () => ({ status: 400, headers: {}, body: '' });
    const defaults = createHttpServer(t.runtime.app, { keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS }, refuse);
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
