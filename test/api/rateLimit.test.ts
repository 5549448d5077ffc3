import net from 'node:net';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createClient } from 'redis';
import { expectError } from '../support/assertions';
import { startTestApp, TestApp, DEMO, SERVICES } from '../support/harness';
import { generateToken } from '../../src/auth/tokenFormat';
import { User } from '../../db/models';
import { sleep } from '../support/common';

/**
 * Rate limits (docs/api.md#rate-limits, docs/api.md#tokens-limits-and-headers): two tiers per user (all of a user's tokens share them), failed
 * authentication per client IP, X-RateLimit-* on every /v1 and /trpc response (the tier with the fewest
 * requests left, the hourly one on a tie), Retry-After on 429, and service through a Redis outage.
 *
 * The apps are started one describe block at a time (the models are bound to the latest runtime's database).
 * On CI's Redis run every app below uses Redis (with a key prefix of its own) unless it overrides REDIS_URL.
 */

const nowSeconds = () => Date.now() / 1000;

interface Headers {
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: number | undefined;
}

/** The rate-limit headers, checked to be present and integers. */
function rl(res: request.Response): Headers {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect({ header: name, value: res.headers[name] }).toEqual({ header: name, value: expect.stringMatching(/^\d+$/) });
  }
  const retryAfter = res.headers['retry-after'];
  if (retryAfter !== undefined) expect(retryAfter).toMatch(/^\d+$/);
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
    retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
  };
}

function expectRateLimited(res: request.Response, limit: number): Headers {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    status: 'error',
    error: { code: 'RATE_LIMITED', message: expect.stringMatching(new RegExp(`^Rate limit of ${limit} requests exceeded; retry after \\d+ seconds$`)) },
  });
  const h = rl(res);
  expect(h.limit).toBe(limit);
  expect(h.remaining).toBe(0);
  expect(h.retryAfter).toBeGreaterThanOrEqual(1);
  expect(res.body.error.message).toContain(`retry after ${h.retryAfter} seconds`);
  return h;
}

const trpcPath = (userId: string) => `/trpc/users.get?input=${encodeURIComponent(JSON.stringify({ user_id: userId }))}`;

