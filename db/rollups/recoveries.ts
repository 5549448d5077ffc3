import { QueryInterface, QueryTypes, Sequelize, Transaction } from 'sequelize';

/**
 * Failed deployment recovery (DORA 2023 on, docs/metrics.md#dora-the-four-keys-method): a deployment that failed
 * (status `failure`, or `blamed` by an incident: the change failure rate's failed) is recovered when the next
 * successful deployment to the same repository and environment (compared lowercased) that is not itself blamed
 * finished: the rollback or the fix that restored service. Kept on it as `recovered_at` (null while none has, and on
 * every deployment that did not fail) by the deployment and incident writers (src/services/git/rollups/shippedChanges.ts),
 * by migration 0051 and by the demo seed, so that the figure reads one column instead of looking for each failed
 * deployment's next clean success.
 */
export interface Finished {
  id: string;
  environment: string;
  status: string;
  blamed: boolean;
  finishedMs: number;
}

/** The recovery of each failed deployment of `deployments` (in order of finish) that a later one recovered, by id. */
export function recoveries(deployments: Finished[]): Map<string, number> {
  const recovered = new Map<string, number>();
  const pending = new Map<string, Finished[]>();
  for (const d of deployments) {
    const waiting = pending.get(d.environment) ?? [];
    if (d.status === 'success' && !d.blamed) {
      // Only what finished before it: a failure at the same instant is not restored by it.
      const still = waiting.filter((f) => f.finishedMs >= d.finishedMs);
      for (const f of waiting) if (f.finishedMs < d.finishedMs) recovered.set(f.id, d.finishedMs);
      pending.set(d.environment, still);
    } else {
      waiting.push(d);
      pending.set(d.environment, waiting);
    }
  }
  return recovered;
}

/**
 * Times as milliseconds since the epoch both ways, by the database, each dialect's stored form exact to the
 * millisecond (a Date replacement loses them on MySQL): a DATETIME(3) on MySQL, SQLite's text.
 */
export const epochMsSql = (sequelize: Sequelize, column: string) =>
  sequelize.getDialect() === 'mysql' ? `TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00.000', ${column}) DIV 1000` : `CAST(ROUND((julianday(${column}) - 2440587.5) * 86400000) AS INTEGER)`;
export const timeSql = (sequelize: Sequelize, ms: string) =>
  sequelize.getDialect() === 'mysql' ? `TIMESTAMPADD(MICROSECOND, ${ms} * 1000, '1970-01-01 00:00:00.000')` : `strftime('%Y-%m-%d %H:%M:%f +00:00', ${ms} / 1000.0, 'unixepoch')`;

export interface RecoveryRange {
  /** The earliest finish recomputed: every deployment of the repository finished at or after it (all without). */
  from: Date | null;
  transaction?: Transaction | null;
  /** The repository's rollups lock, appended to its reads (src/services/git/repositories/repositoryLock.ts). */
  locking?: string;
}

/**
 * Recomputes `recovered_at` for the repository's deployments finished from `from` on and writes those that changed.
 * Each one's recovery is among them (it finished after it), so `from` only has to reach back far enough that the
 * failed deployments a change can recover are among them too.
 */
export async function markRecoveries(sequelize: Sequelize, repositoryId: string, range: RecoveryRange): Promise<void> {
  const transaction = range.transaction ?? null;
  const from = range.from ? ` AND finished_at >= ${timeSql(sequelize, ':from')}` : '';
  const rows = await sequelize.query<{ id: string; environment: string; status: string; blamed: number | boolean; finished_ms: number | string; recovered_ms: number | string | null }>(
    `SELECT id, LOWER(environment) AS environment, status, blamed, ${epochMsSql(sequelize, 'finished_at')} AS finished_ms, ${epochMsSql(sequelize, 'recovered_at')} AS recovered_ms
     FROM deployments WHERE repository_id = :repositoryId AND status IN ('success', 'failure')${from} ORDER BY finished_at, id${range.locking ?? ''}`,
    { type: QueryTypes.SELECT, replacements: { repositoryId, from: range.from?.getTime() }, transaction },
  );
  const recovered = recoveries(rows.map((r) => ({ id: r.id, environment: r.environment, status: r.status, blamed: Number(r.blamed) === 1, finishedMs: Number(r.finished_ms) })));
  const changed = rows
    .map((r) => ({ id: r.id, stored: r.recovered_ms === null ? null : Number(r.recovered_ms), now: recovered.get(r.id) ?? null }))
    .filter((r) => r.stored !== r.now);
  // A thousand at a time, each its value by a CASE (null where it has none now).
  for (let i = 0; i < changed.length; i += 1000) {
    const chunk = changed.slice(i, i + 1000);
    const replacements: Record<string, unknown> = { ids: chunk.map((c) => c.id) };
    const whens = chunk.flatMap((c, j) => {
      if (c.now === null) return [];
      replacements[`id${j}`] = c.id;
      replacements[`at${j}`] = c.now;
      return [`WHEN :id${j} THEN ${timeSql(sequelize, `:at${j}`)}`];
    });
    const value = whens.length ? `CASE id ${whens.join(' ')} ELSE NULL END` : 'NULL';
    await sequelize.query(`UPDATE deployments SET recovered_at = ${value} WHERE id IN (:ids)`, { replacements, transaction });
  }
}

/** Every repository's deployments, from the stored deployments (their `blamed` kept first). */
export async function fillRecoveries(qi: QueryInterface): Promise<void> {
  const repositories = await qi.sequelize.query<{ repository_id: string }>('SELECT DISTINCT repository_id FROM deployments WHERE repository_id IS NOT NULL', { type: QueryTypes.SELECT });
  for (const { repository_id: repositoryId } of repositories) await markRecoveries(qi.sequelize, repositoryId, { from: null });
}
