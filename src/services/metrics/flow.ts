import { BucketOf, Distribution, emptyDistribution, MetricSql, roundHours } from './reading/sql';
import { byBucket, countBuckets, distributions, percentiles, ratio, series } from './reading/figures';

import { TASK_TYPES, TaskType } from '../../../db/models';

/**
 * The scope's tasks (docs/metrics.md#flow): a task counts where it was completed. Everything is read from what the
 * task writer derives from each task's history and keeps on the task (started_at, time in each status, canceled_at),
 * through the tasks' flow, canceled and completed indexes, and the history's reopened index.
 */
export async function flowFigures(q: MetricSql) {
  const buckets = countBuckets(q);
  const [types, leadTimes, cycleTimes, totals, inStatus, wip, now, canceled, reworked, reworkedBy] = await Promise.all([
    q.rows<{ bucket: number; type: string; n: number }>(completedByType(q, buckets)),
    distributions(q, (bucket) => completedSample(q, bucket, 't.created_at')),
    distributions(q, (bucket) => completedSample(q, bucket, 'COALESCE(t.started_at, t.created_at)')),
    q.rows<{ bucket: number; with_history: number; active: number | null; timed: number | null }>(completedTotals(q, buckets)),
    q.rows<Record<'backlog' | 'active' | 'paused', number | null>>(timeInStatus(q)),
    q.distribution(`SELECT 0 AS bucket, ${q.hours('COALESCE(t.started_at, t.created_at)', q.nowSql)} AS v FROM tasks t WHERE ${q.scoped('t', 'task')} AND t.status = 'active'`),
    q.rows<{ unassigned: number }>(
      `SELECT COUNT(*) AS unassigned FROM tasks t WHERE ${q.scoped('t', 'task')} AND t.status IN ('backlog', 'active', 'paused') AND t.assignee_id IS NULL`,
    ),
    q.rows<{ bucket: number; n: number }>(
      `SELECT ${buckets('t.canceled_at')} AS bucket, COUNT(*) AS n FROM tasks t WHERE ${q.scoped('t', 'task')} AND t.status = 'canceled' AND ${q.inWindow('t.canceled_at')} GROUP BY bucket`,
    ),
    q.rows<{ bucket: number; n: number }>(reopened(q, q.whole)),
    q.window.interval ? q.rows<{ bucket: number; n: number }>(reopened(q, q.series)) : [],
  ]);
  const byType = (rows: typeof types) => Object.fromEntries(TASK_TYPES.map((type) => [type, rows.filter((r) => r.type === type).reduce((s, r) => s + r.n, 0)])) as Record<TaskType, number>;
  const sum = <T extends { bucket: number }>(rows: T[], key: keyof T) => rows.reduce((s, r) => s + Number(r[key] ?? 0), 0);
  const wholeTotals = { with_history: sum(totals, 'with_history'), active: sum(totals, 'active'), timed: sum(totals, 'timed') };
  const inWip: Distribution = wip.get(0) ?? emptyDistribution;
  const hoursOf = (seconds: number | null | undefined) => roundHours(seconds === null || seconds === undefined ? null : seconds / 3600);
  const [cancelsBy, reworkBy] = [byBucket(canceled), byBucket(reworkedBy)];
  return {
    completed: cycleTimes.whole.n,
    lead_time_hours: percentiles(leadTimes.whole),
    cycle_time_hours: percentiles(cycleTimes.whole),
    completed_with_history: wholeTotals.with_history,
    flow_efficiency: ratio(wholeTotals.active, wholeTotals.timed),
    time_in_status_hours: { backlog: hoursOf(inStatus[0]?.backlog), active: hoursOf(inStatus[0]?.active), paused: hoursOf(inStatus[0]?.paused) },
    reworked: sum(reworked, 'n'),
    canceled: sum(canceled, 'n'),
    in_progress_now: inWip.n,
    wip_age_hours: { median: roundHours(inWip.at[50]), p90: roundHours(inWip.at[90]) },
    unassigned_now: now[0]?.unassigned ?? 0,
    by_type: byType(types),
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      completed: cycleTimes.byBucket.get(i)?.n ?? 0,
      lead_time_hours: percentiles(leadTimes.byBucket.get(i)),
      cycle_time_hours: percentiles(cycleTimes.byBucket.get(i)),
      reworked: reworkBy.get(i)?.n ?? 0,
      canceled: cancelsBy.get(i)?.n ?? 0,
      by_type: byType(types.filter((r) => Number(r.bucket) === i)),
    })),
  };
}

