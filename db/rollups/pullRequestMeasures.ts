import { Bands, durationBands, sizeBands } from './bands';

/**
 * What the figures measure on a merged pull request (docs/metrics.md, docs/metrics.md#ai-review-and-cost-figures), one definition for the writer (in code) and
 * the backfill (in SQL, over `pull_requests p`). A measure without a value for a pull request (never reviewed, size
 * unknown, not iterated) has no sample. `iterated` is only counted: its value is 0.
 */
export interface Measure {
  id: number;
  /** Durations in milliseconds, sizes in lines. */
  unit: 'ms' | 'lines';
  bands: Bands;
  /** Its value (milliseconds or lines), or null. */
  of(p: MergedPullRequest): number | null;
  sql(mysql: boolean): string;
}

export interface MergedPullRequest {
  created_at: Date;
  merged_at: Date;
  first_review_at: Date | null;
  first_approval_at: Date | null;
  additions: number | null;
  deletions: number | null;
  iterated: boolean;
}

const msSql = (mysql: boolean, from: string, to: string) =>
  mysql ? `(TIMESTAMPDIFF(MICROSECOND, ${from}, ${to}) DIV 1000)` : `CAST(ROUND((julianday(${to}) - julianday(${from})) * 86400000) AS INTEGER)`;

/** A first review or approval counts when it came before the merge (one after it reviewed nothing that shipped). */
const beforeMerge = (at: Date | null, p: MergedPullRequest) => (at && at.getTime() <= p.merged_at.getTime() ? at : null);
const beforeMergeSql = (column: string) => `CASE WHEN p.${column} <= p.merged_at THEN p.${column} END`;

const duration = (id: number, from: (p: MergedPullRequest) => Date | null, to: (p: MergedPullRequest) => Date | null, fromSql: string, toSql: string): Measure => ({
  id,
  unit: 'ms',
  bands: durationBands,
  of: (p) => {
    const [a, b] = [from(p), to(p)];
    return a && b ? b.getTime() - a.getTime() : null;
  },
  // NULL when either end is: the sample is not taken.
  sql: (mysql) => msSql(mysql, fromSql, toSql),
});

export const MEASURES = {
  /** Opened → merged. */
  merge: duration(0, (p) => p.created_at, (p) => p.merged_at, 'p.created_at', 'p.merged_at'),
  /** Opened → first review by another person. */
  pickup: duration(1, (p) => p.created_at, (p) => beforeMerge(p.first_review_at, p), 'p.created_at', beforeMergeSql('first_review_at')),
  /** Opened → first approval by another person. */
  approval: duration(2, (p) => p.created_at, (p) => beforeMerge(p.first_approval_at, p), 'p.created_at', beforeMergeSql('first_approval_at')),
  /** First review by another person → merged. */
  reviewToMerge: duration(3, (p) => beforeMerge(p.first_review_at, p), (p) => p.merged_at, beforeMergeSql('first_review_at'), 'p.merged_at'),
  /** Lines added and deleted, as the provider counts them. */
  size: {
    id: 4,
    unit: 'lines',
    bands: sizeBands,
    of: (p) => (p.additions === null || p.deletions === null ? null : p.additions + p.deletions),
    sql: () => '(p.additions + p.deletions)',
  },
  /** A commit pushed after it opened: counted only. */
  iterated: { id: 5, unit: 'lines', bands: sizeBands, of: (p) => (p.iterated ? 0 : null), sql: () => 'CASE WHEN p.iterated = 1 THEN 0 END' },
} satisfies Record<string, Measure>;

export type MeasureName = keyof typeof MEASURES;

/** AI-assisted: its description's mark, or one of its commits (kept on the pull request: src/services/git/rollups/pullRequestAi.ts). */
export const isAiPullRequest = (p: { ai_assisted: boolean | number; has_ai_commit: boolean | number }) => Boolean(Number(p.ai_assisted)) || Boolean(Number(p.has_ai_commit));
export const aiPullRequestSql = (p: string) => `CASE WHEN ${p}.ai_assisted = 1 OR ${p}.has_ai_commit = 1 THEN 1 ELSE 0 END`;
