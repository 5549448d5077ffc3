import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { createSequelize, pingReplicas } from '../../db/connection';
import { migrate } from '../../db/migrator';
import { seedDemo } from '../../db/demo/generator';
import { createToken } from '../../src/auth/tokens/apiTokens';
import { hashToken } from '../../src/auth/tokenFormat';
import { startTestApp, TestApp, DEMO, DEMO_END_DAY, SERVICES } from '../support/harness';
import { sleep } from '../support/common';

/**
 * Read replicas (DATABASE_READ_URLS): SELECTs outside transactions go to the replicas through Sequelize's
 * replication, while writes, the token lookups (useMaster) and the migration ledger use the primary. A second
 * database on the same server stands in for the replica: migrated and seeded like the primary, then changed so
 * that a read shows where it came from. There is no replication between the two, which is the point: every
 * read and write below can only succeed on the database it was sent to.
 */

describe('DATABASE_READ_URLS configuration', () => {
  const primary = 'mysql://app:secret@primary.example:3306/platform';

  test('without DATABASE_URL it is an error naming both variables', () => {
    expect(() => loadConfig({ DATABASE_READ_URLS: 'mysql://reader@replica.example:3306/platform' })).toThrow(
      /DATABASE_READ_URLS: DATABASE_READ_URLS needs DATABASE_URL/,
    );
  });

  test('an entry that is not a mysql:// URL is an error naming the variable and the entry, not its value', () => {
    let message = '';
    try {
      loadConfig({ DATABASE_URL: primary, DATABASE_READ_URLS: 'mysql://r@replica-1/platform,postgres://r:hunter2@replica-2/platform' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/DATABASE_READ_URLS: DATABASE_READ_URLS must be comma-separated mysql:\/\/ URLs/);
    expect(message).toContain('entry 2 of 2');
    expect(message).not.toContain('hunter2');
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URLS: 'replica-1:3306' })).toThrow(/DATABASE_READ_URLS/);
  });

  test('a comma-separated list is trimmed; empty means unset, also on SQLite', () => {
    expect(
      loadConfig({ DATABASE_URL: primary, DATABASE_READ_URLS: ' mysql://r@replica-1/platform , mysql://r@replica-2:3307/platform ' })
        .DATABASE_READ_URLS,
    ).toEqual(['mysql://r@replica-1/platform', 'mysql://r@replica-2:3307/platform']);
    expect(loadConfig({ DATABASE_READ_URLS: '' }).DATABASE_READ_URLS).toEqual([]);
    expect(loadConfig({}).DATABASE_READ_URLS).toEqual([]);
  });
});

const describeWithMysql = SERVICES.databaseUrl ? describe : describe.skip;

