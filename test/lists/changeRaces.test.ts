import { randomBytes } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import { initModels } from '../../db/models';
import { createSequelize } from '../../db/connection';
import { createRuntime, Runtime } from '../../src/runtime';
import { createLogger } from '../../src/logger';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { DomainError } from '../../src/errors';
import { scimErrorHandler } from '../../src/scim/router';
import { sendIngestError, toIngestAnswer } from '../../src/ingest/errors';
import { toRestError } from '../../src/wire/errorMapping';
import { sendError } from '../../src/http/errors';
import { sendOtlpFailure, toOtlpFailure } from '../../src/otlp/errors';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { oktaCreateUser } from '../support/peers/idpPayloads';

/**
 * Honest answers under races (docs/operating.md): a change that loses to concurrent changes runs again, and one that
 * loses every time is never blamed on the client: 409 when what it would add exists, else 503 with Retry-After,
 * in each surface's own format. Never 400, never 500.
 */

let t: TestApp;
let second: Runtime;
let okta: string;
beforeAll(async () => {
  t = await startTestApp();
  second = createRuntime(t.config, createLogger('silent'), { rateLimitKeyPrefix: `test:${randomBytes(6).toString('hex')}` });
  okta = (await createScimToken({ organizationId: DEMO.orgs.acme, name: 'Okta' })).token;
});
afterAll(async () => {
  await second?.close();
  initModels(t.runtime.sequelize);
  await t.close();
});

const create = (runtime: Runtime, email: string) =>
  request(runtime.app)
    .post('/scim/v2/Users')
    .set('Authorization', `Bearer ${okta}`)
    .set('Content-Type', 'application/scim+json')
    // Okta's create, with an external id of this user's own (the captured payload has one fixed id).
    .send(JSON.stringify({ ...oktaCreateUser(email), externalId: `00u${email.slice(5, 13)}` }));

