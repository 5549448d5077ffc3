import { BucketOf, Distribution, emptyDistribution, MetricSql, roundHours } from './sql';
import { byBucket, countBuckets, ratio, series, total } from './figures';
import { blamedSql, production } from './dora';
import { firstReviewSql } from './collaboration';

/**
 * Whether AI-assisted work ships faster or breaks more (DESIGN §16). A commit is AI-assisted by the mark an AI
 * tool left in its message, or when its author used an AI coding tool that UTC day (the telemetry's daily
 * rollup, kept on the commit by the writers); a pull request by the mark in its description, or when one of its commits is (its head, the commit
 * that merged it, or one pushed while it was open). Pull request figures are over those merged in the window,
 * where they were merged; the failure rate over production deployments finished in the window, by whether the
 * changes they shipped (as DORA counts them) include an AI-assisted commit.
 */
/** Its description's mark, or one of its commits (kept on the pull request by the writers: pullRequestAi.ts). */
export const aiPullRequestSql = (p: string) => `(${p}.ai_assisted = 1 OR ${p}.has_ai_commit = 1)`;

/** Merged pull requests of the window, each with its bucket, whether AI-assisted, and what the figures measure. */
function mergedPullRequests(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('p.merged_at')} AS bucket, CASE WHEN ${aiPullRequestSql('p')} THEN 1 ELSE 0 END AS ai,
      p.created_at, p.merged_at, ${firstReviewSql('p')} AS reviewed_at, p.additions + p.deletions AS size
    FROM pull_requests p WHERE ${q.scoped('p', 'repository')} AND p.merged_at IS NOT NULL AND ${q.inWindow('p.merged_at')}`;
}

/** A measure's distribution per bucket and group: sample bucket 2·b + 1 holds bucket b's AI-assisted ones, 2·b the others. */
function split(q: MetricSql, bucket: BucketOf, value: string): Promise<Map<number, Distribution>> {
  return q.distribution(`SELECT m.bucket * 2 + m.ai AS bucket, ${value} AS v FROM (${mergedPullRequests(q, bucket)}) AS m WHERE ${value} IS NOT NULL`);
}

const stage = (d: Distribution = emptyDistribution) => ({ median: roundHours(d.at[50]), p75: roundHours(d.at[75]), n: d.n });
const compared = (groups: Map<number, Distribution>, bucket = 0) => ({ ai: stage(groups.get(bucket * 2 + 1)), other: stage(groups.get(bucket * 2)) });

type Deployments = { ai: number; deployments: number; failed: number };

export async function aiImpactFigures(q: MetricSql) {
  const counts = countBuckets(q);
  const [commits, merged, timeToMerge, pickup, size, deployments, mergeSeries] = await Promise.all([
    q.rows<{ bucket: number; commits: number; ai: number }>(
      // The daily counts kept by the writers (git/commitDays.ts).
      `SELECT ${counts('cd.day')} AS bucket, SUM(cd.commits) AS commits, SUM(cd.ai_commits) AS ai
       FROM commit_days cd WHERE ${q.scoped('cd', 'rollup')} AND ${q.inDays('cd.day')} GROUP BY bucket`,
    ),
    q.rows<{ bucket: number; merged: number; ai: number }>(`SELECT bucket, COUNT(*) AS merged, SUM(ai) AS ai FROM (${mergedPullRequests(q, counts)}) AS m GROUP BY bucket`),
    split(q, q.whole, q.hours('m.created_at', 'm.merged_at')),
    split(q, q.whole, q.hours('m.created_at', 'm.reviewed_at')),
    split(q, q.whole, 'm.size'),
    q.rows<Deployments>(deploymentsByShippedChanges(q)),
    q.window.interval ? split(q, q.series, q.hours('m.created_at', 'm.merged_at')) : undefined,
  ]);
  const failureRate = (ai: 0 | 1) => {
    const row = deployments.find((r) => Number(r.ai) === ai);
    return { rate: ratio(row?.failed ?? 0, row?.deployments ?? 0), failed: row?.failed ?? 0, deployments: row?.deployments ?? 0 };
  };
  const [commitsBy, mergedBy] = [byBucket(commits), byBucket(merged)];
  return {
    ai_assisted_commits: { count: total(commits, 'ai'), commits: total(commits, 'commits'), share: ratio(total(commits, 'ai'), total(commits, 'commits')) },
    ai_assisted_prs: { count: total(merged, 'ai'), merged: total(merged, 'merged'), share: ratio(total(merged, 'ai'), total(merged, 'merged')) },
    time_to_merge_hours: compared(timeToMerge),
    pickup_hours: compared(pickup),
    pr_size_lines: compared(size),
    change_failure_rate: { ai: failureRate(1), other: failureRate(0) },
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      commits: commitsBy.get(i)?.commits ?? 0,
      ai_assisted_commits: commitsBy.get(i)?.ai ?? 0,
      merged: mergedBy.get(i)?.merged ?? 0,
      ai_assisted_prs: mergedBy.get(i)?.ai ?? 0,
      time_to_merge_hours: compared(mergeSeries ?? new Map(), i),
    })),
  };
}

/**
 * Production deployments finished in the window, successful or failed (as DORA's failure rate counts them), by
 * whether the commits they shipped, or would have, include an AI-assisted one (kept on each: git/shippedChanges.ts).
 */
function deploymentsByShippedChanges(q: MetricSql): string {
  return `SELECT d.shipped_ai AS ai, COUNT(*) AS deployments, SUM(CASE WHEN d.status = 'failure' OR ${blamedSql('d')} THEN 1 ELSE 0 END) AS failed
    FROM deployments d
    WHERE ${q.scoped('d', 'repository')} AND ${production('d')} AND d.status IN ('success', 'failure') AND ${q.inWindow('d.finished_at')}
    GROUP BY d.shipped_ai`;
}
