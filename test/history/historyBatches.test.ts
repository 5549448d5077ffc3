import { setTimeout as wait } from 'node:timers/promises';
import { batchedPages, readAhead } from '../../src/services/history/historyBatches';
import type { HistoryPage } from '../../src/services/history/historySource';
import type { ChatMessage } from '../../src/services/activity/conversations';

/** A page of `count` Slack messages, read at `at` ms, with its cursor. */
interface Scripted {
  count: number;
  at: number;
  next: string | null;
}

async function batchesOf(script: Scripted[], limits: { items: number; heldMs: number }, failAfter?: number) {
  let clock = 0;
  let key = 0;
  async function* pages(): AsyncGenerator<HistoryPage> {
    for (const [index, page] of script.entries()) {
      if (index === failAfter) throw new Error('the provider answered 502 five times');
      clock = page.at;
      const messages = Array.from({ length: page.count }, (): ChatMessage => ({ channel: 'C024BE91L', messageId: `T-${++key}`, sender: 'U2147483697', counterparts: [], at: new Date(clock) }));
      yield { read: page.count, messages, next: page.next };
    }
  }
  const batches: { read: number; keys: string[]; next: string | null }[] = [];
  let failure: unknown = null;
  try {
    for await (const batch of batchedPages(pages(), limits, () => clock)) {
      batches.push({ read: batch.read, keys: (batch.messages ?? []).map((m) => m.messageId), next: batch.next });
    }
  } catch (err) {
    failure = err;
  }
  return { batches, failure };
}

const pages = (...counts: number[]): Scripted[] => counts.map((count, i) => ({ count, at: i, next: i === counts.length - 1 ? null : `p${i + 1}` }));

test('small pages are joined in order until the batch holds enough, each batch with the cursor of its last page', async () => {
  const { batches } = await batchesOf(pages(1, 2, 1, 3, 1), { items: 3, heldMs: Infinity });
  expect(batches).toEqual([
    { read: 3, keys: ['T-1', 'T-2', 'T-3'], next: 'p2' },
    { read: 4, keys: ['T-4', 'T-5', 'T-6', 'T-7'], next: 'p4' },
    { read: 1, keys: ['T-8'], next: null },
  ]);
});

test('a page that holds enough alone goes alone, and the window’s last page ends a batch whatever it holds', async () => {
  const { batches } = await batchesOf(pages(5, 1), { items: 3, heldMs: Infinity });
  expect(batches.map((b) => [b.read, b.next])).toEqual([
    [5, 'p1'],
    [1, null],
  ]);
});

test('a batch whose first page has waited long enough is stored with what it holds', async () => {
  const script = [
    { count: 1, at: 0, next: 'p1' },
    { count: 1, at: 4_000, next: 'p2' },
    { count: 1, at: 5_000, next: 'p3' },
    { count: 1, at: 6_000, next: 'p4' },
  ];
  const { batches } = await batchesOf(script, { items: 100, heldMs: 5_000 });
  expect(batches.map((b) => [b.read, b.next])).toEqual([
    [3, 'p3'],
    [1, 'p4'],
  ]);
});

test('what was read before a failure is handed out before the failure is thrown', async () => {
  const { batches, failure } = await batchesOf(pages(1, 1, 1, 1), { items: 100, heldMs: Infinity }, 2);
  expect(batches).toEqual([{ read: 2, keys: ['T-1', 'T-2'], next: 'p2' }]);
  expect(failure).toEqual(new Error('the provider answered 502 five times'));
});

/** A source that logs when each item is asked for and handed out, failing in place of the item at `failAt`. */
function loggedSource(log: string[], count: number, failAt?: number) {
  return (async function* () {
    try {
      for (let i = 1; i <= count; i++) {
        log.push(`read ${i}`);
        await new Promise((resolve) => setImmediate(resolve));
        if (i === failAt) throw new Error(`the provider answered 502 for ${i}`);
        yield i;
      }
    } finally {
      log.push('source ended');
    }
  })();
}

test('the next batch is read while the last is stored, one ahead at most, in order', async () => {
  const log: string[] = [];
  for await (const item of readAhead(loggedSource(log, 3), () => log.push('stopped'))) {
    log.push(`storing ${item}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    log.push(`stored ${item}`);
  }
  // The source's end is found while the last is stored.
  expect(log).toEqual(['read 1', 'read 2', 'storing 1', 'stored 1', 'read 3', 'storing 2', 'stored 2', 'source ended', 'storing 3', 'stored 3']);
});

test('a failure of the read ahead is thrown in its turn, after what was read before it is stored', async () => {
  const log: string[] = [];
  const stored: number[] = [];
  const run = async () => {
    for await (const item of readAhead(loggedSource(log, 3, 2), () => log.push('stopped'))) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      stored.push(item);
    }
  };
  await expect(run()).rejects.toThrow('the provider answered 502 for 2');
  expect(stored).toEqual([1]);
});

test('a run that stops while a batch is read ahead ends its source', async () => {
  const log: string[] = [];
  const run = async () => {
    for await (const item of readAhead(loggedSource(log, 5), () => log.push('stopped'))) throw new Error(`the store of ${item} failed`);
  };
  await expect(run()).rejects.toThrow('the store of 1 failed');
  expect(log).toEqual(['read 1', 'read 2', 'stopped', 'source ended']);
});

test("a run whose store fails while the read ahead waits for a rate limit's reset stops that wait, not waiting it out", async () => {
  const stop = new AbortController();
  const log: string[] = [];
  async function* rateLimited() {
    yield 1;
    log.push('waiting 15 minutes for the reset');
    // As the provider client waits (ProviderHttp.sleep with the run's signal).
    await wait(15 * 60_000, undefined, { signal: stop.signal, ref: false });
    yield 2;
  }
  const run = async () => {
    for await (const item of readAhead(rateLimited(), () => stop.abort())) throw new Error(`the store of ${item} failed`);
  };
  await expect(run()).rejects.toThrow('the store of 1 failed');
  // Had the wait gone on, the run would have ended past the test's timeout.
  expect(log).toEqual(['waiting 15 minutes for the reset']);
});
