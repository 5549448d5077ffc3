import { BodyBudget } from '../../src/wire/bodyBudget';

/** A per-process budget of body bytes (src/wire/bodyBudget.ts). */

test('reservations within the capacity are granted at once, and released bytes are free again', async () => {
  const budget = new BodyBudget(100);
  const a = await budget.reserve(60, 1_000);
  const b = await budget.reserve(40, 1_000);
  expect(budget.reserved).toBe(100);
  a!();
  a!(); // a second release gives nothing back twice
  expect(budget.reserved).toBe(40);
  b!();
  expect(budget.reserved).toBe(0);
});

test('a reservation that does not fit waits, first come first served, until bytes are released', async () => {
  const budget = new BodyBudget(100);
  const first = await budget.reserve(80, 1_000);
  const order: string[] = [];
  const big = budget.reserve(70, 1_000).then((release) => (order.push('big'), release));
  // Small enough to fit now, but it must not overtake the one waiting before it.
  const small = budget.reserve(10, 1_000).then((release) => (order.push('small'), release));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(order).toEqual([]);
  first!();
  const [releaseBig, releaseSmall] = await Promise.all([big, small]);
  expect(order).toEqual(['big', 'small']);
  expect(budget.reserved).toBe(80);
  releaseBig!();
  releaseSmall!();
  expect(budget.reserved).toBe(0);
});

test('a reservation still waiting after maxWaitMs gets nothing, and those behind it move up', async () => {
  const budget = new BodyBudget(100);
  const held = await budget.reserve(100, 1_000);
  expect(await budget.reserve(50, 30)).toBeUndefined();
  expect(budget.reserved).toBe(100);
  held!();
  const again = await budget.reserve(100, 30);
  expect(again).toBeInstanceOf(Function);
  again!();
});

test('a body larger than the capacity reserves the whole capacity, so it can still be read alone', async () => {
  const budget = new BodyBudget(100);
  const release = await budget.reserve(500, 1_000);
  expect(budget.reserved).toBe(100);
  release!();
});

test("one holder holds at most its share; its next reservation waits for its own, and others' go ahead of it", async () => {
  const budget = new BodyBudget(100, 50);
  const first = await budget.reserve(50, 1_000, 'a');
  let second: (() => void) | undefined;
  const waiting = budget.reserve(30, 1_000, 'a').then((release) => (second = release));
  // Another client's reservation is not held up behind it.
  const other = await budget.reserve(40, 1_000, 'b');
  expect([budget.heldBy('a'), budget.heldBy('b'), second]).toEqual([50, 40, undefined]);
  first!();
  await waiting;
  expect([budget.heldBy('a'), budget.reserved]).toEqual([30, 70]);
  second!();
  other!();
  expect(budget.reserved).toBe(0);
});

test('take: more bytes for a body being read, at once or not at all, within the capacity and the share, ahead of those waiting', async () => {
  const budget = new BodyBudget(100, 50);
  const held = await budget.reserve(40, 1_000, 'a');
  const queued = budget.reserve(70, 1_000, 'b');
  const more = budget.take(10, 'a');
  expect(budget.heldBy('a')).toBe(50);
  // Past its share, or past the capacity: refused at once.
  expect(budget.take(1, 'a')).toBeUndefined();
  expect(budget.take(60, 'c')).toBeUndefined();
  held!();
  more!();
  (await queued)!();
  expect(budget.reserved).toBe(0);
});
