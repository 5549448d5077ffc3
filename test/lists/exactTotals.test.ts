import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Commit, initModels } from '../../db/models';
import { createRuntime, Runtime } from '../../src/runtime';
import type { Config } from '../../src/config';
import { eventually } from '../support/peers/receiver';
import { createLogger } from '../../src/logger';
import { DataVersions } from '../../src/persistence/query/dataVersions';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * `meta.total` is exact after a write through the service, on every instance: writers raise the versions of the
 * tables they change in their transaction (recordChange), and cached totals are kept per version. A change made
 * behind the service's back shows within COUNT_CACHE_TTL_MS.
 */

let a: TestApp;
let tokenA: string;
beforeAll(async () => {
  a = await startTestApp({ COUNT_CACHE_TTL_MS: '600000' });
  tokenA = await a.token();
});
afterAll(async () => a.close());

const total = async (t: TestApp, token: string, path = '/v1/commits?per_page=2') => {
  const res = await t.get(path, token);
  expect(res.status).toBe(200);
  return res.body.meta.total as number;
};

/** A commit like an existing one of Acme's api repository, with an id and sha of its own. */
async function commitRow() {
  const model = (await Commit.findOne({ where: { repository_id: DEMO.repos.acmeApi } }))!.get({ plain: true });
  const id = randomBytes(6).toString('hex');
  return { ...model, id: `cmt_${id}`, sha: `${id}${'0'.repeat(28)}`, created_at: new Date() };
}

test('a write that records its change is counted at once; one that rolls back changes nothing', async () => {
  const before = await total(a, tokenA);
  expect(await total(a, tokenA)).toBe(before); // cached

  await a.runtime.sequelize.transaction(async (transaction) => {
    await Commit.create(await commitRow(), { transaction });
    await DataVersions.for(a.runtime.sequelize).recordChange(['commits'], transaction);
  });
  expect(await total(a, tokenA)).toBe(before + 1);
  expect(await total(a, tokenA, `/v1/git/apps/${DEMO.gitApps.acmeGithub}/repositories/all/commits?per_page=2`)).toBeGreaterThan(0);

  await expect(
    a.runtime.sequelize.transaction(async (transaction) => {
      await Commit.create(await commitRow(), { transaction });
      await DataVersions.for(a.runtime.sequelize).recordChange(['commits'], transaction);
      throw new Error('the change fails after recording it');
    }),
  ).rejects.toThrow('the change fails');
  expect(await total(a, tokenA)).toBe(before + 1);
});

test('a change behind the service’s back keeps the cached total until it expires', async () => {
  const before = await total(a, tokenA);
  await Commit.create(await commitRow());
  expect(await total(a, tokenA)).toBe(before); // documented bound: COUNT_CACHE_TTL_MS (10 minutes in this app)
  // The next change through the service corrects it, counting both.
  await a.runtime.sequelize.transaction(async (transaction) => {
    await Commit.create(await commitRow(), { transaction });
    await DataVersions.for(a.runtime.sequelize).recordChange(['commits'], transaction);
  });
  expect(await total(a, tokenA)).toBe(before + 2);
});

/** A second instance of the service on the same database, in this process. */
async function withSecondInstance(config: Config, use: (viaB: (path?: string) => request.Test, b: Runtime) => Promise<void>) {
  const b = createRuntime(config, createLogger('silent'), { rateLimitKeyPrefix: `test:${randomBytes(6).toString('hex')}` });
  try {
    await use((path = '/v1/commits?per_page=2') => request(b.app).get(path).set('Authorization', `Bearer ${tokenA}`), b);
  } finally {
    await b.close();
    // The models follow the newest connection; give them back to the first app's.
    initModels(a.runtime.sequelize);
  }
}

const addCommitThrough = (runtime: Runtime) =>
  runtime.sequelize.transaction(async (transaction) => {
    await Commit.create(await commitRow(), { transaction });
    await DataVersions.for(runtime.sequelize).recordChange(['commits'], transaction);
  });

const withRedis = process.env.REDIS_URL ? test : test.skip;

withRedis('two instances on one database and one Redis: a write through either is counted by both at once', async () => {
  await withSecondInstance(a.config, async (viaB, b) => {
    const before = await total(a, tokenA);
    expect((await viaB()).body.meta.total).toBe(before);
    await addCommitThrough(b);
    expect(await total(a, tokenA)).toBe(before + 1);
    expect((await viaB()).body.meta.total).toBe(before + 1);
    await addCommitThrough(a.runtime);
    expect((await viaB()).body.meta.total).toBe(before + 2);
    expect(await total(a, tokenA)).toBe(before + 2);
  });
});

test('an instance without Redis: its writes are counted by the others within their poll of a second, its own at once', async () => {
  await withSecondInstance({ ...a.config, REDIS_URL: undefined }, async (viaB, b) => {
    const before = await total(a, tokenA);
    expect((await viaB()).body.meta.total).toBe(before);
    await addCommitThrough(b);
    expect((await viaB()).body.meta.total).toBe(before + 1);
    await eventually('the first instance to poll the change', async () => (await total(a, tokenA)) === before + 1, 2_000);
    await addCommitThrough(a.runtime);
    expect(await total(a, tokenA)).toBe(before + 2);
    await eventually('the second instance to poll the change', async () => (await viaB()).body.meta.total === before + 2, 2_000);
  });
});

test('with a short time to live a change behind the service’s back shows once it has passed', async () => {
  const b = await startTestApp({ COUNT_CACHE_TTL_MS: '300' });
  try {
    const token = await b.token();
    const before = await total(b, token);
    await Commit.create(await commitRow());
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await total(b, token)).toBe(before + 1);
  } finally {
    await b.close();
  }
});