describe('per-user limits (per minute 5, per hour 8: the minute tier has fewer left)', () => {
  let t: TestApp;
  // TRUST_PROXY lets these tests act as several client IPs through X-Forwarded-For.
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PER_HOUR: '8', TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => t.close());

  test('exact boundary: requests 1..5 pass with Remaining 4..0, request 6 is 429 with Retry-After', async () => {
    const token = await t.token({ user: DEMO.users.ada });
    const started = nowSeconds();
    for (let i = 1; i <= 5; i++) {
      const res = await t.get(`/v1/users/${DEMO.users.ada}`, token);
      expect(res.status).toBe(200);
      const h = rl(res);
      expect({ request: i, limit: h.limit, remaining: h.remaining, retryAfter: h.retryAfter }).toEqual({
        request: i,
        limit: 5,
        remaining: 5 - i,
        retryAfter: undefined,
      });
      // Unix epoch seconds, in the future, within the minute window.
      expect(h.reset).toBeGreaterThan(started);
      expect(h.reset).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 60);
    }
    const res = await t.get(`/v1/users/${DEMO.users.ada}`, token);
    const h = expectRateLimited(res, 5);
    expect(h.retryAfter).toBeLessThanOrEqual(60);
    expect(h.reset).toBeGreaterThan(started);
    expect(h.reset).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 60);
    // Still limited afterwards.
    expectRateLimited(await t.get(`/v1/users/${DEMO.users.ada}`, token), 5);
  });

  test('the headers are on 200, 400, 403, 404 (unknown record and unknown route) and 429 alike', async () => {
    const token = await t.token({ user: DEMO.users.grace });
    const cases: [string, number][] = [
      [`/v1/users/${DEMO.users.grace}`, 200],
      ['/v1/users?per_page=101', 400],
      [`/v1/organizations/${DEMO.orgs.globex}`, 403],
      ['/v1/users/usr_does_not_exist', 404],
      ['/v1/no-such-route', 404],
    ];
    for (const [i, [path, status]] of cases.entries()) {
      const res = await t.get(path, token);
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.body.status).toBe(status === 200 ? 'success' : 'error');
      const h = rl(res);
      expect({ path, limit: h.limit, remaining: h.remaining }).toEqual({ path, limit: 5, remaining: 4 - i });
    }
    // Every one of them counted; the next is over the limit, whatever it asks for.
    expectRateLimited(await t.get('/v1/no-such-route', token), 5);
    expectRateLimited(await t.get(`/v1/users/${DEMO.users.grace}`, token), 5);
  });

  test("all of a user's tokens share one budget; another user has their own", async () => {
    const first = await t.token({ user: DEMO.users.linus });
    const second = await t.token({ user: DEMO.users.linus });
    const path = `/v1/users/${DEMO.users.linus}`;
    const remaining: number[] = [];
    for (const token of [first, first, first, second, second]) {
      const res = await t.get(path, token);
      expect(res.status).toBe(200);
      remaining.push(rl(res).remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expectRateLimited(await t.get(path, first), 5);
    expectRateLimited(await t.get(path, second), 5);
    // A token created now starts with the user's remaining budget, not a new one.
    expectRateLimited(await t.get(path, await t.token({ user: DEMO.users.linus })), 5);

    const other = await t.get(`/v1/users/${DEMO.users.outsider}`, await t.token({ user: DEMO.users.outsider }));
    expect(other.status).toBe(200);
    expect(rl(other).remaining).toBe(4);
  });

  test('/trpc responses carry the headers and count against the same budget', async () => {
    const token = await t.token({ user: DEMO.users.hedy });
    const trpc = () => request(t.runtime.app).get(trpcPath(DEMO.users.hedy)).set('Authorization', `Bearer ${token}`);

    const first = await trpc();
    expect(first.status).toBe(200);
    expect(first.body.result.data.data.id).toBe(DEMO.users.hedy);
    expect(rl(first)).toMatchObject({ limit: 5, remaining: 4 });
    for (const expected of [3, 2, 1]) {
      const res = await t.get(`/v1/users/${DEMO.users.hedy}`, token);
      expect(res.status).toBe(200);
      expect(rl(res).remaining).toBe(expected);
    }
    const last = await trpc();
    expect(last.status).toBe(200);
    expect(rl(last).remaining).toBe(0);

    const limited = await trpc();
    expect(limited.status).toBe(429);
    expect(limited.body.error.data.code).toBe('RATE_LIMITED');
    expect(limited.body.error.message).toMatch(/^Rate limit of 5 requests exceeded/);
    const h = rl(limited);
    expect(h).toMatchObject({ limit: 5, remaining: 0 });
    expect(h.retryAfter).toBeGreaterThanOrEqual(1);
    expectRateLimited(await t.get(`/v1/users/${DEMO.users.hedy}`, token), 5);
  });

  test('check order 401 → 429 → 400', async () => {
    const token = await t.token({ user: DEMO.users.barbara });
    const invalid = '/v1/users?per_page=101';
    const asClient = (path: string, header?: string) => {
      const req = request(t.runtime.app).get(path).set('X-Forwarded-For', '198.51.100.20');
      return header ? req.set('Authorization', header) : req;
    };

    // Within the limit an invalid parameter is the 400 (and counts).
    const first = await asClient(invalid, `Bearer ${token}`);
    expect(first.status).toBe(400);
    expect(first.body.error.code).toBe('VALIDATION_ERROR');
    expect(rl(first).remaining).toBe(4);
    for (let i = 0; i < 4; i++) expect((await asClient(`/v1/users/${DEMO.users.barbara}`, `Bearer ${token}`)).status).toBe(200);

    // Over the limit the same request is 429, not 400.
    expectRateLimited(await asClient(invalid, `Bearer ${token}`), 5);

    // Without valid credentials it is 401, not 429 and not 400: authentication comes first, and the
    // user's exhausted budget is not the anonymous caller's.
    for (const header of [undefined, `Bearer ${generateToken()}`, 'Basic Zm9vOmJhcg==']) {
      const res = await asClient(invalid, header);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(rl(res).limit).toBe(5);
    }
  });

  test('failed authentication is limited per client IP; a valid user from that IP is not affected', async () => {
    const fromIp = (ip: string, header?: string) => {
      const req = request(t.runtime.app).get(`/v1/users/${DEMO.users.margaret}`).set('X-Forwarded-For', ip);
      return header ? req.set('Authorization', header) : req;
    };
    const attacker = '203.0.113.7';
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fromIp(attacker, `Bearer ${generateToken()}`);
      expectError(res, 401, 'UNAUTHORIZED');
      remaining.push(rl(res).remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    // The IP's budget is spent: any failing authentication from it is now 429 instead of 401.
    expectRateLimited(await fromIp(attacker, `Bearer ${generateToken()}`), 5);
    expectRateLimited(await fromIp(attacker), 5);
    expectRateLimited(await fromIp(attacker, 'Bearer not-a-token'), 5);

    // A valid user behind the same IP is counted per user and still passes.
    const valid = await fromIp(attacker, `Bearer ${await t.token({ user: DEMO.users.margaret })}`);
    expect(valid.status).toBe(200);
    expect(rl(valid).remaining).toBe(4);

    // Another IP has its own budget.
    const elsewhere = await fromIp('203.0.113.8', `Bearer ${generateToken()}`);
    expectError(elsewhere, 401, 'UNAUTHORIZED');
    expect(rl(elsewhere).remaining).toBe(4);
  });
});

describe('tier reporting on a tie (per minute 5, per hour 5: the hourly tier is reported)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PER_HOUR: '5' });
  });
  afterAll(async () => t.close());

  test('Reset is the end of the hour window, and the 429 asks to wait for it', async () => {
    const token = await t.token();
    const started = nowSeconds();
    for (let i = 1; i <= 5; i++) {
      const res = await t.get(`/v1/users/${DEMO.users.ada}`, token);
      expect(res.status).toBe(200);
      const h = rl(res);
      expect({ limit: h.limit, remaining: h.remaining }).toEqual({ limit: 5, remaining: 5 - i });
      // Past the minute window: this is the hourly tier's reset.
      expect(h.reset).toBeGreaterThan(started + 60);
      expect(h.reset).toBeLessThanOrEqual(Math.ceil(nowSeconds()) + 3600);
    }
    const h = expectRateLimited(await t.get(`/v1/users/${DEMO.users.ada}`, token), 5);
    // Both tiers are exhausted; the wait is the longer (hourly) one.
    expect(h.retryAfter).toBeGreaterThan(60);
    expect(h.retryAfter).toBeLessThanOrEqual(3600);
    expect(h.reset).toBeGreaterThan(started + 60);
  });

  test('without TRUST_PROXY a client cannot escape the IP limit with X-Forwarded-For', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await request(t.runtime.app)
        .get('/v1/users')
        .set('X-Forwarded-For', `192.0.2.${i + 1}`)
        .set('Authorization', `Bearer ${generateToken()}`);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(rl(res).remaining).toBe(4 - i);
    }
    expectRateLimited(await request(t.runtime.app).get('/v1/users').set('X-Forwarded-For', '192.0.2.99'), 5);
  });
});

