import { QueryTypes, Sequelize } from 'sequelize';
import { startTestApp, TestApp } from '../support/harness';
import { DataVersions, VersionBroadcast } from '../../src/persistence/query/dataVersions';
import { createSequelize } from '../../db/connection';

/**
 * How an instance learns data versions without reading them per request (src/persistence/query/dataVersions.ts):
 * its own commits at once, others' by the broadcast, and the table itself whenever a message could have been
 * missed. Here the broadcast is driven by hand, and a version raised behind the feed's back (SQL by hand) shows
 * which of the two answered: the database, or what the feed kept.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

/** A broadcast the test drives: what is published, and the subscriber's handlers to call. */
class HandDriven implements VersionBroadcast {
  published: Record<string, number>[] = [];
  handlers?: Parameters<VersionBroadcast['subscribe']>[0];
  async publish(versions: Record<string, number>) {
    this.published.push(versions);
  }
  async subscribe(handlers: Parameters<VersionBroadcast['subscribe']>[0]) {
    this.handlers = handlers;
    handlers.connected();
  }
  async close() {}
}

let connection: Sequelize;
beforeEach(() => {
  // A connection of its own: its DataVersions is fresh, and the app's keeps working unchanged.
  connection = createSequelize({ url: t.config.DATABASE_URL, sqlitePath: t.config.SQLITE_PATH });
});
afterEach(async () => {
  await DataVersions.for(connection).stop();
  await connection.close();
});

const raiseBehindTheBack = (name: string) =>
  connection.query(
    connection.getDialect() === 'mysql'
      ? 'INSERT INTO data_versions (name, version) VALUES (?, 1) ON DUPLICATE KEY UPDATE version = version + 1'
      : 'INSERT INTO data_versions (name, version) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET version = version + 1',
    { replacements: [name] },
  );
const versionIn = (versions: string, name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(versions)![1]);
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test('without a feed (a CLI) every read asks the database', async () => {
  const versions = DataVersions.for(connection);
  const before = versionIn(await versions.of(['probe_unfed']), 'probe_unfed');
  await raiseBehindTheBack('probe_unfed');
  expect(versionIn(await versions.of(['probe_unfed']), 'probe_unfed')).toBe(before + 1);
});

test('while subscribed the kept versions answer; a lost subscription reads the table until one is back and caught up', async () => {
  const broadcast = new HandDriven();
  const versions = DataVersions.for(connection);
  versions.configure({ broadcast, pollMs: 3_600_000, onError: (err) => { throw err; } });
  const first = versionIn(await versions.of(['probe_feed']), 'probe_feed');
  await settle(); // the first full read

  await raiseBehindTheBack('probe_feed');
  expect(versionIn(await versions.of(['probe_feed']), 'probe_feed')).toBe(first); // kept, not read
  broadcast.handlers!.message({ probe_feed: first + 1 });
  expect(versionIn(await versions.of(['probe_feed']), 'probe_feed')).toBe(first + 1);

  broadcast.handlers!.lost();
  await raiseBehindTheBack('probe_feed');
  expect(versionIn(await versions.of(['probe_feed']), 'probe_feed')).toBe(first + 2); // read while messages may be lost

  broadcast.handlers!.connected();
  await settle();
  await raiseBehindTheBack('probe_feed');
  expect(versionIn(await versions.of(['probe_feed']), 'probe_feed')).toBe(first + 2); // caught up, kept again
});

test('versions only go up, whatever order a message, a commit and a poll arrive in; a rolled-back change publishes nothing', async () => {
  const broadcast = new HandDriven();
  const versions = DataVersions.for(connection);
  versions.configure({ broadcast, pollMs: 3_600_000, onError: (err) => { throw err; } });
  await versions.of(['probe_order']);
  await settle();

  await connection.transaction(async (transaction) => versions.recordChange(['probe_order'], transaction));
  const committed = versionIn(await versions.of(['probe_order']), 'probe_order');
  expect(broadcast.published).toEqual([{ probe_order: committed }]);
  broadcast.handlers!.message({ probe_order: committed - 1 }); // a late message of an older change
  expect(versionIn(await versions.of(['probe_order']), 'probe_order')).toBe(committed);

  await expect(
    connection.transaction(async (transaction) => {
      await versions.recordChange(['probe_order'], transaction);
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  expect(broadcast.published).toHaveLength(1);
  expect(versionIn(await versions.of(['probe_order']), 'probe_order')).toBe(committed);
});

test('a change raises each table it names by one and tells the versions the table then holds, a new name starting at 1', async () => {
  const broadcast = new HandDriven();
  const versions = DataVersions.for(connection);
  versions.configure({ broadcast, pollMs: 3_600_000, onError: (err) => { throw err; } });
  const fresh = `probe_new_${Date.now()}`;
  await raiseBehindTheBack('probe_raised');
  const [held] = await connection.query<{ version: number | string }>('SELECT version FROM data_versions WHERE name = ?', { replacements: ['probe_raised'], type: QueryTypes.SELECT });
  await connection.transaction(async (transaction) => versions.recordChange(['probe_raised', fresh, 'probe_raised'], transaction));
  expect(broadcast.published).toEqual([{ probe_raised: Number(held.version) + 1, [fresh]: 1 }]);
  const stored = await connection.query<{ name: string; version: number | string }>('SELECT name, version FROM data_versions WHERE name IN (?)', { replacements: [['probe_raised', fresh]], type: QueryTypes.SELECT });
  expect(Object.fromEntries(stored.map((r) => [r.name, Number(r.version)]))).toEqual(broadcast.published[0]);
});

test('a change of many tables (raised in one statement on MariaDB) tells the versions each then holds, as one of two does', async () => {
  const broadcast = new HandDriven();
  const versions = DataVersions.for(connection);
  versions.configure({ broadcast, pollMs: 3_600_000, onError: (err) => { throw err; } });
  const names = ['probe_many_a', 'probe_many_b', `probe_many_new_${Date.now()}`, 'probe_many_c'];
  for (const name of ['probe_many_a', 'probe_many_b', 'probe_many_b', 'probe_many_c']) await raiseBehindTheBack(name);
  const held = await connection.query<{ name: string; version: number | string }>('SELECT name, version FROM data_versions WHERE name IN (?)', { replacements: [names], type: QueryTypes.SELECT });
  const before = new Map(held.map((r) => [r.name, Number(r.version)]));
  await connection.transaction(async (transaction) => versions.recordChange([...names, 'probe_many_a'], transaction));
  expect(broadcast.published).toEqual([Object.fromEntries(names.map((name) => [name, (before.get(name) ?? 0) + 1]))]);
  const stored = await connection.query<{ name: string; version: number | string }>('SELECT name, version FROM data_versions WHERE name IN (?)', { replacements: [names], type: QueryTypes.SELECT });
  expect(Object.fromEntries(stored.map((r) => [r.name, Number(r.version)]))).toEqual(broadcast.published[0]);
});

test('without a broadcast the table is polled, so another process’s change shows within the poll', async () => {
  const versions = DataVersions.for(connection);
  versions.configure({ pollMs: 100, onError: (err) => { throw err; } });
  const first = versionIn(await versions.of(['probe_poll']), 'probe_poll');
  await settle();
  await raiseBehindTheBack('probe_poll');
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(versionIn(await versions.of(['probe_poll']), 'probe_poll')).toBe(first + 1);
});