test('two instances creating one new e-mail at once: one 201, the other 409 (or 503), in SCIM’s format', async () => {
  for (let round = 0; round < 6; round++) {
    const email = `race-${randomBytes(4).toString('hex')}@example.com`;
    const answers = await Promise.all([create(t.runtime, email), create(second, email)]);
    const statuses = answers.map((a) => a.status).sort((x, y) => x - y);
    expect(statuses[0]).toBe(201);
    expect([409, 503]).toContain(statuses[1]);
    const refused = answers.find((a) => a.status !== 201)!;
    expect(refused.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    if (refused.status === 503) expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
});

describe('a change that loses every attempt', () => {
  const onMysql = process.env.DATABASE_URL ? test : test.skip;
  let rival: Sequelize;
  beforeAll(() => {
    rival = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
  });
  afterAll(async () => rival.close());

  /**
   * A real deadlock on every attempt: the change locks row A; a rival transaction that has already changed many
   * rows (so InnoDB picks the change, the lighter one, as the victim) locks B and waits for A; the change asks for B.
   */
  async function deadlockedAttempt(transaction: Transaction, round: string) {
    const lock = (sequelize: Sequelize, name: string, tx: Transaction) =>
      sequelize.query('UPDATE data_versions SET version = version + 1 WHERE name = :name', { replacements: { name }, transaction: tx });
    await lock(t.runtime.sequelize, `${round}-a`, transaction);
    let rivalThread: (id: number) => void = () => undefined;
    const rivalThreadId = new Promise<number>((resolve) => (rivalThread = resolve));
    const rivalDone = rival.transaction(async (tx) => {
      const [own] = await rival.query<{ id: number }>('SELECT CONNECTION_ID() AS id', { type: QueryTypes.SELECT, transaction: tx });
      rivalThread(Number(own.id));
      for (let i = 0; i < 20; i++) await lock(rival, `${round}-weight-${i}`, tx);
      await lock(rival, `${round}-b`, tx);
      await lock(rival, `${round}-a`, tx); // waits for the change
    });
    // Once the rival waits for A (however long its twenty updates take on a busy machine), close the cycle.
    await rivalWaiting(await rivalThreadId, round);
    try {
      await lock(t.runtime.sequelize, `${round}-b`, transaction);
    } finally {
      void rivalDone.catch(() => undefined);
    }
  }

  /**
   * Until the rival's connection is running its update of A, which waits for the change's lock: B is then the
   * rival's, so the change's update of B closes the cycle. Found by the rival's own connection id, as the server runs
   * other test files' statements too; MariaDB 10.11's INNODB_TRX shows such a waiting transaction as RUNNING, so the
   * statement is what tells.
   */
  async function rivalWaiting(threadId: number, round: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const [row] = await rival.query<{ waiting: number }>('SELECT COUNT(*) AS waiting FROM information_schema.PROCESSLIST WHERE ID = :threadId AND INFO LIKE :statement', {
        type: QueryTypes.SELECT,
        replacements: { threadId, statement: `%WHERE name = '${round}-a'%` },
      });
      if (Number(row.waiting) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the rival transaction never came to wait for the lock the change holds');
  }

  onMysql('is 503 with Retry-After after its retries, not 400 or 500', async () => {
    const round = `race-${randomBytes(3).toString('hex')}`;
    const names = ['a', 'b', ...Array.from({ length: 20 }, (_, i) => `weight-${i}`)].map((n) => `${round}-${n}`);
    await t.runtime.sequelize.query(`INSERT INTO data_versions (name, version) VALUES ${names.map(() => '(?, 0)').join(', ')}`, { replacements: names });
    let attempts = 0;
    const failure = await ChangeRunner.for(t.runtime.sequelize)
      .run(async ({ transaction }) => {
        attempts += 1;
        await deadlockedAttempt(transaction, round);
      })
      .catch((err: unknown) => err);
    expect(attempts).toBe(5);
    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ kind: 'unavailable', detail: { retryAfterSeconds: 1 } });
  }, 30_000);
});

test('a runner closed before its pool: the change under way commits, a new one is refused with 503, and close waits for the first', async () => {
  const pool = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
  const runner = new ChangeRunner(pool);
  const name = `closing-${randomBytes(3).toString('hex')}`;
  let begun: () => void = () => undefined;
  let proceed: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (begun = resolve));
  const gate = new Promise<void>((resolve) => (proceed = resolve));
  const underWay = runner.run(async ({ transaction }) => {
    begun();
    await gate;
    await pool.query('INSERT INTO data_versions (name, version) VALUES (:name, 0)', { replacements: { name }, transaction });
  });
  await started;
  let closed = false;
  const closing = runner.close().then(() => (closed = true));
  expect(await runner.run(async () => undefined).catch((err: unknown) => err)).toMatchObject({ kind: 'unavailable', detail: { retryAfterSeconds: 1 } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(closed).toBe(false);
  proceed();
  await underWay;
  await closing;
  await pool.close();
  const rows = await t.runtime.sequelize.query('SELECT version FROM data_versions WHERE name = :name', { type: QueryTypes.SELECT, replacements: { name } });
  expect(rows).toEqual([{ version: 0 }]);
});

/** What each surface answers for that failure, through its own sender on a real express response. */
describe('each surface answers a lost race as 503 with Retry-After, in its own format', () => {
  const lost = new DomainError('unavailable', 'The change lost to concurrent changes of the same data 5 times; send it again', { retryAfterSeconds: 1 });
  const app = express();
  app.get('/rest', (_req, res) => sendError(res, toRestError(lost)));
  app.get('/ingest', (_req, res) => sendIngestError(res, toIngestAnswer(lost)!));
  app.post('/otlp', express.raw({ type: '*/*' }), (req, res) => sendOtlpFailure(req, res, toOtlpFailure(lost, 1024)!));
  app.get('/scim', () => {
    throw lost;
  });
  app.use('/scim', scimErrorHandler(createLogger('silent')));

  test('REST and tRPC: SERVICE_UNAVAILABLE in the envelope', async () => {
    const res = await request(app).get('/rest');
    expect([res.status, res.headers['retry-after'], res.body]).toEqual([503, '1', { status: 'error', error: { code: 'SERVICE_UNAVAILABLE', message: lost.message } }]);
  });

  test('SCIM: an RFC 7644 error with status "503"', async () => {
    const res = await request(app).get('/scim');
    expect([res.status, res.headers['retry-after'], res.headers['content-type']]).toEqual([503, '1', 'application/scim+json; charset=utf-8']);
    expect(res.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '503', detail: lost.message });
  });

  test('git ingest: SERVICE_UNAVAILABLE in the envelope; a conflict there is 409, not 400', async () => {
    const res = await request(app).get('/ingest');
    expect([res.status, res.headers['retry-after'], res.body]).toEqual([503, '1', { status: 'error', error: { code: 'SERVICE_UNAVAILABLE', message: lost.message } }]);
    expect(toIngestAnswer(new DomainError('conflict', 'That already exists'))).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  test('OTLP: a google.rpc.Status with code UNAVAILABLE (14), which exporters retry after Retry-After', async () => {
    const res = await request(app).post('/otlp').set('Content-Type', 'application/json').send('{}');
    expect([res.status, res.headers['retry-after']]).toEqual([503, '1']);
    expect(res.body).toEqual({ code: 14, message: lost.message });
  });
});
