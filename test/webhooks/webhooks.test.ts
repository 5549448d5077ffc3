import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { OutboxEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../db/models';
import { createLogger } from '../../src/logger';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { loadConfig } from '../../src/config';
import { DeliveryQueue } from '../../src/services/webhooks/deliveryQueue';
import { retryDelay } from '../../src/services/webhooks/schedule';
import { DEFAULT_RETRY_DELAYS } from '../../src/config';
import { EVENT_TYPES } from '../../src/persistence/changes/events';
import type { MemberInput } from '../../src/services/people/members';
import { WebhookEndpointWriter } from '../../src/services/webhooks/endpoints';
import { DomainError } from '../../src/errors';
import { checkEndpointUrl } from '../../src/delivery/endpointUrl';
import { forbiddenRange } from '../../src/outbound/addressGuard';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { EXCERPT_BYTES, postMessage } from '../../src/delivery/sender';
import { DeliveryWorker } from '../../src/delivery/worker';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { API_VERSION, buildOpenApiDocument } from '../../src/openapi';
import { appRouter } from '../../src/procedures';
import type { webhooks } from '../../src/client/restClient';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { copy, deliverToGithub, githubExamples } from '../support/peers/ingest';
import { eventually, Receiver, verify } from '../support/peers/receiver';
import { unique } from '../support/common';

/**
 * Outgoing webhooks (docs/webhooks.md) against a real receiver (node:http) that verifies with the `standardwebhooks`
 * library: every event type signed, retries on the configured schedule, 410, timeouts, redirects, replays, and
 * no request forgery. The schedule is shortened by WEBHOOK_RETRY_DELAYS, as an operator would.
 */

const DELAYS = [300, 600, 300];
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_RETRY_DELAYS: DELAYS.map((d) => `${d}ms`).join(','),
    WEBHOOK_TIMEOUT_MS: '800',
    INGEST_RATE_LIMIT_PER_MINUTE: '100000',
  });
  receiver = await Receiver.start();
  t.runtime.webhooks.start();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const endpoints = () => t.runtime.writers.webhookEndpoints;
const member = (over: Partial<MemberInput> = {}): MemberInput => ({
  email: `hook.${unique()}@example.com`,
  name: 'Hook Person',
  role: 'collaborator',
  active: true,
  externalId: null,
  title: null,
  ...over,
});

/** A fresh endpoint of Acme on its own receiver path. */
async function subscribe(events: string[] | null = null, organizationId: string = DEMO.orgs.acme) {
  const path = `/${unique()}`;
  const { endpoint, secret } = await endpoints().create(organizationId, receiver.url(path), events);
  return { id: endpoint.id, path, secret };
}

const newTeam = () => t.runtime.writers.teams.create(DEMO.orgs.acme, { name: `Team ${unique()}`, externalId: null });
const attemptsOf = (endpointId: string) => WebhookAttempt.findAll({ where: { endpoint_id: endpointId }, order: [['attempted_at', 'ASC'], ['id', 'ASC']] });
const deliveriesOf = (endpointId: string) => WebhookDelivery.findAll({ where: { endpoint_id: endpointId }, order: [['created_at', 'ASC'], ['event_seq', 'ASC']] });

