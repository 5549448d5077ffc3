import { BucketOf, MetricSql } from './sql';
import { byBucket, countBuckets, series, total } from './figures';

export const INTERACTION_TYPES = ['code_review', 'communication', 'task_assignment', 'meeting'] as const;

/** Commits of the scope's repositories and the scope's interactions, where they were created (DESIGN §14). */
export async function activityFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [commits, authors, interactions] = await Promise.all([
    q.rows<{ bucket: number; commits: number; active_authors: number }>(commitCounts(q, counts)),
    // Distinct authors of the whole window are not the sum of the buckets'.
    q.window.interval ? q.rows<{ bucket: number; commits: number; active_authors: number }>(commitCounts(q, q.whole)) : undefined,
    q.rows<{ bucket: number; type: string; n: number }>(
      `SELECT ${counts('i.created_at')} AS bucket, i.type AS type, COUNT(*) AS n FROM interactions i
       WHERE ${q.scoped('i', 'interaction')} AND ${q.inWindow('i.created_at')} GROUP BY bucket, i.type`,
    ),
  ]);
  const byType = (rows: typeof interactions) => Object.fromEntries(INTERACTION_TYPES.map((type) => [type, rows.filter((r) => r.type === type).reduce((s, r) => s + r.n, 0)])) as Record<(typeof INTERACTION_TYPES)[number], number>;
  const commitsBy = byBucket(commits);
  return {
    commits: total(commits, 'commits'),
    active_authors: (authors ?? commits)[0]?.active_authors ?? 0,
    interactions_by_type: byType(interactions),
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      commits: commitsBy.get(i)?.commits ?? 0,
      active_authors: commitsBy.get(i)?.active_authors ?? 0,
      interactions_by_type: byType(interactions.filter((r) => Number(r.bucket) === i)),
    })),
  };
}

function commitCounts(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('c.created_at')} AS bucket, COUNT(*) AS commits, COUNT(DISTINCT c.author_id) AS active_authors FROM commits c
    WHERE ${q.scoped('c', 'repository')} AND ${q.inWindow('c.created_at')} GROUP BY bucket`;
}
