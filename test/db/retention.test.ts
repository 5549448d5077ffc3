import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { AccessChange, AuditEntry, IngestDelivery, LoginLink, OutboxEvent, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../db/models';
import { createSequelize } from '../../db/connection';
import { Pruner } from '../../src/services/retention/pruner';
import { retentionPolicies, RetentionPolicy } from '../../src/services/retention/policies';

/**
 * docs/operating.md's retention with a fake clock: rows of the service's own bookkeeping, some due and some not, then the
 * pruner as of a chosen day. What is due goes, nothing else; in batches; two pruners at once delete each row once;
 * and (MySQL) a writer is never held up by a batch that is taking its rows.
 */

let t: TestApp;
const DAY = 86_400_000;
/** The fake clock: the pruner runs "now"; rows are made this many days before it. */
const NOW = new Date('2031-06-15T12:00:00.000Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);
const tag = () => randomBytes(5).toString('hex');

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const policies = () => retentionPolicies(t.config);
const pruner = (options: Partial<ConstructorParameters<typeof Pruner>[2]> = {}, on = t.runtime.sequelize, only?: string[]) =>
  new Pruner(on, policies().filter((p) => !only || only.includes(p.table)), { onError: (err) => { throw err; }, ...options }, () => NOW);

/** An endpoint of Acme's, and a delivery of an event to it, as the fan-out writes them. */
async function delivery(event: OutboxEvent, status: 'pending' | 'succeeded' | 'failed', updatedDaysAgo: number) {
  const endpoint = await WebhookEndpoint.create({
    id: `whe_${tag()}`,
    organization_id: DEMO.orgs.acme,
    url: 'https://receiver.example/hook',
    event_types: null,
    is_active: true,
    secret: 'sealed',
    created_at: ago(60),
    updated_at: ago(60),
  });
  return WebhookDelivery.create({
    id: `whd_${tag()}`,
    endpoint_id: endpoint.id,
    organization_id: DEMO.orgs.acme,
    event_seq: event.seq,
    event_id: event.id,
    event_type: event.type,
    status,
    next_attempt_at: status === 'pending' ? ago(updatedDaysAgo) : null,
    created_at: ago(updatedDaysAgo),
    updated_at: ago(updatedDaysAgo),
  });
}

const event = (daysAgo: number) =>
  OutboxEvent.create({ id: `evt_${tag()}`, organization_id: DEMO.orgs.acme, type: 'team.updated', data: '{}', created_at: ago(daysAgo) });
const attempt = (deliveryId: string, daysAgo: number) =>
  WebhookAttempt.create({ delivery_id: deliveryId, endpoint_id: 'whe_x', attempted_at: ago(daysAgo), duration_ms: 5, status_code: 200, error: null, response_excerpt: null });
const ingest = (daysAgo: number) => IngestDelivery.create({ app_id: DEMO.gitApps.acmeGithub, delivery_id: tag(), event: 'push', received_at: ago(daysAgo) });
const audit = (daysAgo: number) =>
  AuditEntry.create({
    id: `aud_${tag()}`,
    organization_id: DEMO.orgs.acme,
    actor_type: 'operator',
    actor_user_id: null,
    action: 'api_token.created',
    target_type: 'api_token',
    target_id: 'tok_x',
    details: '{}',
    created_at: ago(daysAgo),
  });

test('what is due goes, everything else stays, table by table', async () => {
  const oldLonely = await event(31); // due: old, no delivery needs it
  const oldPending = await event(45); // stays: its delivery is still pending
  const oldReplayable = await event(40); // stays while its finished delivery is kept (a replay needs the event)
  const young = await event(5);
  const pending = await delivery(oldPending, 'pending', 45);
  const finishedRecently = await delivery(oldReplayable, 'succeeded', 10);
  const finishedLongAgo = await delivery(young, 'failed', 31); // due: finished 31 days ago (its event is young)
  const attempts = [await attempt(finishedLongAgo.id, 31), await attempt(finishedRecently.id, 10)];
  const ingests = [await ingest(30.5), await ingest(29)];
  const audits = [await audit(366), await audit(300)];
  const changes = [await AccessChange.create({ user_id: DEMO.users.ada, created_at: ago(2) }), await AccessChange.create({ user_id: DEMO.users.ada, created_at: ago(0.5) })];
  const links = [
    await LoginLink.create({ token_hash: tag().padEnd(64, '0'), user_id: DEMO.users.ada, created_at: ago(1), expires_at: ago(0.99) }),
    await LoginLink.create({ token_hash: tag().padEnd(64, '1'), user_id: DEMO.users.ada, created_at: NOW, expires_at: new Date(NOW.getTime() + 600_000) }),
  ];

  const pruned = await pruner().prune(NOW);
  // Other rows of the demo data may be due too (it was made years before the fake clock): at least these went.
  expect(pruned.outbox_events).toBeGreaterThanOrEqual(1);
  expect(await OutboxEvent.findByPk(oldLonely.seq)).toBeNull();
  for (const kept of [oldPending, oldReplayable, young]) expect(await OutboxEvent.findByPk(kept.seq)).not.toBeNull();
  expect(await WebhookDelivery.findByPk(finishedLongAgo.id)).toBeNull();
  for (const kept of [pending, finishedRecently]) expect(await WebhookDelivery.findByPk(kept.id)).not.toBeNull();
  expect(await WebhookAttempt.findByPk(attempts[0].id)).toBeNull();
  expect(await WebhookAttempt.findByPk(attempts[1].id)).not.toBeNull();
  expect(await IngestDelivery.findOne({ where: { delivery_id: ingests[0].delivery_id } })).toBeNull();
  expect(await IngestDelivery.findOne({ where: { delivery_id: ingests[1].delivery_id } })).not.toBeNull();
  expect(await AuditEntry.findByPk(audits[0].id)).toBeNull();
  expect(await AuditEntry.findByPk(audits[1].id)).not.toBeNull();
  expect(await AccessChange.findByPk(changes[0].id)).toBeNull();
  expect(await AccessChange.findByPk(changes[1].id)).not.toBeNull();
  expect(await LoginLink.findByPk(links[0].token_hash)).toBeNull();
  expect(await LoginLink.findByPk(links[1].token_hash)).not.toBeNull();

  // A second run as of the same day finds nothing more.
  expect(Object.values(await pruner().prune(NOW)).every((n) => n === 0)).toBe(true);
});

test('in batches of the configured size, each its own transaction', async () => {
  for (let i = 0; i < 7; i++) await ingest(40);
  const batches: string[] = [];
  const pruned = await pruner({ batchSize: 3, inBatch: async (table) => void batches.push(table) }, t.runtime.sequelize, ['ingest_deliveries']).prune(NOW);
  expect(pruned).toEqual({ ingest_deliveries: 7 });
  expect(batches).toEqual(['ingest_deliveries', 'ingest_deliveries', 'ingest_deliveries']);
});

test('an audit-log page counted before the prune is counted again after it (data versions)', async () => {
  const token = await t.token();
  const count = async () => (await t.get(`/v1/organizations/${DEMO.orgs.acme}/audit-log?per_page=1`, token)).body.meta.total as number;
  await audit(400);
  await audit(400);
  const before = await count();
  expect(await count()).toBe(before); // cached
  await pruner({}, t.runtime.sequelize, ['audit_log']).prune(NOW);
  expect(await count()).toBeLessThanOrEqual(before - 2);
});

describe('two instances pruning at once', () => {
  let other: Sequelize;
  beforeAll(() => {
    other = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
  });
  afterAll(async () => other.close());

  test('each due row is deleted once, by one of them', async () => {
    const due = 40;
    for (let i = 0; i < due; i++) await ingest(35);
    const [a, b] = await Promise.all([
      pruner({ batchSize: 4 }, t.runtime.sequelize, ['ingest_deliveries']).prune(NOW),
      pruner({ batchSize: 4 }, other, ['ingest_deliveries']).prune(NOW),
    ]);
    expect(a.ingest_deliveries + b.ingest_deliveries).toBe(due);
    const [left] = await t.runtime.sequelize.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ingest_deliveries WHERE received_at < :cutoff`, {
      replacements: { cutoff: ago(30) },
      type: QueryTypes.SELECT,
    });
    expect(Number(left.n)).toBe(0);
  });

  // SQLite has one writer at a time by design: a write waits for whatever transaction writes, pruner or not.
  const onMysql = process.env.DATABASE_URL ? test : test.skip;
  onMysql('a writer adding or changing rows waits for no batch, and the other pruner takes other rows', async () => {
    for (let i = 0; i < 6; i++) await ingest(35);
    const kept = await ingest(1);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let taken!: () => void;
    const batchOpen = new Promise<void>((resolve) => (taken = resolve));
    const holding = pruner(
      {
        batchSize: 3,
        inBatch: async () => {
          taken();
          await held;
        },
      },
      t.runtime.sequelize,
      ['ingest_deliveries'],
    ).prune(NOW);
    await batchOpen;
    // The first batch holds its three rows. A writer with a one-second lock wait: a new row, and a row not due.
    const writer = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
    try {
      await writer.transaction(async (transaction) => {
        await writer.query('SET SESSION innodb_lock_wait_timeout = 1', { transaction });
        await writer.query("INSERT INTO ingest_deliveries (app_id, delivery_id, event, received_at) VALUES (:app, :id, 'push', :at)", {
          replacements: { app: DEMO.gitApps.acmeGithub, id: tag(), at: NOW },
          transaction,
        });
        await writer.query("UPDATE ingest_deliveries SET event = 'ping' WHERE app_id = :app AND delivery_id = :id", {
          replacements: { app: kept.app_id, id: kept.delivery_id },
          transaction,
        });
      });
      // Meanwhile another pruner skips the held rows and takes the other three.
      const second = await pruner({ batchSize: 10 }, other, ['ingest_deliveries']).prune(NOW);
      expect(second.ingest_deliveries).toBe(3);
    } finally {
      release();
      await writer.close();
    }
    expect((await holding).ingest_deliveries).toBe(3);
  });
});

test('every policy names an indexed time column of its table', async () => {
  const qi = t.runtime.sequelize.getQueryInterface();
  const leading = async (policy: RetentionPolicy) => {
    const indexes = (await qi.showIndex(policy.table)) as { fields: { attribute: string }[] }[];
    return indexes.some((index) => index.fields[0]?.attribute === policy.column);
  };
  for (const policy of policies()) expect([policy.table, await leading(policy)]).toEqual([policy.table, true]);
});
