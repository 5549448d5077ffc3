import { QueryTypes, Transaction } from 'sequelize';
import { DataVersion } from '../../../db/models';

/**
 * Keeps list totals exact across instances (DESIGN §10). Every writer calls `recordChange` inside the
 * transaction of its change, naming the tables it wrote; the version of each goes up when the change commits,
 * and not at all when it rolls back. Readers key cached totals by the versions of the tables a list reads, so
 * once a write has returned no instance serves a total counted before it. A change made behind the service's
 * back (SQL by hand) raises no version: cached totals then stay wrong for at most the cache's time to live.
 */
export async function recordChange(tables: readonly string[], transaction: Transaction): Promise<void> {
  const sequelize = DataVersion.sequelize!;
  const names = [...new Set(tables)].sort(); // one lock order for every writer
  const upsert =
    sequelize.getDialect() === 'mysql'
      ? 'INSERT INTO data_versions (name, version) VALUES (:name, 1) ON DUPLICATE KEY UPDATE version = version + 1'
      : 'INSERT INTO data_versions (name, version) VALUES (:name, 1) ON CONFLICT (name) DO UPDATE SET version = version + 1';
  for (const name of names) await sequelize.query(upsert, { replacements: { name }, transaction });
}

/** The versions of these tables, as one string fit for a cache key (`commits=12,users=3`). */
export async function versionsOf(tables: readonly string[]): Promise<string> {
  const names = [...new Set(tables)].sort();
  // Every list request that counts asks this; a plain statement skips the model query builder's work.
  const rows = await DataVersion.sequelize!.query<{ name: string; version: number | string }>(
    'SELECT name, version FROM data_versions WHERE name IN (:names)',
    { replacements: { names }, type: QueryTypes.SELECT },
  );
  const byName = new Map(rows.map((r) => [r.name, String(r.version)]));
  return names.map((n) => `${n}=${byName.get(n) ?? '0'}`).join(',');
}
