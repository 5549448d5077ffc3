import { Distribution, emptyDistribution, MetricSql, roundHours } from './reading/sql';
import { MergedCounts, mergedCountsSql, measureDistributions } from './mergedPullRequests';
import { byBucket, countBuckets, ratio, series, total } from './reading/figures';
import { adoptionTiers } from './adoptionTiers';
import type { MetricDetail } from './detail';
import { AI_EVIDENCE, AiEvidence, EVIDENCE_COUNTS } from '../../../db/rollups/aiEvidence';
import { recordOf } from './reading/records';

/**
 * Whether AI-assisted work ships faster or breaks more (docs/metrics.md#ai-review-and-cost-figures). A commit is AI-assisted on evidence,
 * the strongest said: the mark an AI tool left in its message, or its author's day showing code a tool wrote (OTLP
 * telemetry's lines or commits, a vendor's lines; kept on the commit by the writers: git/rollups/aiEvidence.ts); a pull request by the mark in its description, or when one of its commits is (its head, the commit
 * that merged it, or one pushed while it was open). Pull request figures are over those merged in the window,
 * where they were merged; the failure rate over production deployments finished in the window, by whether the
 * changes they shipped (as DORA counts them) include an AI-assisted commit.
 */
const stage = (d: Distribution = emptyDistribution) => ({ median: roundHours(d.at[50]), p75: roundHours(d.at[75]), n: d.n });
type Split = Awaited<ReturnType<typeof measureDistributions<'merge' | 'pickup' | 'size'>>>;
/** The AI-assisted and the others apart, for the window (bucket undefined) or one bucket of its series. */
const compared = (split: Split, measure: 'merge' | 'pickup' | 'size', bucket?: number) => {
  const of = (d: ReturnType<Split['ai']>) => stage(bucket === undefined ? d?.whole : d?.byBucket.get(bucket));
  return { ai: of(split.ai(measure)), other: of(split.other(measure)) };
};

type Deployments = { ai: number; deployments: number; failed: number };

export async function aiImpactFigures(q: MetricSql, detail: MetricDetail) {
  const counts = countBuckets(q);
  const [commits, merged, split, deployments, tiers] = await Promise.all([
    q.rows<{ bucket: number; commits: number; ai: number } & Record<AiEvidence, number>>(
      // The daily counts kept by the writers (git/rollups/commitDays.ts).
      `SELECT ${counts('cd.day')} AS bucket, SUM(cd.commits) AS commits, SUM(cd.ai_commits) AS ai${AI_EVIDENCE.map((e) => `, SUM(cd.${EVIDENCE_COUNTS[e]}) AS ${e}`).join('')}
       FROM commit_days cd WHERE ${q.scoped('cd', 'rollup')} AND ${q.inDays('cd.day')} GROUP BY bucket`,
    ),
    q.rows<MergedCounts>(mergedCountsSql(q, counts)),
    measureDistributions(q, ['merge', 'pickup', 'size'], [50, 75], true),
    q.rows<Deployments>(deploymentsByShippedChanges(q)),
    // An organization's teams by adoption, only for those who may see them (decided by the caller: procedures/metrics.ts).
    detail.adoptionTiers && !q.scope.teamId ? adoptionTiers(q) : null,
  ]);
  const failureRate = (ai: 0 | 1) => {
    const row = deployments.find((r) => Number(r.ai) === ai);
    return { rate: ratio(row?.failed ?? 0, row?.deployments ?? 0), failed: row?.failed ?? 0, deployments: row?.deployments ?? 0 };
  };
  const [commitsBy, mergedBy] = [byBucket(commits), byBucket(merged)];
  return {
    ai_assisted_commits: {
      count: total(commits, 'ai'),
      commits: total(commits, 'commits'),
      share: ratio(total(commits, 'ai'), total(commits, 'commits')),
      by_evidence: recordOf(AI_EVIDENCE, (e) => total(commits, e)),
    },
    ai_assisted_prs: { count: total(merged, 'ai'), merged: total(merged, 'merged'), share: ratio(total(merged, 'ai'), total(merged, 'merged')) },
    time_to_merge_hours: compared(split, 'merge'),
    pickup_hours: compared(split, 'pickup'),
    pr_size_lines: compared(split, 'size'),
    change_failure_rate: { ai: failureRate(1), other: failureRate(0) },
    by_adoption_tier: tiers,
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      commits: commitsBy.get(i)?.commits ?? 0,
      ai_assisted_commits: commitsBy.get(i)?.ai ?? 0,
      merged: mergedBy.get(i)?.merged ?? 0,
      ai_assisted_prs: mergedBy.get(i)?.ai ?? 0,
      time_to_merge_hours: compared(split, 'merge', i),
    })),
  };
}

/**
 * Production deployments finished in the window, successful or failed, and the change failures among them (as DORA's
 * failure rate counts them, by the organization's settings), by whether the commits they shipped, or would have,
 * include an AI-assisted one (kept on each: git/rollups/shippedChanges.ts).
 */
function deploymentsByShippedChanges(q: MetricSql): string {
  return `SELECT d.shipped_ai AS ai, COUNT(*) AS deployments, SUM(CASE WHEN ${q.changeFailure('d').failed} THEN 1 ELSE 0 END) AS failed
    FROM deployments d
    WHERE ${q.scoped('d', 'repository')} AND ${q.production('d')} AND d.status IN ('success', 'failure') AND ${q.inWindow('d.finished_at')}
    GROUP BY d.shipped_ai`;
}
