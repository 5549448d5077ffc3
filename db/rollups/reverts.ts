import { QueryInterface, QueryTypes, Sequelize, Transaction } from 'sequelize';
import { epochMsSql, timeSql } from './recoveries';

/**
 * When a successful deployment was reverted or rolled back (docs/metrics.md#what-a-change-failure-is: a change failure by
 * `change_failure.revert_within_hours`): the finish of the first later successful deployment to the same repository
 * and environment (compared lowercased), within MAX_REVERT_HOURS of its own finish, that
 * - shipped a revert of a commit it shipped, or of the commit it deployed: a commit whose message says git's
 *   "This reverts commit <sha>." (`git revert`'s own message; GitHub's and GitLab's revert buttons write the same), or
 * - rolled it back: deployed again the commit of an earlier success, other than the one just before it, and this is
 *   the first success after that one (Datadog's rule, docs.datadoghq.com/dora_metrics/change_failure_detection/: for
 *   V1 → V2 → V3 → V1, V2 is the change failure).
 * Kept on it as `reverted_at` (null while none has, and on failed deployments) by the deployment and commit writers
 * (src/services/git/deployments/deployments.ts, commits/commits.ts), by migration 0054 and the demo seed, so that the
 * figures read a condition on each deployment, whatever the hours an organization sets (up to MAX_REVERT_HOURS).
 */
export interface Shipped {
  id: string;
  environment: string;
  sha: string;
  finishedMs: number;
  /** A rollback: the finish of the deployment it rolls back, the first success after the last earlier one of its commit; else null. */
  rollsBackMs: number | null;
  /** Shas of the commits it shipped that a revert names. */
  shipped: readonly string[];
  /** Shas its shipped commits revert. */
  reverts: readonly string[];
}

/** The longest an organization may set (`change_failure.revert_within_hours`): what is kept on each deployment. */
export const MAX_REVERT_HOURS = 720;
const WINDOW_MS = MAX_REVERT_HOURS * 3_600_000;

/** The reverting or rolling-back deployment's finish of each one `deployments` (any order) holds that has one, by id. */
export function reversals(deployments: readonly Shipped[]): Map<string, number> {
  const ordered = [...deployments].sort((a, b) => a.finishedMs - b.finishedMs);
  const reverted = new Map<string, number>();
  ordered.forEach((d, i) => {
    const undone = new Set([d.sha, ...d.shipped]);
    for (let j = i + 1; j < ordered.length; j++) {
      const later = ordered[j];
      if (later.finishedMs - d.finishedMs > WINDOW_MS) break;
      if (later.environment !== d.environment || later.finishedMs === d.finishedMs) continue;
      const rollsBack = later.rollsBackMs === d.finishedMs && later.sha !== d.sha;
      if (rollsBack || later.reverts.some((sha) => undone.has(sha))) {
        reverted.set(d.id, later.finishedMs);
        break;
      }
    }
  });
  return reverted;
}

/** The shas a commit message reverts, as `git revert` writes them (full, lowercase hex). */
export const revertedShas = (message: string): string[] => [...message.matchAll(/This reverts commit ([0-9a-f]{40})\b/g)].map((m) => m[1]);

export interface RevertRange {
  /** The earliest finish a change touched (all without): what finished up to MAX_REVERT_HOURS before it is recomputed. */
  since: Date | null;
  transaction?: Transaction | null;
  /** The repository's rollups lock, appended to its reads (src/services/git/repositories/repositoryLock.ts). */
  locking?: string;
}

/**
 * Recomputes `reverted_at` of the repository's deployments finished from MAX_REVERT_HOURS before `since` on, and
 * writes those that changed. A change at `since` (a deployment, which can revert or roll back those before it, or a
 * commit, which changes what later deployments shipped) moves what deployments finished from `since` on undid, and
 * those undo only what finished at most MAX_REVERT_HOURS before them. Reads `shipped_changes`: call it once the lead
 * times are kept (leadTimes.ts).
 */