/** Done, and completed in the window: canceled tasks never count as completed. */
const completedInWindow = (q: MetricSql) => `${q.scoped('t', 'task')} AND t.status = 'done' AND t.completed_at IS NOT NULL AND ${q.inWindow('t.completed_at')}`;

function completedByType(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('t.completed_at')} AS bucket, t.type AS type, COUNT(*) AS n FROM tasks t WHERE ${completedInWindow(q)} GROUP BY bucket, t.type`;
}

/**
 * Hours from `since` to completion of each task completed in the window: lead time from its creation, cycle time
 * from its first active status (from its creation when it has no recorded history, or never was active).
 */
function completedSample(q: MetricSql, bucket: BucketOf, since: string): string {
  return `SELECT ${bucket('t.completed_at')} AS bucket, ${q.hours(since, 't.completed_at')} AS v FROM tasks t WHERE ${completedInWindow(q)}`;
}

/** Of the tasks completed in each bucket: those with a history, and their seconds active, and active or paused. */
function completedTotals(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('t.completed_at')} AS bucket,
      SUM(CASE WHEN t.status_changes > 0 THEN 1 ELSE 0 END) AS with_history,
      SUM(CASE WHEN t.paused_seconds IS NOT NULL THEN t.active_seconds END) AS active,
      SUM(t.active_seconds + t.paused_seconds) AS timed
    FROM tasks t WHERE ${completedInWindow(q)} GROUP BY bucket`;
}

/** Nearest-rank medians (rank ⌈n/2⌉) of the seconds in each status, over the tasks completed in the window with a history. */
function timeInStatus(q: MetricSql): string {
  const median = (column: string, rank: string) => `MIN(CASE WHEN ${rank} * 2 >= n THEN ${column} END)`;
  return `SELECT ${median('backlog', 'rb')} AS backlog, ${median('active', 'ra')} AS active, ${median('paused', 'rp')} AS paused
    FROM (SELECT t.backlog_seconds AS backlog, t.active_seconds AS active, t.paused_seconds AS paused,
            ROW_NUMBER() OVER (ORDER BY t.backlog_seconds) AS rb, ROW_NUMBER() OVER (ORDER BY t.active_seconds) AS ra,
            ROW_NUMBER() OVER (ORDER BY t.paused_seconds) AS rp, COUNT(*) OVER () AS n
          FROM tasks t WHERE ${completedInWindow(q)} AND t.status_changes > 0 AND t.backlog_seconds IS NOT NULL AND t.active_seconds IS NOT NULL AND t.paused_seconds IS NOT NULL) AS timed`;
}

/**
 * Tasks reopened: moved out of done back to work (backlog, active, paused), each task once in the window, and once
 * in each bucket it was reopened in.
 * The history's rows carry the organization; a team's are those of its tasks.
 */
function reopened(q: MetricSql, bucket: BucketOf): string {
  const team = q.scope.teamId ? `JOIN tasks t ON t.id = c.task_id AND ${q.scoped('t', 'task')}` : '';
  return `SELECT ${bucket('c.at')} AS bucket, COUNT(DISTINCT c.task_id) AS n FROM task_status_changes c ${team}
    WHERE c.organization_id = :scope_organization_id AND c.from_status = 'done' AND c.to_status IN ('backlog', 'active', 'paused') AND ${q.inWindow('c.at')}
    GROUP BY bucket`;
}