describeWithMysql('read replicas on MariaDB', () => {
  const server = new URL(SERVICES.databaseUrl ?? 'mysql://root@127.0.0.1:3306/platform_test');
  const replicaName = `${server.pathname.slice(1) || 'platform_test'}_replica_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(4).toString('hex')}`;
  const replicaUrl = new URL(`/${replicaName}`, server).toString();
  const admin = () => new Sequelize(new URL('/', server).toString(), { dialect: 'mysql', logging: false });
  const REPLICA_NAME = 'Linus (replica)';

  let replica: Sequelize | undefined;
  let primary: Sequelize | undefined;
  let t: TestApp | undefined;
  const app = () => t!;

  beforeAll(async () => {
    const a = admin();
    await a.query(`CREATE DATABASE \`${replicaName}\``);
    await a.close();
    replica = createSequelize({ url: replicaUrl, sqlitePath: ':memory:' });
    await migrate(replica);
    await seedDemo(replica, { scale: 'tiny', endDay: DEMO_END_DAY });
    await replica.query('UPDATE users SET name = ? WHERE id = ?', { replacements: [REPLICA_NAME, DEMO.users.linus] });

    // The harness migrates and seeds the app's (primary) database through the app's own Sequelize instance,
    // replicas included: the migrator must read its ledger from the primary, or the replica's (already
    // migrated) ledger would leave the primary without tables and the seed would fail.
    t = await startTestApp({ DATABASE_READ_URLS: replicaUrl, RATE_LIMIT_PER_MINUTE: '10000', RATE_LIMIT_PER_HOUR: '100000' });
    primary = new Sequelize(app().config.DATABASE_URL!, { dialect: 'mysql', logging: false });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await replica?.close();
    await primary?.close();
    const a = admin();
    await a.query(`DROP DATABASE IF EXISTS \`${replicaName}\``);
    await a.close();
  });

  const one = async (db: Sequelize, sql: string, replacements: unknown[]) =>
    (await db.query<Record<string, unknown>>(sql, { type: QueryTypes.SELECT, replacements }))[0];
  const tokenRow = (db: Sequelize, id: string) => one(db, 'SELECT * FROM api_tokens WHERE id = ?', [id]);
  /** The primary's row of a token, copied to the replica as it is now (as replication would have). */
  const copyTokenToReplica = async (id: string) => {
    await replica!.getQueryInterface().bulkInsert('api_tokens', [(await tokenRow(primary!, id))!]);
  };
  const linusPath = `/v1/users/${DEMO.users.linus}`;

  test('the app was configured with the replica and migrated the primary', async () => {
    expect(app().config.DATABASE_READ_URLS).toEqual([replicaUrl]);
    const ledger = await primary!.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name', { type: QueryTypes.SELECT });
    const replicaLedger = await replica!.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name', { type: QueryTypes.SELECT });
    expect(ledger.map((r) => r.name)).toEqual(replicaLedger.map((r) => r.name));
    expect(ledger.length).toBeGreaterThan(0);
  });

  test('a /v1 read answers from the replica', async () => {
    const token = await app().token();
    const res = await app().get(linusPath, token);
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe(REPLICA_NAME);
    expect(await one(primary!, 'SELECT name FROM users WHERE id = ?', [DEMO.users.linus])).toEqual({ name: 'Linus Torvalds' });
  });

  test('a token that exists only on the primary authenticates: token lookups read the primary', async () => {
    const created = await createToken({ user: DEMO.emails.ada, name: 'primary only' });
    expect(await one(replica!, 'SELECT id FROM api_tokens WHERE token_hash = ?', [hashToken(created.token)])).toBeUndefined();
    expect(await tokenRow(primary!, created.id)).toMatchObject({ token_hash: hashToken(created.token) });
    const res = await app().get(linusPath, created.token);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(DEMO.users.linus);
  });

  test('last_used_at is written to the primary, never to the replica', async () => {
    const created = await createToken({ user: DEMO.emails.grace, name: 'last used' });
    await copyTokenToReplica(created.id);
    expect((await tokenRow(replica!, created.id))!.last_used_at).toBeNull();

    expect((await app().get(linusPath, created.token)).status).toBe(200);
    let lastUsed: unknown = null;
    for (const until = Date.now() + 5_000; !lastUsed && Date.now() < until; ) {
      lastUsed = (await tokenRow(primary!, created.id))!.last_used_at;
      if (!lastUsed) await sleep(50);
    }
    expect(lastUsed).toBeInstanceOf(Date);
    expect((await tokenRow(replica!, created.id))!.last_used_at).toBeNull();
  });

  test('a revocation on the primary stops the token within 5 s while the replica still says active', async () => {
    const created = await createToken({ user: DEMO.emails.ada, name: 'revoked on the primary' });
    await copyTokenToReplica(created.id);
    expect((await app().get(linusPath, created.token)).status).toBe(200);
    await primary!.query('UPDATE api_tokens SET is_active = false, revoked_at = ? WHERE id = ?', {
      replacements: [new Date(), created.id],
    });

    const revokedAt = Date.now();
    let sentAt = Date.now();
    let res = await app().get(linusPath, created.token);
    while (res.status === 200 && Date.now() - revokedAt < 6_500) {
      await sleep(150);
      sentAt = Date.now();
      res = await app().get(linusPath, created.token);
    }
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: { status: 'error', error: { code: 'UNAUTHORIZED', message: 'API token has been revoked' } },
    });
    // The first refused request was sent within the 5 s cache time plus one polling step and one request.
    expect(sentAt - revokedAt).toBeLessThan(5_750);
    expect((await tokenRow(replica!, created.id))!.is_active).toBeTruthy();
  }, 20_000);

  test('/readyz checks the primary and each replica', async () => {
    const res = await request(app().runtime.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.checks).toMatchObject({ database: 'ok', database_replicas: 'ok' });
    expect(await pingReplicas([replicaUrl, 'mysql://root@127.0.0.1:1/nowhere'], 2_000)).toEqual([true, false]);
  });
});