/** Every event type, made the way each really happens: people through the writers SCIM calls, git through GitHub's webhooks. */
async function everyEventType(): Promise<void> {
  const { user } = await t.runtime.writers.members.provision(DEMO.orgs.acme, member());
  await t.runtime.writers.members.update(DEMO.orgs.acme, user.id, member({ email: user.email, name: 'Renamed Person' }));
  await t.runtime.writers.members.update(DEMO.orgs.acme, user.id, member({ email: user.email, name: 'Renamed Person', active: false }));
  await t.runtime.writers.members.remove(DEMO.orgs.acme, user.id);
  const team = await newTeam();
  await t.runtime.writers.teams.update(DEMO.orgs.acme, team.id, { name: `${team.name} renamed`, externalId: null });
  await t.runtime.writers.teams.delete(DEMO.orgs.acme, team.id);

  const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${unique()}`);
  const github = (event: string, payload: unknown) => deliverToGithub(t, gitApp.id, secret, { event, payload, id: randomUUID() });
  expect((await github('push', githubExamples('push').find((p) => p.commits.length === 1))).status).toBe(200);
  const opened = githubExamples('pull_request').find((p) => p.action === 'opened')!;
  const closed = githubExamples('pull_request').find((p) => p.action === 'closed')!;
  await github('pull_request', opened);
  await github('pull_request', closed);
  const merged = copy(closed);
  merged.number += 1;
  merged.pull_request.number += 1;
  merged.pull_request.id += 1;
  merged.pull_request.merged = true;
  merged.pull_request.merged_at = closed.pull_request.closed_at;
  await github('pull_request', merged);
  const [success] = githubExamples('deployment_status');
  await github('deployment_status', success);
  const failure = copy(success);
  failure.deployment.id += 1;
  failure.deployment_status.state = 'failure';
  await github('deployment_status', failure);
  const incident = copy(githubExamples('issues').find((p) => p.action === 'opened')!);
  incident.issue.labels = [{ ...incident.issue.labels[0], id: 1, name: 'incident' }];
  await github('issues', incident);
  const resolved = copy(incident);
  resolved.action = 'closed';
  resolved.issue.state = 'closed';
  resolved.issue.closed_at = resolved.issue.updated_at = '2019-05-15T16:00:00Z';
  await github('issues', resolved);
}

describe('signed deliveries', () => {
  test('every event type reaches the endpoint in order, and verifies with the standardwebhooks library', async () => {
    const sub = await subscribe();
    const firstSeq = Number((await OutboxEvent.max('seq')) ?? 0);
    await everyEventType();
    const events = (await OutboxEvent.findAll({ order: [['seq', 'ASC']] })).filter((e) => Number(e.seq) > firstSeq && e.organization_id === DEMO.orgs.acme);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(EVENT_TYPES));

    await eventually('every event delivered', () => receiver.at(sub.path).length >= events.length);
    const got = receiver.at(sub.path);
    // Each message is what the OpenAPI document's `webhooks` say of its event (no field more, none less).
    const documented = (buildOpenApiDocument(appRouter, API_VERSION) as unknown as { webhooks: Record<string, any> }).webhooks;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.id));
    for (const [i, message] of got.entries()) {
      const payload = verify(sub.secret, message) as { type: string; timestamp: string; data: unknown };
      expect(payload).toEqual({ type: events[i].type, timestamp: events[i].created_at.toISOString(), data: JSON.parse(events[i].data) });
      const validate = ajv.compile(documented[events[i].type].post.requestBody.content['application/json'].schema);
      expect({ type: events[i].type, valid: validate(payload), errors: validate.errors ?? null }).toEqual({ type: events[i].type, valid: true, errors: null });
      expect(message.headers['content-type']).toBe('application/json');
      expect(message.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    await eventually('every attempt recorded', async () => (await deliveriesOf(sub.id)).every((d) => d.status === 'succeeded'));
    const deliveries = await deliveriesOf(sub.id);
    expect(deliveries).toHaveLength(events.length);
    expect(deliveries.every((d) => d.attempts === 1 && d.next_attempt_at === null)).toBe(true);
  });

  test('a tampered body, an old timestamp or another secret fails verification', async () => {
    const sub = await subscribe(['team.created']);
    const team = await newTeam();
    await eventually('the event', () => receiver.at(sub.path).length === 1);
    const [message] = receiver.at(sub.path);
    // As a TypeScript receiver types it, from the REST client's generated types.
    const event = verify(sub.secret, message) as webhooks['team.created']['post']['requestBody']['content']['application/json'];
    expect(event.data).toEqual({ id: team.id, organization_id: DEMO.orgs.acme, name: team.name, created_at: team.created_at.toISOString() });
    expect(() => verify(sub.secret, { ...message, body: message.body.replace('"team.created"', '"team.deleted"') })).toThrow(/signature/);
    const old = { ...message.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600) };
    expect(() => verify(sub.secret, { ...message, headers: old })).toThrow(/too old/);
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, message)).toThrow(/signature/);
  });

  test('an endpoint gets the events it subscribed to, of its own organization only', async () => {
    const teamsOnly = await subscribe(['team.created', 'team.deleted']);
    const globex = await subscribe(null, DEMO.orgs.globex);
    const catchAll = await subscribe();
    const team = await newTeam();
    await t.runtime.writers.teams.update(DEMO.orgs.acme, team.id, { name: `${team.name}!`, externalId: null });
    await t.runtime.writers.teams.delete(DEMO.orgs.acme, team.id);
    await eventually('the catch-all endpoint has all three', () => receiver.at(catchAll.path).length === 3);
    await eventually('the filtered endpoint has two', () => receiver.at(teamsOnly.path).length === 2);
    expect(receiver.at(teamsOnly.path).map((r) => (verify(teamsOnly.secret, r) as { type: string }).type)).toEqual(['team.created', 'team.deleted']);
    expect(await WebhookDelivery.count({ where: { endpoint_id: globex.id } })).toBe(0);
    expect(receiver.at(globex.path)).toHaveLength(0);
  });

  test('after a secret rotation messages carry both signatures for a while: either secret verifies', async () => {
    const sub = await subscribe(['team.created']);
    const { secret: rotated } = await endpoints().rotateSecret(sub.id);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(sub.secret);
    await newTeam();
    await eventually('the event', () => receiver.at(sub.path).length === 1);
    const [message] = receiver.at(sub.path);
    expect(message.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => verify(rotated, message)).not.toThrow();
    expect(() => verify(sub.secret, message)).not.toThrow();
  });

  test('the secret is stored sealed, never in plain text', async () => {
    const sub = await subscribe(['team.created']);
    const row = await WebhookEndpoint.findByPk(sub.id);
    expect(row!.secret).not.toContain(sub.secret.slice(6));
    expect(row!.secret).toMatch(/^v1\./);
  });
});

describe('failures and retries', () => {
  test('receiver down: attempts fail and back off on the schedule; delivered once it is back', async () => {
    const down = await Receiver.start();
    const path = '/down';
    const { endpoint, secret } = await endpoints().create(DEMO.orgs.acme, down.url(path), ['team.created']);
    await down.down();
    await newTeam();
    await eventually('three failed attempts', async () => (await attemptsOf(endpoint.id)).length >= 3);
    await down.listen();
    await eventually('delivered when the receiver is back', async () => (await deliveriesOf(endpoint.id))[0].status === 'succeeded');
    await down.close();
    expect(() => verify(secret, down.at(path)[0])).not.toThrow();

    const attempts = await attemptsOf(endpoint.id);
    expect(attempts.slice(0, 3).map((a) => a.error)).toEqual(['connection refused', 'connection refused', 'connection refused']);
    expect(attempts.at(-1)!.status_code).toBe(200);
    // Jitter only lengthens: each wait is at least the configured delay.
    const gaps = attempts.slice(1).map((a, i) => a.attempted_at.getTime() - attempts[i].attempted_at.getTime());
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(DELAYS[i]));
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: attempts.length, next_attempt_at: null });
    expect((await WebhookEndpoint.findByPk(endpoint.id))!.failing_since).toBeNull();
  });

  test('500, 500, then 200: delivered on the third attempt, each answer recorded', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, { status: 500, body: 'database is down' }, { status: 503, body: '{"error":"busy"}' });
    await newTeam();
    await eventually('the third attempt', () => receiver.at(sub.path).length === 3);
    await eventually('recorded', async () => (await deliveriesOf(sub.id))[0].status === 'succeeded');
    const attempts = await attemptsOf(sub.id);
    expect(attempts.map((a) => [a.status_code, a.response_excerpt])).toEqual([
      [500, 'database is down'],
      [503, '{"error":"busy"}'],
      [200, null],
    ]);
    expect(attempts[0].error).toBe('answered 500');
    // The same message each time (webhook-id), each signed afresh.
    expect(new Set(receiver.at(sub.path).map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  test('retries spent: the delivery fails for good; a replay sends the same event again', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, ...Array(DELAYS.length + 1).fill({ status: 500 }));
    await newTeam();
    await eventually('given up', async () => (await deliveriesOf(sub.id))[0]?.status === 'failed', 10_000);
    const [failed] = await deliveriesOf(sub.id);
    expect(failed.attempts).toBe(DELAYS.length + 1);
    expect(receiver.at(sub.path)).toHaveLength(DELAYS.length + 1);

    const replay = await endpoints().replay(failed.id);
    expect(replay).toMatchObject({ replay_of: failed.id, event_id: failed.event_id, status: 'pending' });
    await eventually('the replay delivered', () => receiver.at(sub.path).length === DELAYS.length + 2);
    expect(receiver.at(sub.path).at(-1)!.headers['webhook-id']).toBe(failed.event_id);
    expect(() => verify(sub.secret, receiver.at(sub.path).at(-1)!)).not.toThrow();
    await eventually('recorded', async () => (await WebhookDelivery.findByPk(replay.id))!.status === 'succeeded');
  });

  test('410 Gone disables the endpoint: later events wait, and go out in order when it is enabled', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, { status: 410 });
    await newTeam();
    await eventually('disabled', async () => !(await WebhookEndpoint.findByPk(sub.id))!.is_active);
    const endpoint = (await WebhookEndpoint.findByPk(sub.id))!;
    expect(endpoint.disabled_reason).toMatch(/^answered 410 Gone at /);
    expect((await deliveriesOf(sub.id))[0].status).toBe('failed');

    // Not subscribed while disabled: nothing is queued for it.
    await newTeam();
    expect(await WebhookDelivery.count({ where: { endpoint_id: sub.id } })).toBe(1);
    await expect(endpoints().replay((await deliveriesOf(sub.id))[0].id)).rejects.toThrow(/disabled .*enable it first/);

    const { resumed } = await endpoints().enable(sub.id);
    expect(resumed).toBe(0);
    await newTeam();
    await eventually('delivered after enabling', () => receiver.at(sub.path).length === 2);
  });

  test('an operator disabling pauses pending deliveries; enabling resumes them', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, { status: 500 });
    await newTeam();
    await eventually('the first attempt', async () => (await attemptsOf(sub.id)).length === 1);
    await endpoints().disable(sub.id);
    expect((await WebhookEndpoint.findByPk(sub.id))!.disabled_reason).toMatch(/^disabled by an operator at /);
    const [waiting] = await deliveriesOf(sub.id);
    expect(waiting).toMatchObject({ status: 'pending', next_attempt_at: null });
    await newTeam();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at(sub.path)).toHaveLength(1);
    expect(await WebhookDelivery.count({ where: { endpoint_id: sub.id } })).toBe(1);

    const { resumed } = await endpoints().enable(sub.id);
    expect(resumed).toBe(1);
    await eventually('the waiting delivery goes out', async () => (await WebhookDelivery.findByPk(waiting.id))!.status === 'succeeded');
  });

  test('a slow receiver hits WEBHOOK_TIMEOUT_MS; the retry gets through', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, { delayMs: 2_000 });
    await newTeam();
    await eventually('delivered on the retry', async () => (await deliveriesOf(sub.id))[0].status === 'succeeded');
    const attempts = await attemptsOf(sub.id);
    expect(attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 800 ms' });
    expect(attempts[0].duration_ms).toBeGreaterThanOrEqual(790);
    expect(attempts[0].duration_ms).toBeLessThan(1_500);
    expect(attempts[1].status_code).toBe(200);
  });

  test('a redirect is not followed: a failed attempt naming where it pointed', async () => {
    const sub = await subscribe(['team.created']);
    const target = `/target-${unique()}`;
    receiver.answer(sub.path, ...Array(DELAYS.length + 1).fill({ status: 302, headers: { location: receiver.url(target) } }));
    await newTeam();
    await eventually('given up', async () => (await deliveriesOf(sub.id))[0]?.status === 'failed', 10_000);
    expect(receiver.at(target)).toHaveLength(0);
    const [first] = await attemptsOf(sub.id);
    expect(first.status_code).toBe(302);
    expect(first.error).toBe(`redirect to ${receiver.url(target)} not followed; subscribe the final URL instead`);
  });

  test('at most a small excerpt of an answer is read and kept', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, { status: 500, body: 'x'.repeat(1_000_000) });
    await newTeam();
    await eventually('recorded', async () => (await attemptsOf(sub.id)).length >= 1);
    const [attempt] = await attemptsOf(sub.id);
    expect(attempt.response_excerpt).toBe('x'.repeat(EXCERPT_BYTES));
  });

  test('an endpoint failing for five days is disabled; its pending deliveries wait for it', async () => {
    const sub = await subscribe(['team.created']);
    receiver.answer(sub.path, { status: 500 });
    await WebhookEndpoint.update({ failing_since: new Date(Date.now() - 5 * 86_400_000 - 1_000) }, { where: { id: sub.id } });
    await newTeam();
    await eventually('disabled', async () => !(await WebhookEndpoint.findByPk(sub.id))!.is_active);
    expect((await WebhookEndpoint.findByPk(sub.id))!.disabled_reason).toMatch(/^failing since .* \(no 2xx for 5 days\)$/);
    const [waiting] = await deliveriesOf(sub.id);
    expect(waiting).toMatchObject({ status: 'pending', next_attempt_at: null, attempts: 1 });
    const { resumed } = await endpoints().enable(sub.id);
    expect(resumed).toBe(1);
    await eventually('delivered after enabling', async () => (await WebhookDelivery.findByPk(waiting.id))!.status === 'succeeded');
  });

  test('a worker that died holding an endpoint: its lease runs out and another worker delivers', async () => {
    const sub = await subscribe(['team.created']);
    await t.runtime.webhooks.stop();
    try {
      await newTeam();
      const dead = new DeliveryQueue(t.runtime.writers.changes, new SecretBox(() => secretsKeyFor(t.config)), DELAYS);
      const now = new Date();
      const claimed = await dead.claim(100, now, new Date(now.getTime() + 1_500));
      expect(claimed.map((e) => e.id)).toContain(sub.id);
      for (const other of claimed.filter((e) => e.id !== sub.id)) await dead.release(other, now);
      t.runtime.webhooks.start();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.at(sub.path)).toHaveLength(0);
      await eventually('delivered after the lease ran out', () => receiver.at(sub.path).length === 1);
    } finally {
      t.runtime.webhooks.start();
    }
  });

  test('/readyz shows the worker: deliveries, failures and the queue lag', async () => {
    const res = await request(t.runtime.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.webhooks).toMatchObject({ running: true, delivered: expect.any(Number), failed_attempts: expect.any(Number), gave_up: expect.any(Number) });
    expect(res.body.webhooks.delivered).toBeGreaterThan(0);
    expect(res.body.webhooks.failed_attempts).toBeGreaterThan(0);
    expect(res.body.webhooks).toHaveProperty('lag_seconds');
  });
});

describe('configuration', () => {
  test('WEBHOOK_RETRY_DELAYS: durations in ms, s, m, h or d; the default is docs/webhooks.md\'s; jitter only lengthens', () => {
    expect(loadConfig({}).WEBHOOK_RETRY_DELAYS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS: '250ms, 2s,1m,1h,1d' }).WEBHOOK_RETRY_DELAYS).toEqual([250, 2_000, 60_000, 3_600_000, 86_400_000]);
    for (const bad of ['5 minutes', '5s,,x', '-5s', Array(21).fill('1s').join(',')]) {
      expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: bad })).toThrow(/WEBHOOK_RETRY_DELAYS must be comma-separated durations such as 5s,5m,30m,2h/);
    }
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE must be 1 or 0/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '0' })).toThrow(/WEBHOOK_TIMEOUT_MS must be a positive integer/);
    for (let failures = 1; failures <= 7; failures++) {
      const base = DEFAULT_RETRY_DELAYS[failures - 1];
      expect(retryDelay(failures, DEFAULT_RETRY_DELAYS, () => 0)).toBe(base);
      expect(retryDelay(failures, DEFAULT_RETRY_DELAYS, () => 0.999)).toBeLessThanOrEqual(base * 1.1);
    }
    expect(retryDelay(8, DEFAULT_RETRY_DELAYS)).toBeUndefined();
  });
});

describe('no request forgery', () => {
  const FORBIDDEN = [
    ['http://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://10.0.0.1/hook', /10\.0\.0\.1 is a private address/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a linkLocal address/],
    ['http://[::1]:8080/hook', /::1 is a loopback address/],
    ['http://localhost:8080/hook', /localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/],
    ['http://[::ffff:10.0.0.1]/hook', /is a private address/],
    ['http://2130706433/hook', /127\.0\.0\.1 is a loopback address/],
    ['https://[fd00:ec2::254]/', /uniqueLocal/],
  ] as const;

  const strictWriter = () =>
    new WebhookEndpointWriter(t.runtime.writers.changes, new SecretBox(() => secretsKeyFor(t.config)), checkEndpointUrl(false));

  test.each(FORBIDDEN)('refused at create: %s', async (url, message) => {
    const err = await strictWriter().create(DEMO.orgs.acme, url, null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid');
    expect((err as DomainError).message).toMatch(message);
  });

  test('other schemes, credentials and unknown events are refused at create; nothing is stored', async () => {
    const before = await WebhookEndpoint.count();
    await expect(strictWriter().create(DEMO.orgs.acme, 'ftp://example.com/hook', null)).rejects.toThrow(/only http:\/\/ and https:\/\//);
    await expect(strictWriter().create(DEMO.orgs.acme, 'file:///etc/passwd', null)).rejects.toThrow(/only http:\/\/ and https:\/\//);
    await expect(strictWriter().create(DEMO.orgs.acme, 'https://user:pw@example.com/hook', null)).rejects.toThrow(/must not hold credentials/);
    await expect(strictWriter().create(DEMO.orgs.acme, 'not a url', null)).rejects.toThrow(/is not a URL/);
    await expect(endpoints().create(DEMO.orgs.acme, receiver.url('/x'), ['team.created', 'team.exploded'])).rejects.toThrow(/Unknown event type team\.exploded; the events are user\.created/);
    await expect(endpoints().create('org_nope', receiver.url('/x'), null)).rejects.toThrow(/No organization org_nope/);
    expect(await WebhookEndpoint.count()).toBe(before);
  });

  test('public addresses pass; every special range is refused', () => {
    for (const ok of ['8.8.8.8', '2606:4700::1111', '140.82.112.3']) expect(forbiddenRange(ok)).toBeUndefined();
    for (const bad of ['0.0.0.0', '100.64.0.1', '192.168.1.1', '172.16.0.1', '224.0.0.1', '255.255.255.255', '::', 'fe80::1', '64:ff9b::7f00:1', '::ffff:169.254.169.254']) {
      expect(forbiddenRange(bad)).toBeDefined();
    }
  });

  test.each(FORBIDDEN.filter(([url]) => !url.startsWith('https')).map(([url]) => url))('refused at delivery: %s', async (url) => {
    const target = new URL(url);
    // The receiver's port, so a refusal is the guard's and not a closed port.
    target.port = new URL(receiver.url()).port;
    const before = receiver.received.length;
    const outcome = await postMessage(target.toString(), '{}', {}, { timeoutMs: 500, outbound: { ...outboundPolicy(t.config), allowPrivate: false } });
    expect(outcome).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: .* address; outgoing calls go only to public addresses$/) });
    expect(receiver.received.length).toBe(before);
  });

  test('an endpoint whose name later resolves to loopback (DNS rebinding) is refused at delivery, and says so', async () => {
    // Stored while private addresses were allowed; the name now resolves to 127.0.0.1.
    const { endpoint } = await endpoints().create(DEMO.orgs.acme, receiver.url('/rebound').replace('127.0.0.1', 'localhost'), ['team.created']);
    const strict = new DeliveryWorker(
      new DeliveryQueue(t.runtime.writers.changes, new SecretBox(() => secretsKeyFor(t.config)), DELAYS),
      createLogger('silent'),
      { timeoutMs: 500, outbound: { ...outboundPolicy(t.config), allowPrivate: false } },
    );
    await t.runtime.webhooks.stop();
    strict.start();
    try {
      await newTeam();
      await eventually('an attempt', async () => (await attemptsOf(endpoint.id)).length >= 1);
      const [attempt] = await attemptsOf(endpoint.id);
      expect(attempt.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/);
      expect(receiver.at('/rebound')).toHaveLength(0);
    } finally {
      await strict.stop();
      t.runtime.webhooks.start();
    }
  });
});
