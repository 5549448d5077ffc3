import fs from 'node:fs';
import path from 'node:path';
import { WebhookDelivery } from '../../db/models';
import { startTestApp, TestApp, DEMO, SERVICES } from '../support/harness';
import { eventually, Receiver } from '../support/peers/receiver';
import { killServiceProcesses, ServiceProcess, startServiceProcess } from '../support/serviceProcess';

/**
 * Two API instances (separate processes, as deployed) on one MariaDB database deliver to one receiver: every
 * event once per endpoint with no duplicates from workers racing, in order per endpoint; then one instance is
 * killed mid-run (SIGKILL: no goodbye) and the other delivers what it held once its leases run out, none lost.
 * The figures go to artifacts/webhooks-cluster.json. MariaDB only: SQLite has one sending process by design.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const EVENTS = 1_000;
/** Twice what one instance serves at once (4), so both instances have endpoints to send to. */
const ENDPOINTS = 8;
const TIMEOUT_MS = 2_000;

let t: TestApp;
let receiver: Receiver;
const instances: ServiceProcess[] = [];

function startInstance(name: string): Promise<ServiceProcess> {
  return startServiceProcess(name, {
    DATABASE_URL: t.config.DATABASE_URL,
    SECRETS_KEY: t.config.SECRETS_KEY!.toString('hex'),
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_DELAYS: '1s,1s,1s',
  }).then((instance) => {
    instances.push(instance);
    return instance;
  });
}

/** `delivered` since the instance started, from its /readyz detail. */
async function deliveredBy(instance: ServiceProcess): Promise<number> {
  const res = await fetch(`${instance.origin}/readyz`);
  return ((await res.json()) as { webhooks: { delivered: number } }).webhooks.delivered;
}

/** Team creations, ten at a time: EVENTS `team.created` events, each in a change of its own. */
async function makeEvents(label: string): Promise<void> {
  for (let i = 0; i < EVENTS; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => t.runtime.writers.teams.create(DEMO.orgs.acme, { name: `${label} ${i + j}`, externalId: null })),
    );
  }
}

/** Received messages per endpoint path: webhook-ids in arrival order. */
function arrivals(paths: string[], since: number): Map<string, string[]> {
  return new Map(paths.map((p) => [p, receiver.at(p).filter((r) => r.at >= since).map((r) => r.headers['webhook-id'])]));
}

const describeMaria = SERVICES.databaseUrl ? describe : describe.skip;

describeMaria('two API instances on MariaDB', () => {
  const paths = Array.from({ length: ENDPOINTS }, (_, i) => `/endpoint-${i}`);
  const figures: Record<string, unknown> = { events: EVENTS, endpoints: ENDPOINTS };

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
    receiver = await Receiver.start();
    for (const p of paths) await t.runtime.writers.webhookEndpoints.create(DEMO.orgs.acme, receiver.url(p), ['team.created']);
    await Promise.all([startInstance('a'), startInstance('b')]);
  }, 60_000);

  afterAll(async () => {
    await killServiceProcesses(instances);
    await receiver?.close();
    await t?.close();
    fs.mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'artifacts', 'webhooks-cluster.json'), `${JSON.stringify(figures, null, 2)}\n`);
  });

  test(`${EVENTS} events to ${ENDPOINTS} endpoints: each exactly once, in order per endpoint, both instances sending`, async () => {
    const started = Date.now();
    await makeEvents('first');
    const made = Date.now();
    const expected = EVENTS * ENDPOINTS;
    await eventually('every delivery', () => receiver.received.length >= expected, 90_000);
    const drained = Date.now();
    // A moment more, so a duplicate on its way would arrive too.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const byEndpoint = arrivals(paths, started);
    const order = (await WebhookDelivery.findAll({ where: { endpoint_id: (await WebhookDelivery.findOne())!.endpoint_id }, order: [['event_seq', 'ASC']] })).map((d) => d.event_id);
    for (const ids of byEndpoint.values()) {
      expect(ids).toHaveLength(EVENTS);
      expect(new Set(ids).size).toBe(EVENTS);
      // Every endpoint has the same events; each got them in the order they were committed.
      expect(ids).toEqual(order);
    }
    const [a, b] = await Promise.all(instances.map(deliveredBy));
    expect(a + b).toBe(expected);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    expect(await WebhookDelivery.count({ where: { status: 'succeeded' } })).toBe(expected);
    figures.run = {
      deliveries: expected,
      duplicates: 0,
      delivered_by: { a, b },
      events_made_in_ms: made - started,
      drained_in_ms: drained - started,
      deliveries_per_second: Math.round(expected / ((drained - started) / 1000)),
    };
  }, 120_000);

  test('one instance killed mid-run: the other delivers what it held once the leases run out; none lost', async () => {
    const [a, b] = instances;
    const [aBefore, bBefore] = await Promise.all(instances.map(deliveredBy));
    const started = Date.now();
    const before = receiver.received.length;
    const expected = EVENTS * ENDPOINTS;
    const making = makeEvents('second');
    await eventually('a quarter delivered', () => receiver.received.length - before >= expected / 4, 60_000);
    const deliveredByA = (await deliveredBy(a)) - aBefore;
    a.process.kill('SIGKILL');
    const killedAt = Date.now();
    const receivedAtKill = receiver.received.length - before;
    await a.exited;
    // It was sending when it died: its endpoints wait for their leases to run out.
    expect(deliveredByA).toBeGreaterThan(0);
    await making;

    await eventually('every event at every endpoint', () => [...arrivals(paths, started).values()].every((ids) => new Set(ids).size === EVENTS), 90_000);
    const recovered = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const byEndpoint = arrivals(paths, started);
    const duplicates = [...byEndpoint.values()].reduce((sum, ids) => sum + ids.length - new Set(ids).size, 0);
    // At least once: an attempt in flight when the instance died was sent and never recorded, so it goes again;
    // at most one such attempt per endpoint.
    expect(duplicates).toBeLessThanOrEqual(ENDPOINTS);
    expect(await WebhookDelivery.count({ where: { status: 'succeeded' } })).toBe(2 * expected);
    expect(await WebhookDelivery.count({ where: { status: 'pending' } })).toBe(0);
    figures.kill = {
      deliveries: expected,
      received_when_killed: receivedAtKill,
      delivered_by_killed_instance: deliveredByA,
      delivered_by_survivor: (await deliveredBy(b)) - bBefore,
      duplicates,
      lost: 0,
      all_delivered_ms_after_kill: recovered - killedAt,
      lease_ms: 2 * TIMEOUT_MS + 5_000,
    };
  }, 180_000);
});