export async function markReversals(sequelize: Sequelize, repositoryId: string, range: RevertRange): Promise<void> {
  const transaction = range.transaction ?? null;
  const locking = range.locking ?? '';
  const fromMs = range.since ? range.since.getTime() - WINDOW_MS : null;
  const after = (column: string) => (fromMs === null ? '' : ` AND ${column} >= ${timeSql(sequelize, ':from')}`);
  const replacements = { repositoryId, from: fromMs };
  const select = <T extends object>(sql: string, values: Record<string, unknown> = {}) =>
    sequelize.query<T>(sql + locking, { type: QueryTypes.SELECT, replacements: { ...replacements, ...values }, transaction });
  const sameEnvironment = (alias: string) => `${alias}.repository_id = d.repository_id AND LOWER(${alias}.environment) = LOWER(d.environment) AND ${alias}.status = 'success'`;
  // What a rollback rolls back: the first success after the last earlier success of its commit (itself, when that
  // one came just before it: a redeploy).
  const rolledBack = `(SELECT MIN(n.finished_at) FROM deployments n WHERE ${sameEnvironment('n')}
      AND n.finished_at > (SELECT MAX(p.finished_at) FROM deployments p WHERE ${sameEnvironment('p')} AND p.sha = d.sha AND p.finished_at < d.finished_at))`;
  const rows = await select<{ id: string; environment: string; status: string; sha: string; finished_ms: number | string; rolls_back_ms: number | string | null; reverted_ms: number | string | null }>(
    `SELECT d.id, LOWER(d.environment) AS environment, d.status, d.sha, ${epochMsSql(sequelize, 'd.finished_at')} AS finished_ms,
       ${epochMsSql(sequelize, rolledBack)} AS rolls_back_ms,
       ${epochMsSql(sequelize, 'd.reverted_at')} AS reverted_ms
     FROM deployments d WHERE d.repository_id = :repositoryId AND d.status IN ('success', 'failure')${after('d.finished_at')}`,
  );
  if (!rows.length) return;
  const revertsBy = new Map<string, string[]>();
  const revertCommits = await select<{ deployment_id: string; message: string }>(
    `SELECT s.deployment_id, c.message FROM shipped_changes s JOIN commits c ON c.id = s.commit_id
     WHERE s.repository_id = :repositoryId AND c.message LIKE '%This reverts commit %'${after('s.finished_at')}`,
  );
  for (const r of revertCommits) revertsBy.set(r.deployment_id, [...(revertsBy.get(r.deployment_id) ?? []), ...revertedShas(r.message)]);
  const targets = [...new Set([...revertsBy.values()].flat())];
  const shippedBy = new Map<string, string[]>();
  if (targets.length) {
    const shipped = await select<{ deployment_id: string; sha: string }>(
      `SELECT s.deployment_id, c.sha FROM shipped_changes s JOIN commits c ON c.id = s.commit_id
       WHERE s.repository_id = :repositoryId AND c.sha IN (:targets)${after('s.finished_at')}`,
      { targets },
    );
    for (const r of shipped) shippedBy.set(r.deployment_id, [...(shippedBy.get(r.deployment_id) ?? []), r.sha]);
  }
  const successes = rows.filter((r) => r.status === 'success');
  const reverted = reversals(
    successes.map((r) => ({
      id: r.id,
      environment: r.environment,
      sha: r.sha,
      finishedMs: Number(r.finished_ms),
      rollsBackMs: r.rolls_back_ms === null ? null : Number(r.rolls_back_ms),
      shipped: shippedBy.get(r.id) ?? [],
      reverts: revertsBy.get(r.id) ?? [],
    })),
  );
  const changed = rows
    .map((r) => ({ id: r.id, stored: r.reverted_ms === null ? null : Number(r.reverted_ms), now: reverted.get(r.id) ?? null }))
    .filter((r) => r.stored !== r.now);
  // A thousand at a time, each its value by a CASE (null where it has none now).
  for (let i = 0; i < changed.length; i += 1000) {
    const chunk = changed.slice(i, i + 1000);
    const values: Record<string, unknown> = { ids: chunk.map((c) => c.id) };
    const whens = chunk.flatMap((c, j) => {
      if (c.now === null) return [];
      values[`id${j}`] = c.id;
      values[`at${j}`] = c.now;
      return [`WHEN :id${j} THEN ${timeSql(sequelize, `:at${j}`)}`];
    });
    const value = whens.length ? `CASE id ${whens.join(' ')} ELSE NULL END` : 'NULL';
    await sequelize.query(`UPDATE deployments SET reverted_at = ${value} WHERE id IN (:ids)`, { replacements: values, transaction });
  }
}

/** Every repository's deployments, from the stored deployments, commits and shipped changes. */
export async function fillReversals(qi: QueryInterface): Promise<void> {
  const repositories = await qi.sequelize.query<{ repository_id: string }>('SELECT DISTINCT repository_id FROM deployments WHERE repository_id IS NOT NULL', { type: QueryTypes.SELECT });
  for (const { repository_id: repositoryId } of repositories) await markReversals(qi.sequelize, repositoryId, { since: null });
}
