import { QueryTypes, Transaction } from 'sequelize';
import { Deployment } from '../../../../db/models';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { timestampSql } from '../../../persistence/query/selectSql';
import { durationBands } from '../../../../db/rollups/bands';
import { lockRepositoryRollups } from '../repositories/repositoryLock';

/**
 * The lead time of every change a successful deployment shipped, to whatever environment (docs/metrics.md: the
 * commits of its repository created after the previous successful deployment to the same environment finished, up
 * to its own finish), kept by the deployment and commit writers so that DORA's median over a year reads a few
 * hundred rows instead of ranking every shipped change (157k a year for the large organization: seconds cold). Each
 * environment (compared lowercased) is kept apart and named on its rows: which of them are production is the
 * organization's setting (docs/metrics.md#what-counts), applied by the figures when they read, so that changing it
 * applies to all history at once.
 * - `shipped_changes`: one row per change, with its environment, its lead time and its band (below), indexed by
 *   (scope, band, finish, environment): the exact values of one band of a window are one index range, its production
 *   environments picked in the index;
 * - `lead_time_days`: how many changes of each band were shipped each UTC day to each environment, per repository and
 *   per organization (`scope_id`, as commit_days), keyed (scope, day, environment, band): a year of a scope is one
 *   range of the key, filtered by environment; which band holds a percentile's rank, and its rank within the band.
 *
 * Apache DevLake finds a deployment's previous success per CI/CD scope, repository and environment too
 * (backend/plugins/dora/tasks/prev_deployment_commit_enricher.go; docs/metrics.md#against-dora-and-apache-devlake).
 *
 * A repository is recomputed from a time on: the deployments finished since then, and the commits they shipped.
 */

type Repository = { id: string; organization_id: string };
type Change = { deployment_id: string; commit_id: string; repository_id: string; organization_id: string; environment: string; finished_at: Date; band: number; lead_ms: number };
type Success = { id: string; finishedAt: Date };
type Move = { finishedAt: Date; environment: string; band: number; by: number };

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
/** A stored time as read by a raw query: a Date (MySQL), or SQLite's text, `YYYY-MM-DD HH:MM:SS.SSS +00:00`. */
export const timeOf = (value: Date | string): Date => (value instanceof Date ? value : new Date(`${value.slice(0, 10)}T${value.slice(11, 23)}Z`));

