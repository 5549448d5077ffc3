import { QueryTypes, Transaction } from 'sequelize';
import { Deployment } from '../../../../db/models';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { timestampSql } from '../../../persistence/query/selectSql';
import { durationBands } from '../../../../db/rollups/bands';
import { lockRepositoryRollups } from '../repositories/repositoryLock';

/**
 * The lead time of every change a successful production deployment shipped (docs/metrics.md: the commits of its
 * repository created after the previous successful production deployment finished, up to its own finish), kept by
 * the deployment and commit writers so that DORA's median over a year reads a few hundred rows instead of ranking
 * every shipped change (157k a year for the large organization: seconds cold):
 * - `shipped_changes`: one row per change, with its lead time and its band (below), indexed by (scope, band,
 *   finish): the exact values of one band of a window are one index range;
 * - `lead_time_days`: how many changes of each band were shipped each UTC day, per repository and per organization
 *   (`scope_id`, as commit_days): which band holds a percentile's rank, and its rank within the band.
 *
 * A repository is recomputed from a time on: the deployments finished since then, and the commits they shipped.
 */

type Repository = { id: string; organization_id: string };
type Change = { deployment_id: string; commit_id: string; repository_id: string; organization_id: string; finished_at: Date; band: number; lead_ms: number };

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

  const stale = await select<{ finished_at: Date | string; band: number }>(`SELECT finished_at, band FROM shipped_changes WHERE repository_id = :id${from}`, { id: repository.id });
  if (stale.length) await sequelize.query(`DELETE FROM shipped_changes WHERE repository_id = :id${from}`, { replacements: { id: repository.id }, transaction });

  const successes = await select<{ id: string; finished_at: Date | string }>(
    "SELECT id, finished_at FROM deployments WHERE repository_id = :id AND LOWER(environment) = 'production' AND status = 'success' ORDER BY finished_at, id",
    { id: repository.id },
  );
  const all = successes.map((d) => ({ id: d.id, finishedAt: timeOf(d.finished_at) }));
  const firstAffected = all.findIndex((d) => !since || d.finishedAt >= since);
  const changes: Change[] = [];
  if (firstAffected >= 0) {
    const affected = all.slice(firstAffected);
    const previous = all[firstAffected - 1]?.finishedAt ?? new Date(0);
    const commits = await select<{ id: string; created_at: Date | string }>(
      `SELECT id, created_at FROM commits WHERE repository_id = :id AND created_at > ${timestampSql(sequelize, previous)} AND created_at <= ${timestampSql(sequelize, affected[affected.length - 1].finishedAt)}`,
      { id: repository.id },
    );
    for (const commit of commits) {
      const createdAt = timeOf(commit.created_at);
      // The first success finished at or after it shipped it: each of them, when several finished at that instant.
      const first = affected.find((d) => d.finishedAt >= createdAt)!.finishedAt.getTime();
      const leadMs = first - createdAt.getTime();
      for (const shipper of affected.filter((d) => d.finishedAt.getTime() === first)) {
        changes.push({ deployment_id: shipper.id, commit_id: commit.id, repository_id: repository.id, organization_id: repository.organization_id, finished_at: shipper.finishedAt, band: durationBands.of(leadMs), lead_ms: leadMs });
      }
    }
  }
  if (changes.length) await sql.insert('shipped_changes', ['deployment_id', 'commit_id', 'repository_id', 'organization_id', 'finished_at', 'band', 'lead_ms'], changes);
  await moveDays(sql, repository, [...stale.map((s) => ({ finishedAt: timeOf(s.finished_at), band: Number(s.band), by: -1 })), ...changes.map((c) => ({ finishedAt: c.finished_at, band: c.band, by: 1 }))]);
}

/** The daily band counts moved by what left and what came, per repository and per organization, in key order. */
async function moveDays(sql: ChangeSql, repository: Repository, moves: { finishedAt: Date; band: number; by: number }[]): Promise<void> {
  const rows = new Map<string, { scope_id: string; day: string; band: number; changes: number }>();
  for (const move of moves) {
    for (const scopeId of [repository.id, repository.organization_id]) {
      const key = `${scopeId}\u0000${dayOf(move.finishedAt)}\u0000${String(move.band).padStart(3, '0')}`;
      const row = rows.get(key) ?? { scope_id: scopeId, day: dayOf(move.finishedAt), band: move.band, changes: 0 };
      row.changes += move.by;
      rows.set(key, row);
    }
  }
  const moved = [...rows.entries()].filter(([, r]) => r.changes !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  if (moved.length) await sql.addTo('lead_time_days', ['scope_id', 'day', 'band'], ['changes'], moved);
}

/** Before a repository's rows are deleted: its shipped changes leave its organization's days, and its own rows go. */
export async function removeLeadTimes(transaction: Transaction, repository: Repository): Promise<void> {
  const sql = new ChangeSql(transaction);
  const stale = await sql.select<{ finished_at: Date | string; band: number }>('SELECT finished_at, band FROM shipped_changes WHERE repository_id = :id', { id: repository.id });
  await sql.run('DELETE FROM shipped_changes WHERE repository_id = :id', { id: repository.id });
  await moveDays(sql, repository, stale.map((s) => ({ finishedAt: timeOf(s.finished_at), band: Number(s.band), by: -1 })));
  await sql.run('DELETE FROM lead_time_days WHERE scope_id = :id', { id: repository.id });
}
