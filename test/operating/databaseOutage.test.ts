import net from 'node:net';
import request from 'supertest';
import { sign } from '@octokit/webhooks-methods';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createRuntime, Runtime } from '../../src/runtime';
import { generateToken, OTLP_TOKEN_PREFIX, SCIM_TOKEN_PREFIX } from '../../src/auth/tokenFormat';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { freePort } from '../support/ports';
import { startTestApp, TestApp, DEMO, SERVICES } from '../support/harness';

/**
 * A database out of reach is "try again", not "our bug" (docs/operating.md): every surface answers 503 with Retry-After in
 * its own format (REST's envelope, tRPC's error with `data.code`, a SCIM error, the ingest envelope, OTLP's
 * retryable UNAVAILABLE Status), /readyz fails while /healthz does not, and the metrics count these apart from the
 * 500s of our own faults. First against a database that never answers (a closed port: this needs no MariaDB, so it
 * runs on the embedded default too), then, on MariaDB, through a TCP proxy the test cuts and restores under a
 * running service, which must recover by itself.
 */

type Answer = request.Response;

const OTLP_JSON = JSON.stringify({
  resourceMetrics: [{ resource: { attributes: [] }, scopeMetrics: [{ scope: { name: 'outage-test' }, metrics: [] }] }],
});

/** One request per surface, with the credentials it takes. */
function everySurface(app: Runtime['app'], credentials: { api: string; scim: string; otlp: string; gitApp: string; secret: string }) {
  const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
  return {
    rest: () => request(app).get('/v1/users?per_page=5').set('Authorization', `Bearer ${credentials.api}`),
    trpc: () => request(app).get(`/trpc/users.list?input=${encodeURIComponent('{}')}`).set('Authorization', `Bearer ${credentials.api}`),
    scim: () => request(app).get('/scim/v2/Users?count=1').set('Authorization', `Bearer ${credentials.scim}`),
    ingest: async () =>
      request(app)
        .post(`/ingest/github/${credentials.gitApp}`)
        .set('Content-Type', 'application/json')
        .set('X-GitHub-Event', 'ping')
        .set('X-GitHub-Delivery', `outage-${Math.random()}`)
        .set('X-Hub-Signature-256', await sign(credentials.secret, ping))
        .send(ping),
    otlp: () => request(app).post('/otlp/v1/metrics').set('Authorization', `Bearer ${credentials.otlp}`).set('Content-Type', 'application/json').send(OTLP_JSON),
  };
}

/** Each surface's own way of saying "unavailable, try again after Retry-After". */
function expectUnavailable(surface: string, res: Answer) {
  expect({ surface, status: res.status, retryAfter: res.headers['retry-after'] }).toEqual({ surface, status: 503, retryAfter: '5' });
  const message = expect.stringContaining('not reachable at the moment');
  switch (surface) {
    case 'rest':
    case 'ingest':
      expect(res.body).toEqual({ status: 'error', error: { code: 'SERVICE_UNAVAILABLE', message } });
      break;
    case 'trpc':
      expect(res.body.error).toMatchObject({ message, data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } });
      break;
    case 'scim':
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(res.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '503', detail: message });
      break;
    case 'otlp':
      // google.rpc.Status in OTLP/JSON: UNAVAILABLE (14), which OTLP/HTTP exporters retry after Retry-After.
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.text)).toEqual({ code: 14, message });
      break;
  }
}

/** `http_request_failures_total` by surface and reason, as Prometheus would scrape it. */
async function failures(runtime: Runtime): Promise<Record<string, number>> {
  const text = await runtime.metrics!.registry.getSingleMetricAsString('http_request_failures_total');
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^http_request_failures_total\{surface="(\w+)",reason="(\w+)"\} (\d+)$/gm)) counts[`${m[1]} ${m[2]}`] = Number(m[3]);
  return counts;
}

describe('a database that never answers (a closed port)', () => {
  let runtime: Runtime;
  let config: ReturnType<typeof loadConfig>;
  beforeAll(async () => {
    const closed = await freePort();
    config = loadConfig({
      ...process.env,
      DATABASE_URL: `mysql://root@127.0.0.1:${closed}/platform`,
      REDIS_URL: '',
      SECRETS_KEY: 'a'.repeat(64),
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'silent',
    });
    runtime = createRuntime(config, createLogger('silent'), { rateLimitKeyPrefix: `test:outage:${closed}` });
  });
  afterAll(async () => runtime?.close());

  test('every surface answers 503 with Retry-After in its own format; /readyz fails, /healthz does not; the metrics count it as unavailable', async () => {
    const surfaces = everySurface(runtime.app, {
      api: generateToken(),
      scim: generateToken(SCIM_TOKEN_PREFIX),
      otlp: generateToken(OTLP_TOKEN_PREFIX),
      gitApp: 'gapp_0000000000outage',
      secret: 'not-known-to-anyone',
    });
    for (const [surface, send] of Object.entries(surfaces)) expectUnavailable(surface, await send());
    // A token that could not be checked is no failed authentication: the client's address is not charged for it.
    const [first, second] = [await surfaces.rest(), await surfaces.rest()];
    expect(second.headers['x-ratelimit-remaining']).toBe(first.headers['x-ratelimit-remaining']);
    expect(Number(first.headers['x-ratelimit-remaining'])).toBe(config.RATE_LIMIT_PER_MINUTE);

    const ready = await request(runtime.app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'unavailable', checks: { database: 'down' } });
    expect((await request(runtime.app).get('/healthz')).status).toBe(200);

    expect(await failures(runtime)).toEqual({
      'rest database_unavailable': 3,
      'trpc database_unavailable': 1,
      'scim database_unavailable': 1,
      'ingest database_unavailable': 1,
      'otlp database_unavailable': 1,
    });
  });
});

