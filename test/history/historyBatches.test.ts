import { batchedPages } from '../../src/services/history/historyBatches';
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
