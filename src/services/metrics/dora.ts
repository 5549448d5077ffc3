import { BucketOf, emptyDistribution, MetricSql, roundHours } from './reading/sql';
import { leadTimeMedians } from './leadTime';
import { byBucket, countBuckets, distributions, failureRateBand, frequencyBand, reworkRateBand, leadTimeBand, ratio, restoreBand, round, series, total } from './reading/figures';

/**
 * DORA by the Four Keys method (docs/metrics.md), over the production deployments of the scope's repositories. A
 * deployment counts where it finished; a change where the deployment that shipped it finished; an incident where
 * it was opened.
 */
export async function doraFigures(q: MetricSql) {
  const [counts, leadTimes, restores, recoveries] = await Promise.all([
    q.rows<{ bucket: number; deployments: number; finished: number; failed: number; rework: number }>(deploymentCounts(q, countBuckets(q))),
    leadTimeMedians(q),
    distributions(q, (bucket) => restoredIncidents(q, bucket)),
    distributions(q, (bucket) => recoveredDeployments(q, bucket)),
  ]);
  const deployments = total(counts, 'deployments');
  const finished = total(counts, 'finished');
  const failed = total(counts, 'failed');
  const rework = total(counts, 'rework');
  const reworkRate = ratio(rework, finished);
  const perDay = deployments / q.window.days;
  const leadTime = roundHours(leadTimes.whole.at[50]);
  const rate = ratio(failed, finished);
  const restore = roundHours(restores.whole.at[50]);
  const recovery = roundHours(recoveries.whole.at[50]);
  const buckets = byBucket(counts);
  return {
    deployment_frequency: { deployments, per_day: round(perDay, 4), band: frequencyBand(perDay) },
    lead_time_for_changes: { median_hours: leadTime, changes: leadTimes.whole.n, band: leadTimeBand(leadTime) },
    change_failure_rate: { rate, failed, deployments: finished, band: failureRateBand(rate) },
    time_to_restore: { median_hours: restore, incidents: restores.whole.n, band: restoreBand(restore) },
    // Every failed deployment is recovered or not yet: those not yet are the rest of the failed ones.
    failed_deployment_recovery: { median_hours: recovery, deployments: recoveries.whole.n, unrecovered: failed - recoveries.whole.n, band: restoreBand(recovery) },
    rework_rate: { rate: reworkRate, rework, deployments: finished, band: reworkRateBand(reworkRate) },
    series: series(q, (bucket, i) => {
      const c = buckets.get(i);
      const lead = leadTimes.byBucket.get(i) ?? emptyDistribution;
      const restored = restores.byBucket.get(i) ?? emptyDistribution;
      const recovered = recoveries.byBucket.get(i) ?? emptyDistribution;
      return {
        start: bucket.start,
        deployments: c?.deployments ?? 0,
        changes: lead.n,
        median_lead_time_hours: roundHours(lead.at[50]),
        finished: c?.finished ?? 0,
        failed: c?.failed ?? 0,
        change_failure_rate: ratio(c?.failed ?? 0, c?.finished ?? 0),
        incidents: restored.n,
        median_time_to_restore_hours: roundHours(restored.at[50]),
        failed_deployments_recovered: recovered.n,
        median_failed_deployment_recovery_hours: roundHours(recovered.at[50]),
        rework: c?.rework ?? 0,
      };
    }),
  };
}

/**
 * Per bucket: successful deployments (frequency), and successful plus failed ones with how many were change failures
 * by the organization's settings (q.changeFailure: a failed job, an incident's blame, a revert, rollback or hotfix;
 * a successful one so failed still counts in the frequency) and how many were rework (kept on each:
 * git/rollups/shippedChanges.ts).
 */
export function deploymentCounts(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('d.finished_at')} AS bucket,
      SUM(CASE WHEN d.status = 'success' THEN 1 ELSE 0 END) AS deployments,
      COUNT(*) AS finished,
      SUM(CASE WHEN ${q.changeFailure('d').failed} THEN 1 ELSE 0 END) AS failed,
      SUM(CASE WHEN d.rework = 1 THEN 1 ELSE 0 END) AS rework
    FROM deployments d
    WHERE ${q.scoped('d', 'repository')} AND ${q.production('d')} AND d.status IN ('success', 'failure') AND ${q.inWindow('d.finished_at')}
    GROUP BY bucket`;
}

/** Time to restore of each incident that counts (docs/metrics.md#what-counts) opened in the window and resolved. */
function restoredIncidents(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('i.created_at')} AS bucket, ${q.hours('i.created_at', 'i.resolved_at')} AS v
    FROM incidents i
    WHERE ${q.scoped('i', 'incident')} AND ${q.inWindow('i.created_at')} AND i.resolved_at IS NOT NULL AND ${q.incidents('i')}`;
}

/**
 * Failed deployment recovery time (DORA 2023 on) of each change failure (q.changeFailure) among the production
 * deployments finished in the window that has been restored: from its finish to the first restoration among its
 * causes, each kept on it by the writers: the next clean success of its repository and environment for a failed job or
 * an incident's blame (`recovered_at`: db/rollups/recoveries.ts), the revert or rollback (`reverted_at`:
 * db/rollups/reverts.ts), the hotfix's deployment.
 */
function recoveredDeployments(q: MetricSql, bucket: BucketOf): string {
  const { failed, restoredAt } = q.changeFailure('d');
  return `SELECT bucket, ${q.hours('finished_at', 'restored_at')} AS v FROM (
      SELECT ${bucket('d.finished_at')} AS bucket, d.finished_at, ${restoredAt} AS restored_at
      FROM deployments d
      WHERE ${q.scoped('d', 'repository')} AND ${q.production('d')} AND d.status IN ('success', 'failure') AND ${q.inWindow('d.finished_at')} AND ${failed}) AS f
    WHERE restored_at IS NOT NULL`;
}
