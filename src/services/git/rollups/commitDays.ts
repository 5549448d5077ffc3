import { Transaction } from 'sequelize';
import { Repository } from '../../../../db/models';
import { ChangeSql } from '../../../persistence/changes/changeSql';
import { AI_EVIDENCE, AiEvidence, EVIDENCE_COUNTS } from '../../../../db/rollups/aiEvidence';

/**
 * The daily commit counts AI impact reads (commit_days: per repository and per organization, all commits, the
 * AI-assisted ones and those of each evidence), moved in the change that moves the commits: added (the commit
 * writer), their evidence found or lost (the telemetry and vendor writers: aiEvidence.ts), or gone with their repository.
 */
export interface CommitDayChange {
  createdAt: Date;
  /** +1 for an added commit, 0 for one whose evidence changed. */
  commits: 0 | 1;
  evidence: AiEvidence | null;
  /** The evidence it had before (none for an added commit). */
  before?: AiEvidence | null;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);
const COUNTS = ['commits', 'ai_commits', ...AI_EVIDENCE.map((e) => EVIDENCE_COUNTS[e])];

export async function addToCommitDays(transaction: Transaction, repository: Pick<Repository, 'id' | 'organization_id'>, changes: CommitDayChange[]): Promise<void> {
  const rows = new Map<string, Record<string, string | number>>();
  for (const change of changes) {
    for (const scopeId of [repository.id, repository.organization_id]) {
      const key = `${scopeId}\u0000${dayOf(change.createdAt)}`;
      const row = rows.get(key) ?? { scope_id: scopeId, day: dayOf(change.createdAt), ...Object.fromEntries(COUNTS.map((c) => [c, 0])) };
      const add = (column: string, n: number) => (row[column] = Number(row[column]) + n);
      add('commits', change.commits);
      if (change.evidence) add(EVIDENCE_COUNTS[change.evidence], 1);
      if (change.before) add(EVIDENCE_COUNTS[change.before], -1);
      add('ai_commits', (change.evidence ? 1 : 0) - (change.before ? 1 : 0));
      rows.set(key, row);
    }
  }
  // In key order, so concurrent changes lock shared rows (the organization's day) in one order.
  const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  if (sorted.length) await new ChangeSql(transaction).addTo('commit_days', ['scope_id', 'day'], COUNTS, sorted);
}

/** Before a repository's commits are deleted: its days leave the organization's counts, and its own rows go. */
export async function removeCommitDays(transaction: Transaction, repository: Pick<Repository, 'id' | 'organization_id'>): Promise<void> {
  const sql = new ChangeSql(transaction);
  const own = await sql.select<Record<string, string | number | Date>>(`SELECT day, ${COUNTS.join(', ')} FROM commit_days WHERE scope_id = :id`, { id: repository.id });
  const day = (d: string | number | Date) => (d instanceof Date ? dayOf(d) : String(d).slice(0, 10));
  const less = own
    .map((r) => ({ scope_id: repository.organization_id, day: day(r.day), ...Object.fromEntries(COUNTS.map((c) => [c, -Number(r[c])])) }))
    .sort((a, b) => (a.day < b.day ? -1 : 1));
  if (less.length) await sql.addTo('commit_days', ['scope_id', 'day'], COUNTS, less);
  await sql.run('DELETE FROM commit_days WHERE scope_id = :id', { id: repository.id });
}