describe('the hourly tier runs out first (per minute 5, per hour 3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PER_HOUR: '3' });
  });
  afterAll(async () => t.close());

  test('the headers describe the hourly tier and the 429 waits for the hour window', async () => {
    const token = await t.token();
    const started = nowSeconds();
    const seen: Array<{ limit: number; remaining: number }> = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.get(`/v1/users/${DEMO.users.ada}`, token);
      expect(res.status).toBe(200);
      const h = rl(res);
      seen.push({ limit: h.limit, remaining: h.remaining });
      expect(h.reset).toBeGreaterThan(started + 60);
    }
    expect(seen).toEqual([
      { limit: 3, remaining: 2 },
      { limit: 3, remaining: 1 },
      { limit: 3, remaining: 0 },
    ]);
    const h = expectRateLimited(await t.get(`/v1/users/${DEMO.users.ada}`, token), 3);
    expect(h.retryAfter).toBeGreaterThan(60);
  });
});

describe('Redis unreachable from the start (REDIS_URL points at a closed port)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '10' });
  });
  afterAll(async () => t.close());

  test('requests are served with headers and the limit still holds (in-memory insurance)', async () => {
    expect(t.runtime.redis).toBeDefined();
    expect(t.runtime.redis!.isReady).toBe(false);
    const token = await t.token();
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.get(`/v1/users/${DEMO.users.ada}`, token);
      expect(res.status).toBe(200);
      const h = rl(res);
      expect(h.limit).toBe(3);
      remaining.push(h.remaining);
    }
    expect(remaining).toEqual([2, 1, 0]);
    expectRateLimited(await t.get(`/v1/users/${DEMO.users.ada}`, token), 3);

    // Readiness tells operators about it while requests keep being served.
    const ready = await request(t.runtime.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'down' });
  });
});

