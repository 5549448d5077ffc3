import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { Commit, initModels } from '../db/models';
import { createRuntime } from '../src/runtime';
import { createLogger } from '../src/logger';
import { recordChange } from '../src/services/query/dataVersions';
import { startTestApp, TestApp, DEMO } from './support/harness';

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
    await recordChange(['commits'], transaction);
  });
  expect(await total(a, tokenA)).toBe(before + 1);
  expect(await total(a, tokenA, `/v1/git/apps/${DEMO.gitApps.acmeGithub}/repositories/all/commits?per_page=2`)).toBeGreaterThan(0);

  await expect(
    a.runtime.sequelize.transaction(async (transaction) => {
      await Commit.create(await commitRow(), { transaction });
      await recordChange(['commits'], transaction);
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
    await recordChange(['commits'], transaction);
  });
  expect(await total(a, tokenA)).toBe(before + 2);
});

test('two instances on one database: a write through either is counted by both at once', async () => {
  const second = createRuntime(a.config, createLogger('silent'), { rateLimitKeyPrefix: `test:${randomBytes(6).toString('hex')}` });
  try {
    const viaB = (path = '/v1/commits?per_page=2') => request(second.app).get(path).set('Authorization', `Bearer ${tokenA}`);
    const before = await total(a, tokenA);
    expect((await viaB()).body.meta.total).toBe(before);
    await second.sequelize.transaction(async (transaction) => {
      await Commit.create(await commitRow(), { transaction });
      await recordChange(['commits'], transaction);
    });
    expect(await total(a, tokenA)).toBe(before + 1);
    expect((await viaB()).body.meta.total).toBe(before + 1);
  } finally {
    await second.close();
    // The models follow the newest connection; give them back to the first app's.
    initModels(a.runtime.sequelize);
  }
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