/** Recomputes the changes shipped by the repository's deployments that finished at or after `since` (all without). */
export async function refreshLeadTimes(transaction: Transaction, repository: Repository, since: Date | null): Promise<void> {
  const sequelize = Deployment.sequelize!;
  const sql = new ChangeSql(transaction);
  const from = since ? ` AND finished_at >= ${timestampSql(sequelize, since)}` : '';
  const locking = await lockRepositoryRollups(transaction, repository.id);
  const select = <T extends object>(text: string, replacements: Record<string, unknown>) => sequelize.query<T>(text + locking, { type: QueryTypes.SELECT, replacements, transaction });

  const stale = await select<{ finished_at: Date | string; environment: string; band: number }>(`SELECT finished_at, environment, band FROM shipped_changes WHERE repository_id = :id${from}`, { id: repository.id });
  if (stale.length) await sequelize.query(`DELETE FROM shipped_changes WHERE repository_id = :id${from}`, { replacements: { id: repository.id }, transaction });

  // Lowercased by the database, as the figures compare them.
  const successes = await select<{ id: string; environment: string; finished_at: Date | string }>(
    "SELECT id, LOWER(environment) AS environment, finished_at FROM deployments WHERE repository_id = :id AND status = 'success' ORDER BY finished_at, id",
    { id: repository.id },
  );
  const byEnvironment = new Map<string, Success[]>();
  for (const d of successes) {
    const of = byEnvironment.get(d.environment) ?? [];
    of.push({ id: d.id, finishedAt: timeOf(d.finished_at) });
    byEnvironment.set(d.environment, of);
  }
  // Per environment, its successes from `since` on and the finish of the one before them.
  const affected = [...byEnvironment].flatMap(([environment, all]) => {
    const first = all.findIndex((d) => !since || d.finishedAt >= since);
    return first < 0 ? [] : [{ environment, shippers: all.slice(first), previous: all[first - 1]?.finishedAt ?? new Date(0) }];
  });
  const changes: Change[] = [];
  if (affected.length) {
    // One read of the commits any of them shipped, in order of creation.
    const after = new Date(Math.min(...affected.map((a) => a.previous.getTime())));
    const upTo = new Date(Math.max(...affected.map((a) => a.shippers[a.shippers.length - 1].finishedAt.getTime())));
    const commits = (
      await select<{ id: string; created_at: Date | string }>(
        `SELECT id, created_at FROM commits WHERE repository_id = :id AND created_at > ${timestampSql(sequelize, after)} AND created_at <= ${timestampSql(sequelize, upTo)}`,
        { id: repository.id },
      )
    )
      .map((c) => ({ id: c.id, createdAt: timeOf(c.created_at) }))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    for (const { environment, shippers, previous } of affected) {
      let next = 0;
      for (const commit of commits) {
        if (commit.createdAt <= previous) continue;
        // The first success of the environment finished at or after it shipped it: each of them, when several finished at that instant.
        while (next < shippers.length && shippers[next].finishedAt < commit.createdAt) next++;
        if (next === shippers.length) break;
        const first = shippers[next].finishedAt.getTime();
        const leadMs = first - commit.createdAt.getTime();
        for (let i = next; i < shippers.length && shippers[i].finishedAt.getTime() === first; i++) {
          changes.push({ deployment_id: shippers[i].id, commit_id: commit.id, repository_id: repository.id, organization_id: repository.organization_id, environment, finished_at: shippers[i].finishedAt, band: durationBands.of(leadMs), lead_ms: leadMs });
        }
      }
    }
  }
  if (changes.length) await sql.insert('shipped_changes', ['deployment_id', 'commit_id', 'repository_id', 'organization_id', 'environment', 'finished_at', 'band', 'lead_ms'], changes);
  await moveDays(sql, repository, [
    ...stale.map((s) => ({ finishedAt: timeOf(s.finished_at), environment: s.environment, band: Number(s.band), by: -1 })),
    ...changes.map((c) => ({ finishedAt: c.finished_at, environment: c.environment, band: c.band, by: 1 })),
  ]);
}

/** The daily band counts moved by what left and what came, per repository and per organization, in key order. */
async function moveDays(sql: ChangeSql, repository: Repository, moves: Move[]): Promise<void> {
  const rows = new Map<string, { scope_id: string; day: string; environment: string; band: number; changes: number }>();
  for (const move of moves) {
    for (const scopeId of [repository.id, repository.organization_id]) {
      const key = `${scopeId}\u0000${dayOf(move.finishedAt)}\u0000${move.environment}\u0000${String(move.band).padStart(3, '0')}`;
      const row = rows.get(key) ?? { scope_id: scopeId, day: dayOf(move.finishedAt), environment: move.environment, band: move.band, changes: 0 };
      row.changes += move.by;
      rows.set(key, row);
    }
  }
  const moved = [...rows.entries()].filter(([, r]) => r.changes !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  if (moved.length) await sql.addTo('lead_time_days', ['scope_id', 'day', 'environment', 'band'], ['changes'], moved);
}

/** Before a repository's rows are deleted: its shipped changes leave its organization's days, and its own rows go. */
export async function removeLeadTimes(transaction: Transaction, repository: Repository): Promise<void> {
  const sql = new ChangeSql(transaction);
  const stale = await sql.select<{ finished_at: Date | string; environment: string; band: number }>('SELECT finished_at, environment, band FROM shipped_changes WHERE repository_id = :id', { id: repository.id });
  await sql.run('DELETE FROM shipped_changes WHERE repository_id = :id', { id: repository.id });
  await moveDays(sql, repository, stale.map((s) => ({ finishedAt: timeOf(s.finished_at), environment: s.environment, band: Number(s.band), by: -1 })));
  await sql.run('DELETE FROM lead_time_days WHERE scope_id = :id', { id: repository.id });
}
