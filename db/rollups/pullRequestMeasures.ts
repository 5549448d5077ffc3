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
  /** A column of `pull_requests` it reads that came after the samples (0055): a migration before it fills the others. */
  since?: string;
}

export interface MergedPullRequest {
  created_at: Date;
  merged_at: Date;
  first_review_at: Date | null;
  first_approval_at: Date | null;
  ready_for_review_at: Date | null;
  additions: number | null;
  deletions: number | null;
  iterated: boolean;
}

const msSql = (mysql: boolean, from: string, to: string) =>
  mysql ? `(TIMESTAMPDIFF(MICROSECOND, ${from}, ${to}) DIV 1000)` : `CAST(ROUND((julianday(${to}) - julianday(${from})) * 86400000) AS INTEGER)`;

/** A first review or approval counts when it came before the merge (one after it reviewed nothing that shipped). */
const beforeMerge = (at: Date | null, p: MergedPullRequest) => (at && at.getTime() <= p.merged_at.getTime() ? at : null);
const beforeMergeSql = (column: string) => `CASE WHEN p.${column} <= p.merged_at THEN p.${column} END`;

/**
 * Ready for review: the last time it left draft before its merge, else its opening (opened ready, or never said).
 * Swarmia and LinearB measure a draft from here: no one is asked to review or merge a draft.
 */
const readyAt = (p: MergedPullRequest) => beforeMerge(p.ready_for_review_at, p) ?? p.created_at;
const readyAtSql = `COALESCE(${beforeMergeSql('ready_for_review_at')}, p.created_at)`;
/** A review of the draft before it was ready: it was being reviewed when it became ready, picked up at once. */
const notBeforeReady = (at: Date | null, p: MergedPullRequest) => (at && at < readyAt(p) ? readyAt(p) : at);
const notBeforeReadySql = (column: string) => `CASE WHEN p.${column} <= p.merged_at THEN CASE WHEN p.${column} < ${readyAtSql} THEN ${readyAtSql} ELSE p.${column} END END`;

const duration = (id: number, from: (p: MergedPullRequest) => Date | null, to: (p: MergedPullRequest) => Date | null, fromSql: string, toSql: string, since?: string): Measure => ({
  id,
  since,
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
  /** Ready for review → merged: `merge` under the setting `drafts_from_ready` (src/services/metrics/settings/drafts.ts). */
  mergeFromReady: duration(6, readyAt, (p) => p.merged_at, readyAtSql, 'p.merged_at', 'ready_for_review_at'),
  /** Ready for review → first review by another person: `pickup` under `drafts_from_ready`. */
  pickupFromReady: duration(7, readyAt, (p) => notBeforeReady(beforeMerge(p.first_review_at, p), p), readyAtSql, notBeforeReadySql('first_review_at'), 'ready_for_review_at'),
  /** Ready for review → first approval by another person: `approval` under `drafts_from_ready`. */
  approvalFromReady: duration(8, readyAt, (p) => notBeforeReady(beforeMerge(p.first_approval_at, p), p), readyAtSql, notBeforeReadySql('first_approval_at'), 'ready_for_review_at'),
} satisfies Record<string, Measure>;

export type MeasureName = keyof typeof MEASURES;

/** AI-assisted: its description's mark, or one of its commits (kept on the pull request: src/services/git/rollups/pullRequestAi.ts). */
export const isAiPullRequest = (p: { ai_assisted: boolean | number; has_ai_commit: boolean | number }) => Boolean(Number(p.ai_assisted)) || Boolean(Number(p.has_ai_commit));
export const aiPullRequestSql = (p: string) => `CASE WHEN ${p}.ai_assisted = 1 OR ${p}.has_ai_commit = 1 THEN 1 ELSE 0 END`;