/** A TCP proxy in front of MariaDB that the test cuts (every connection reset, the port closed) and restores. */
class CuttableProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
        this.sockets.add(a);
        a.on('close', () => this.sockets.delete(a));
        a.on('error', () => b.destroy());
        a.pipe(b);
      }
    });
    await new Promise<void>((resolve, reject) => this.server!.once('error', reject).listen(this.port, '127.0.0.1', () => resolve()));
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    for (const socket of this.sockets) socket.resetAndDestroy();
    await closed;
  }
}

const describeMaria = SERVICES.databaseUrl ? describe : describe.skip;

describeMaria('MariaDB cut off under a running service, then back (a TCP proxy in between)', () => {
  let t: TestApp;
  let proxy: CuttableProxy;
  let surfaces: ReturnType<typeof everySurface>;

  beforeAll(async () => {
    const server = new URL(SERVICES.databaseUrl!);
    proxy = new CuttableProxy(await freePort(), { host: server.hostname, port: Number(server.port || 3306) });
    await proxy.open();
    t = await startTestApp({ METRICS_PORT: String(await freePort()) }, { databasePort: proxy.port });
    const gitApp = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'GitHub acme (outage)');
    surfaces = everySurface(t.runtime.app, {
      api: await t.token(),
      scim: (await createScimToken({ organizationId: DEMO.orgs.acme })).token,
      otlp: (await createOtlpToken({ organizationId: DEMO.orgs.acme, user: 'ada@demo.test' })).token,
      gitApp: gitApp.gitApp.id,
      secret: gitApp.secret,
    });
  }, 60_000);
  afterAll(async () => {
    await proxy?.open().catch(() => undefined);
    await t?.close();
    await proxy?.cut();
  });

  const statuses = async () => Object.fromEntries(await Promise.all(Object.entries(surfaces).map(async ([surface, send]) => [surface, (await send()).status])));
  const allOk = { rest: 200, trpc: 200, scim: 200, ingest: 200, otlp: 200 };

  test('while it is down every surface answers 503 with Retry-After in its own format, /readyz fails; once it is back they answer 200 again by themselves', async () => {
    expect(await statuses()).toEqual(allOk);

    await proxy.cut();
    // The pool's connections are reset under it (a query on one fails), and new ones are refused: both are an outage.
    for (let round = 0; round < 2; round++) {
      for (const [surface, send] of Object.entries(surfaces)) expectUnavailable(surface, await send());
    }
    expect((await request(t.runtime.app).get('/readyz')).status).toBe(503);
    const counted = await failures(t.runtime);
    for (const surface of Object.keys(surfaces)) expect(counted[`${surface} database_unavailable`]).toBeGreaterThanOrEqual(2);
    expect(Object.keys(counted).some((k) => k.endsWith('server_error'))).toBe(false);

    await proxy.open();
    const back = Date.now();
    let answered = await statuses();
    while (JSON.stringify(answered) !== JSON.stringify(allOk) && Date.now() - back < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answered = await statuses();
    }
    expect(answered).toEqual(allOk);
    expect((await request(t.runtime.app).get('/readyz')).status).toBe(200);
  }, 60_000);

  test('a database that refuses the credentials is ours to fix, not the client to retry: 500 SERVER_ERROR, counted as server_error', async () => {
    const url = new URL(SERVICES.databaseUrl!);
    url.username = 'no_such_user';
    url.password = 'wrong';
    const config = loadConfig({ ...process.env, DATABASE_URL: url.toString(), REDIS_URL: '', SECRETS_KEY: 'a'.repeat(64), METRICS_PORT: String(await freePort()), LOG_LEVEL: 'silent' });
    const misconfigured = createRuntime(config, createLogger('silent'), { rateLimitKeyPrefix: `test:outage:denied:${proxy.port}` });
    try {
      const res = await request(misconfigured.app).get('/v1/users').set('Authorization', `Bearer ${generateToken()}`);
      expect(res.status).toBe(500);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.body).toEqual({ status: 'error', error: { code: 'SERVER_ERROR', message: 'Internal server error' } });
      expect(await failures(misconfigured)).toEqual({ 'rest server_error': 1 });
    } finally {
      await misconfigured.close();
    }
  });
});
