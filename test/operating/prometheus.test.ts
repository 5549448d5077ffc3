import type { Server } from 'node:http';
import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { deliverToGithub, githubExamples } from '../support/peers/ingest';
import { deliverToJira, issueCreated } from '../support/peers/jira/deliveries';
import { otelMeter } from '../support/peers/otel';
import { eventually, Receiver } from '../support/peers/receiver';
import { createLogger } from '../../src/logger';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { startMetricsServer } from '../../src/observability/metricsServer';
import { describeWithPrometheusParser, MetricFamily, parseExposition } from '../support/peers/prometheusParser';
import { withSecret } from '../support/webhooks';

/**
 * docs/operating.md's metrics: `GET /metrics` on METRICS_PORT read by a Prometheus text-format parser. The counters move
 * as requests, deliveries and ingests happen; routes are templates; no token, e-mail or id is in any label.
 */

let t: TestApp;
let base: string;
let metricsServer: Server;
let scrapeUrl: string;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({ METRICS_PORT: '9464', RATE_LIMIT_PER_MINUTE: '30', WEBHOOK_ALLOW_PRIVATE: '1' });
  base = await t.listen();
  // src/service.ts serves the runtime's registry on METRICS_PORT; here on a free port of this process.
  metricsServer = await startMetricsServer(0, '127.0.0.1', () => t.runtime.metrics!.registry.metrics(), createLogger('silent'));
  const address = metricsServer.address();
  scrapeUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/metrics`;
  receiver = await Receiver.start();
  t.runtime.webhooks.start();
});
afterAll(async () => {
  metricsServer?.close();
  await t?.close();
  await receiver?.close();
});

/** Every sample of the scrape, by sample name (`…_total`, `…_count`, `…_bucket`), as Prometheus' parser reads it. */
async function scrape(): Promise<Map<string, MetricFamily['samples']>> {
  const res = await fetch(scrapeUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, MetricFamily['samples']>();
  for (const family of parseExposition(await res.text())) {
    for (const s of family.samples) samples.set(s.name, [...(samples.get(s.name) ?? []), s]);
  }
  return samples;
}

/** The value of the sample with these labels (and any others), 0 when there is none. */
function sample(samples: Map<string, MetricFamily['samples']>, name: string, labels: Record<string, string>): number {
  return Number(samples.get(name)?.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0);
}

const describeScrapes = describeWithPrometheusParser('prometheus');

describeScrapes('GET /metrics on METRICS_PORT', () => {
  test('request durations by surface, method, route template and status', async () => {
    const token = await t.token();
    const before = await scrape();
    const durations = (labels: Record<string, string>, f = before) => sample(f, 'http_request_duration_seconds_count', labels);
    expect((await t.get(`/v1/users/${DEMO.users.ada}`, token)).status).toBe(200);
    expect((await t.get(`/v1/users/${DEMO.users.grace}`, token)).status).toBe(200);
    expect((await t.get('/v1/users/usr_nobody', token)).status).toBe(404);
    expect((await t.get('/v1/no/such/path', token)).status).toBe(404);
    expect((await request(t.runtime.app).get('/trpc/users.get').query({ input: JSON.stringify({ user_id: DEMO.users.ada }) }).set('Authorization', `Bearer ${token}`)).status).toBe(200);
    const scim = (await createScimToken({ organizationId: DEMO.orgs.acme })).token;
    expect((await request(t.runtime.app).get(`/scim/v2/Users/${DEMO.users.ada}`).set('Authorization', `Bearer ${scim}`)).status).toBe(200);
    expect((await request(t.runtime.app).get('/scim/v2/Users/usr_nobody').set('Authorization', `Bearer ${scim}`)).status).toBe(404);
    // The pages: the settings page, and the dashboards page (its list, and a view opened at its own address).
    expect((await request(t.runtime.app).get('/settings/')).status).toBe(200);
    expect((await request(t.runtime.app).get('/dashboards/')).status).toBe(200);
    expect((await request(t.runtime.app).get(`/dashboards/${DEMO.views.acmeOrg}`).query({ organization_id: DEMO.orgs.acme })).status).toBe(200);
    expect((await request(t.runtime.app).get('/dashboards/no/such/file')).status).toBe(404);

    const after = await scrape();
    const rest = { surface: 'rest', method: 'GET', route: '/v1/users/{user_id}' };
    expect(durations({ ...rest, status: '200' }, after) - durations({ ...rest, status: '200' })).toBe(2);
    expect(durations({ ...rest, status: '404' }, after) - durations({ ...rest, status: '404' })).toBe(1);
    expect(durations({ surface: 'rest', route: 'unmatched', status: '404' }, after)).toBeGreaterThanOrEqual(1);
    expect(durations({ surface: 'trpc', route: '/trpc/users.get', status: '200' }, after)).toBeGreaterThanOrEqual(1);
    expect(durations({ surface: 'scim', route: '/scim/v2/Users/:id', status: '200' }, after)).toBeGreaterThanOrEqual(1);
    expect(durations({ surface: 'scim', route: '/scim/v2/Users/:id', status: '404' }, after)).toBeGreaterThanOrEqual(1);
    const page = (surface: string, route: string, status: string) => durations({ surface, method: 'GET', route, status }, after) - durations({ surface, method: 'GET', route, status });
    expect(page('settings', '/settings/', '200')).toBe(1);
    expect(page('dashboards', '/dashboards/', '200')).toBe(1);
    expect(page('dashboards', '/dashboards/:viewId', '200')).toBe(1);
    expect(page('dashboards', 'unmatched', '404')).toBe(1);
    // None of the pages' answers is counted as the service's own (health, docs).
    const pagesAsService = after.get('http_request_duration_seconds_count')!.filter((s) => s.labels.surface === 'service' && /^\/(settings|dashboards)/.test(s.labels.route));
    expect(pagesAsService).toEqual([]);
    expect(after.has('http_request_duration_seconds_bucket')).toBe(true);
  });

  test('limiter rejections by surface and tier', async () => {
    const token = await t.token({ user: DEMO.emails.grace });
    const before = sample(await scrape(), 'rate_limit_rejections_total', { surface: 'api', tier: 'minute' });
    let refused = 0;
    for (let i = 0; i < 32; i++) if ((await t.get('/v1/organizations', token)).status === 429) refused += 1;
    expect(refused).toBeGreaterThanOrEqual(2);
    expect(sample(await scrape(), 'rate_limit_rejections_total', { surface: 'api', tier: 'minute' }) - before).toBe(refused);
  });

  test('webhook attempts by result, and the due queue', async () => {
    await t.runtime.writers.webhookEndpoints.create(DEMO.orgs.acme, receiver.url('/prometheus'), ['team.created']);
    const before = sample(await scrape(), 'webhook_delivery_attempts_total', { result: 'delivered' });
    await t.runtime.writers.teams.create(DEMO.orgs.acme, { name: 'Scraped team', externalId: null });
    await eventually('the delivery', () => receiver.at('/prometheus').length > 0, 20_000);
    await eventually('the attempt counted', async () => sample(await scrape(), 'webhook_delivery_attempts_total', { result: 'delivered' }) > before, 5_000);
    // The worker reads the shared queue every 10 s; the gauge shows its last reading.
    await eventually('the due queue read by the worker', () => t.runtime.webhooks.status().due !== undefined, 15_000);
    expect(sample(await scrape(), 'webhook_deliveries_due', {})).toBe(t.runtime.webhooks.status().due);
  });

  test('ingest deliveries (git apps and apps) by provider and result; OTLP items by signal and result', async () => {
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', 'Scraped GitHub');
    const jira = withSecret(await t.runtime.writers.apps.create(DEMO.orgs.acme, 'jira', { name: 'Scraped Jira' }));
    const before = await scrape();
    expect((await deliverToGithub(t, gitApp.id, secret, { event: 'ping', payload: githubExamples('ping')[0] })).status).toBe(200);
    expect((await deliverToGithub(t, gitApp.id, 'wrong secret', { event: 'ping', payload: githubExamples('ping')[0] })).status).toBe(401);
    expect((await deliverToJira(t, jira.app.id, jira.secret, { payload: issueCreated })).status).toBe(200);
    expect((await deliverToJira(t, jira.app.id, 'wrong secret', { payload: issueCreated })).status).toBe(401);

    const otlp = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
    const meter = otelMeter({ baseUrl: base, token: otlp, protocol: 'http/protobuf', temporality: 'delta' });
    meter.add('claude_code.session.count', 1, { 'user.email': DEMO.emails.ada, 'session.id': 'scraped' });
    await meter.flush();
    await meter.shutdown();

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('git_ingest_deliveries_total', { provider: 'github', result: 'pong' })).toBe(1);
    expect(delta('git_ingest_deliveries_total', { provider: 'github', result: 'unauthorized' })).toBe(1);
    expect(delta('git_ingest_deliveries_total', { provider: 'jira', result: 'applied' })).toBe(1);
    expect(delta('git_ingest_deliveries_total', { provider: 'jira', result: 'unauthorized' })).toBe(1);
    expect(delta('otlp_items_total', { signal: 'metrics', result: 'accepted' })).toBeGreaterThanOrEqual(1);
  });

  test('the process, the database pools and Node’s own figures are there; no label holds a token, an e-mail or an id', async () => {
    const families = await scrape();
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect([name, families.has(name)]).toEqual([name, true]);
    }
    if (t.config.DATABASE_URL) expect(sample(families, 'database_pool_connections', { pool: 'primary', state: 'max' })).toBe(20);
    const values = [...families.values()].flatMap((samples) => samples.flatMap((s) => Object.values(s.labels)));
    expect(values.length).toBeGreaterThan(0);
    const leaks = values.filter((v) => /plat_|scim_|otlp_|@|usr_|org_|gapp_|whe_|tok_/.test(v));
    expect(leaks).toEqual([]);
  });

  test('only GET /metrics is served there; the public port has no /metrics', async () => {
    expect((await fetch(scrapeUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(scrapeUrl, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });
});