/** A TCP proxy that can be cut (closed, every connection destroyed) and reopened on the same port. */
class CuttableProxy {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | undefined;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

const describeWithRedis = SERVICES.redisUrl ? describe : describe.skip;

describeWithRedis('Redis outage and recovery through a cuttable proxy (runs only with REDIS_URL)', () => {
  const redisUrl = new URL(SERVICES.redisUrl ?? 'redis://127.0.0.1:6379');
  const proxy = new CuttableProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  const direct = createClient({ url: redisUrl.toString() });
  let t: TestApp;

  beforeAll(async () => {
    await proxy.open();
    const viaProxy = new URL(redisUrl.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    t = await startTestApp({ REDIS_URL: viaProxy.toString(), RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_PER_HOUR: '100' });
    await direct.connect();
  });
  afterAll(async () => {
    await t?.close();
    await proxy.cut();
    if (direct.isOpen) await direct.quit();
  });

  async function waitFor(condition: () => boolean | Promise<boolean>, deadlineMs: number): Promise<boolean> {
    const until = Date.now() + deadlineMs;
    while (!(await condition())) {
      if (Date.now() > until) return false;
      await sleep(100);
    }
    return true;
  }

  test('requests are served during the outage and counted in Redis again after it', async () => {
    const app = t.runtime.redis!;
    expect(await waitFor(() => app.isReady, 5_000)).toBe(true);

    // A user of its own, so its keys in the shared Redis are unambiguous.
    const userId = `usr_rl_${randomBytes(5).toString('hex')}`;
    await User.create({ id: userId, name: 'Rate Limit', email: `${userId}@demo.test`, is_active: true, created_at: new Date() });
    const token = await t.token({ user: userId });
    const call = () => t.get(`/v1/users/${userId}`, token);

    const minuteKey = async (): Promise<string> => {
      const keys = await direct.keys(`*:minute:user:${userId}`);
      expect(keys).toHaveLength(1);
      return keys[0];
    };
    const counted = async () => Number((await direct.get(await minuteKey())) ?? 0);

    // 1. Redis up: two requests, counted in Redis.
    for (const expected of [4, 3]) {
      const res = await call();
      expect(res.status).toBe(200);
      expect(rl(res).remaining).toBe(expected);
    }
    expect(await counted()).toBe(2);
    expect(await direct.keys(`*:hour:user:${userId}`)).toHaveLength(1);

    // 2. Outage: the proxy is closed and every connection through it destroyed.
    await proxy.cut();
    expect(await waitFor(() => !app.isReady, 5_000)).toBe(true);
    const during: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call();
      expect(res.status).toBe(200);
      during.push(rl(res).remaining);
    }
    // The in-memory insurance limiter counts (from its own, empty state) and still enforces the limit.
    expect(during).toEqual([4, 3, 2, 1, 0]);
    expectRateLimited(await call(), 5);
    expect(await counted()).toBe(2); // nothing reached Redis

    // 3. Recovery: the proxy reopens on the same port and the client reconnects by itself.
    await proxy.open();
    let last: request.Response | undefined;
    const recovered = await waitFor(async () => {
      last = await call();
      rl(last); // headers on every response, 429 (memory) or 200 (Redis)
      return (await counted()) > 2;
    }, 15_000);
    expect(recovered).toBe(true);
    expect(app.isReady).toBe(true);
    expect(await counted()).toBe(3);
    expect(last!.status).toBe(200);

    // Counted in Redis again: each request adds exactly one there, and the headers follow Redis's count.
    const next = await call();
    expect(next.status).toBe(200);
    expect(rl(next).remaining).toBe(1);
    expect(await counted()).toBe(4);

    await direct.del(await direct.keys(`*:user:${userId}`));
  });
});
