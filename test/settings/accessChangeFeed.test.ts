import { AccessChange } from '../../db/models';
import { AccessChangeFeed } from '../../src/auth/accessChangeFeed';
import { startTestApp, TestApp } from '../support/harness';

/**
 * The feed every instance reads access changes from (docs/api.md#tokens-limits-and-headers): each change's users are forgotten once, a change
 * that commits after a later-numbered one is still seen, and a flood of changes forgets everyone.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

function listener() {
  const forgotten: string[][] = [];
  let all = 0;
  return { forgotten, all: () => all, forgetUsers: (ids: readonly string[]) => forgotten.push([...ids].sort()), forgetAll: () => all++ };
}

const change = (id: number, user_id: string) => AccessChange.create({ id, user_id, created_at: new Date() });

test('new changes are forgotten once each; one committed late, below a seen id, is still read', async () => {
  const base = Number((await AccessChange.max('id')) ?? 0) + 1_000;
  const heard = listener();
  let now = 0;
  const feed = new AccessChangeFeed(heard, { intervalMs: 1_000, onError: (e) => { throw e; } }, () => now);
  await feed.read(); // starts from the newest change
  await change(base + 2, 'usr_b');
  await change(base + 3, 'usr_c');
  await feed.read();
  expect(heard.forgotten).toEqual([['usr_b', 'usr_c']]);
  await feed.read();
  expect(heard.forgotten).toHaveLength(1);

  // A change whose id was taken earlier commits now: seen, since reads start below what they saw recently.
  now += 5_000;
  await change(base + 1, 'usr_a');
  await feed.read();
  expect(heard.forgotten).toEqual([['usr_b', 'usr_c'], ['usr_a']]);

  // Long after, the reads start above what was seen (the token cache's TTL covers what is older).
  now += 20_000;
  await feed.read();
  await feed.read();
  await change(base + 4, 'usr_d');
  await feed.read();
  expect(heard.forgotten).toEqual([['usr_b', 'usr_c'], ['usr_a'], ['usr_d']]);
  expect(heard.all()).toBe(0);
});

test('more changes at once than one read takes: every cached token is forgotten, and the next reads go on from there', async () => {
  const heard = listener();
  const feed = new AccessChangeFeed(heard, { intervalMs: 1_000, onError: (e) => { throw e; } });
  await feed.read();
  const base = Number((await AccessChange.max('id')) ?? 0) + 1;
  await AccessChange.bulkCreate(Array.from({ length: 5_001 }, (_, i) => ({ id: base + i, user_id: `usr_${i}`, created_at: new Date() })));
  await feed.read();
  expect(heard.all()).toBe(1);
  await feed.read();
  expect(heard.forgotten).toEqual([['usr_5000']]);
});
