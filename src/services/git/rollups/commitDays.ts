import { Transaction } from 'sequelize';
import { Repository } from '../../../../db/models';
import { ChangeSql } from '../../../persistence/changes/changeSql';

/**
 * The daily commit counts AI impact reads (commit_days: per repository and per organization, all commits and the
 * AI-assisted ones), moved in the change that moves the commits: added (the commit writer), made AI-assisted (the
 * telemetry writer marking an author's active day), or gone with their repository.
 */
export interface CommitDayChange {
  createdAt: Date;
  /** +1 for an added commit, 0 for one only made AI-assisted. */
  commits: 0 | 1;
  ai: boolean;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

export async function addToCommitDays(transaction: Transaction, repository: Pick<Repository, 'id' | 'organization_id'>, changes: CommitDayChange[]): Promise<void> {
  const rows = new Map<string, { scope_id: string; day: string; commits: number; ai_commits: number }>();
  for (const change of changes) {
    for (const scopeId of [repository.id, repository.organization_id]) {
      const key = `${scopeId}\u0000${dayOf(change.createdAt)}`;
      const row = rows.get(key) ?? { scope_id: scopeId, day: dayOf(change.createdAt), commits: 0, ai_commits: 0 };
      row.commits += change.commits;
      row.ai_commits += change.ai ? 1 : 0;
      rows.set(key, row);
    }
  }
  // In key order, so concurrent changes lock shared rows (the organization's day) in one order.
  const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  if (sorted.length) await new ChangeSql(transaction).addTo('commit_days', ['scope_id', 'day'], ['commits', 'ai_commits'], sorted);
}

/** Before a repository's commits are deleted: its days leave the organization's counts, and its own rows go. */
export async function removeCommitDays(transaction: Transaction, repository: Pick<Repository, 'id' | 'organization_id'>): Promise<void> {
  const sql = new ChangeSql(transaction);
  const own = await sql.select<{ day: string | Date; commits: number; ai_commits: number }>('SELECT day, commits, ai_commits FROM commit_days WHERE scope_id = :id', { id: repository.id });
  const day = (d: string | Date) => (typeof d === 'string' ? d.slice(0, 10) : dayOf(d));
  const less = own.map((r) => ({ scope_id: repository.organization_id, day: day(r.day), commits: -Number(r.commits), ai_commits: -Number(r.ai_commits) })).sort((a, b) => (a.day < b.day ? -1 : 1));
  if (less.length) await sql.addTo('commit_days', ['scope_id', 'day'], ['commits', 'ai_commits'], less);
  await sql.run('DELETE FROM commit_days WHERE scope_id = :id', { id: repository.id });
}
