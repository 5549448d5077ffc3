import { randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { BodyBudget } from '../../src/wire/bodyBudget';
import { DEMO, startTestApp, TestApp } from '../support/harness';
import { sleep, unique } from '../support/common';
import { githubExamples } from '../support/peers/ingest';
import { startUpload, Upload } from '../support/uploads';

/** A per-process budget of body bytes (src/wire/bodyBudget.ts), and the ingest's use of it (src/ingest/body.ts). */

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

describe("the ingest's budget on a listening server: one client cannot hold more than its share", () => {
  const MB = 1024 * 1024;
  const PIECE = 64 * 1024;
  const A = '127.0.0.1';
  const B = '127.0.0.2';
  let t: TestApp;
  let origin: string;
  let github: { id: string; secret: string };
  beforeAll(async () => {
    // The default INGEST_BODY_LIMIT_KB: 25 MB, a budget of 50 MB, 25 MB a client.
    t = await startTestApp({ INGEST_RATE_LIMIT_PER_MINUTE: '100000' });
    origin = await t.listen();
    const { gitApp, secret } = await t.runtime.writers.gitApps.create(DEMO.orgs.acme, 'github', `GitHub ${unique()}`);
    github = { id: gitApp.id, secret };
  });
  afterAll(async () => t.close());
  afterEach(() => jest.restoreAllMocks());

  /** What the server asks of the budget, as it asks: each reservation (granted once it is) and each take. */
  function watchBudget() {
    const calls: { method: 'reserve' | 'take'; bytes: number; holder?: string; granted?: boolean }[] = [];
    const waiters: (() => void)[] = [];
    const told = () => waiters.splice(0).forEach((wake) => wake());
    let budget: BodyBudget | undefined;
    const { reserve, take } = BodyBudget.prototype;
    jest.spyOn(BodyBudget.prototype, 'reserve').mockImplementation(function (this: BodyBudget, bytes, maxWaitMs, holder) {
      budget = this;
      const call: (typeof calls)[number] = { method: 'reserve', bytes, holder };
      calls.push(call);
      told();
      return reserve.call(this, bytes, maxWaitMs, holder).then((release) => {
        call.granted = release !== undefined;
        told();
        return release;
      });
    });
    jest.spyOn(BodyBudget.prototype, 'take').mockImplementation(function (this: BodyBudget, bytes, holder) {
      budget = this;
      const release = take.call(this, bytes, holder);
      calls.push({ method: 'take', bytes, holder, granted: release !== undefined });
      told();
      return release;
    });
    return {
      calls,
      heldBy: (holder: string) => budget?.heldBy(holder),
      /** Gives the uploads up and waits until the server has let go of every byte they held. */
      giveUp: async (...uploads: Upload[]) => {
        for (const upload of uploads) upload.destroy();
        while (budget && budget.reserved > 0) await sleep(10);
      },
      /** Waits until what was asked satisfies `seen`. */
      until: async (seen: (asked: typeof calls) => boolean) => {
        while (!seen(calls)) await new Promise<void>((wake) => waiters.push(wake));
      },
    };
  }

  /** A large upload to the GitHub app, its head and first piece sent, the rest never. */
  async function slowUpload(declared?: number): Promise<Upload> {
    const headers = { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': randomUUID(), 'X-Hub-Signature-256': 'sha256=00' };
    const upload = startUpload(origin, `/ingest/github/${github.id}`, headers, { localAddress: A, contentLength: declared });
    await upload.write(`{"ref":"refs/heads/main","padding":"${'x'.repeat(PIECE - 36)}`);
    return upload;
  }

  /** GitHub's own push example, signed, sent whole by another client. */
  async function deliveryFromAnotherClient() {
    const body = JSON.stringify(githubExamples('push')[0]);
    const headers = { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': randomUUID(), 'X-Hub-Signature-256': await sign(github.secret, body) };
    const upload = startUpload(origin, `/ingest/github/${github.id}`, headers, { localAddress: B, contentLength: Buffer.byteLength(body) });
    await upload.write(body);
    upload.end();
    return upload.answer;
  }

  test("two slow uploads declaring 25 MB each: the first holds the client's share, the second waits for it, and another client's delivery is taken meanwhile", async () => {
    const budget = watchBudget();
    const first = await slowUpload(25 * MB);
    await budget.until((asked) => asked.some((c) => c.holder === A && c.granted));
    const second = await slowUpload(25 * MB);
    await budget.until((asked) => asked.filter((c) => c.holder === A).length === 2);

    const answer = await deliveryFromAnotherClient();
    expect([answer.status, answer.body.data?.result]).toEqual([200, 'applied']);
    // The first still holds its client's share; the second has not been given a byte beside it.
    expect(budget.heldBy(A)).toBe(25 * MB);
    expect(budget.calls.filter((c) => c.holder === A).map((c) => c.granted)).toEqual([true, undefined]);
    await budget.giveUp(first, second);
  });

  test('chunked uploads hold only what they have sent, not the 25 MB they might send', async () => {
    const budget = watchBudget();
    const uploads = [await slowUpload(), await slowUpload()];
    await budget.until((asked) => asked.filter((c) => c.holder === A && c.granted).reduce((sum, c) => sum + c.bytes, 0) === 2 * PIECE);
    expect(budget.calls.filter((c) => c.holder === A).map((c) => c.method)).not.toContain('reserve');

    const answer = await deliveryFromAnotherClient();
    expect([answer.status, answer.body.data?.result]).toEqual([200, 'applied']);
    expect(budget.heldBy(A)).toBe(2 * PIECE);
    await budget.giveUp(...uploads);
  });
});
