import { INTERACTION_TYPES } from '../../../db/vocabulary';
import { MetricSql } from './reading/sql';
import { byBucket, countBuckets, series, total } from './reading/figures';
import { recordOf } from './reading/records';

type Authors = { bucket: number; active_authors: number };

/**
 * Commits of the scope's repositories and the scope's interactions, where they were created (docs/metrics.md), from
 * what the writers keep: the daily commit counts (git/rollups/commitDays.ts), an organization's authors' days
 * (git/rollups/authorDays.ts) and the daily interaction counts (activity/interactionDays.ts).
 */
export async function activityFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [commits, authors, authorsBy, interactions] = await Promise.all([
    q.rows<{ bucket: number; commits: number }>(
      `SELECT ${counts('cd.day')} AS bucket, SUM(cd.commits) AS commits FROM commit_days cd WHERE ${q.scoped('cd', 'rollup')} AND ${q.inDays('cd.day')} GROUP BY bucket`,
    ),
    // Distinct authors of the whole window are not the sum of the buckets'.
    q.rows<Authors>(activeAuthors(q, false)),
    q.window.interval ? q.rows<Authors>(activeAuthors(q, true)) : Promise.resolve([]),
    q.rows<{ bucket: number; type: string; n: number }>(
      `SELECT ${counts('idy.day')} AS bucket, idy.type AS type, SUM(idy.interactions) AS n FROM interaction_days idy
       WHERE ${q.scoped('idy', 'team_rollup')} AND ${q.inDays('idy.day')} GROUP BY bucket, idy.type`,
    ),
  ]);
  const byType = (rows: typeof interactions) => recordOf(INTERACTION_TYPES, (type) => rows.filter((r) => r.type === type).reduce((s, r) => s + Number(r.n), 0));
  const [commitsBy, activeBy] = [byBucket(commits), byBucket(authorsBy)];
  return {
    commits: total(commits, 'commits'),
    active_authors: authors[0]?.active_authors ?? 0,
    interactions_by_type: byType(interactions),
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      commits: commitsBy.get(i)?.commits ?? 0,
      active_authors: activeBy.get(i)?.active_authors ?? 0,
      interactions_by_type: byType(interactions.filter((r) => Number(r.bucket) === i)),
    })),
  };
}

/**
 * Distinct authors, of the window or (`perBucket`) of each bucket. An organization's: their days in the window
 * whose previous day lies before the window or their bucket, one per author and bucket, counted. A team's: the
 * distinct authors of its repositories' commits (an author of several repositories counts once).
 */
function activeAuthors(q: MetricSql, perBucket: boolean): string {
  const bucket = perBucket ? q.series : q.whole;
  if (q.scope.teamId) {
    return `SELECT ${bucket('c.created_at')} AS bucket, COUNT(DISTINCT c.author_id) AS active_authors FROM commits c
      WHERE ${q.scoped('c', 'repository')} AND ${q.inWindow('c.created_at')} GROUP BY bucket`;
  }
  const before = 'ad.previous_day IS NULL OR ad.previous_day < :window_from_day';
  const first = perBucket ? `${before} OR ${bucket('ad.previous_day')} <> ${bucket('ad.day')}` : before;
  return `SELECT ${bucket('ad.day')} AS bucket, COUNT(*) AS active_authors FROM author_days ad
    WHERE ad.organization_id = :scope_organization_id AND ${q.inDays('ad.day')} AND (${first}) GROUP BY bucket`;
}
