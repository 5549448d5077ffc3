import { GroupCommit } from '../../src/persistence/changes/groupCommit';

/**
 * Group commit (src/persistence/changes/groupCommit.ts), with a change that only records what it was given: items of
 * one key arriving while its change is under way go together into the next, in order; keys never share a change;
 * a change that fails is tried again item by item, so only the faulty item's caller hears the failure.
 */

function recording(fails: (items: string[]) => boolean = () => false) {
  const changes: { key: string; items: string[] }[] = [];
  const group = new GroupCommit<string, string>(async (key, items) => {
    changes.push({ key, items });
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (fails(items)) throw new Error(`refused ${items.join(',')}`);
    return items.map((item) => `stored ${item}`);
  }, 3);
  return { changes, group };
}

test('the first item goes at once; those arriving meanwhile go together into the next changes, at most the limit each, in order', async () => {
  const { changes, group } = recording();
  const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => group.add('app_1', item)));
  expect(answers).toEqual(['stored a', 'stored b', 'stored c', 'stored d', 'stored e']);
  expect(changes).toEqual([
    { key: 'app_1', items: ['a'] },
    { key: 'app_1', items: ['b', 'c', 'd'] },
    { key: 'app_1', items: ['e'] },
  ]);
});

test('items of different keys never share a change', async () => {
  const { changes, group } = recording();
  await Promise.all([group.add('app_1', 'a'), group.add('app_2', 'b'), group.add('app_1', 'c'), group.add('app_2', 'd')]);
  const keyOf: Record<string, string> = { a: 'app_1', c: 'app_1', b: 'app_2', d: 'app_2' };
  expect(changes.flatMap((change) => change.items.map((item) => [item, change.key])).sort()).toEqual(Object.entries(keyOf).sort());
});

test('a failed change is tried again item by item: only the faulty item fails, the others are stored', async () => {
  const { changes, group } = recording((items) => items.includes('bad'));
  const answers = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => group.add('app_1', item)));
  expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual(['stored a', 'stored b', 'refused bad', 'stored c']);
  expect(changes.map((c) => c.items)).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
});

test('after a burst the key is free again: a later item goes at once on its own', async () => {
  const { changes, group } = recording();
  await Promise.all([group.add('app_1', 'a'), group.add('app_1', 'b')]);
  expect(await group.add('app_1', 'c')).toBe('stored c');
  expect(changes.at(-1)).toEqual({ key: 'app_1', items: ['c'] });
});
