import { BucketOf, MetricSql } from './reading/sql';
import { countBuckets, distributions, percentiles, series } from './reading/figures';

import { TASK_TYPES, TaskType } from '../../../db/models';

/** The scope's tasks (docs/metrics.md): a task counts where it was completed. */
export async function flowFigures(q: MetricSql) {
  const [types, cycleTimes, active] = await Promise.all([
    q.rows<{ bucket: number; type: string; n: number }>(completedByType(q, countBuckets(q))),
    distributions(q, (bucket) => cycleTimesOf(q, bucket)),
    q.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks t WHERE ${q.scoped('t', 'task')} AND t.status = 'active'`),
  ]);
  const byType = (rows: typeof types) => Object.fromEntries(TASK_TYPES.map((type) => [type, rows.filter((r) => r.type === type).reduce((s, r) => s + r.n, 0)])) as Record<TaskType, number>;
  return {
    completed: cycleTimes.whole.n,
    cycle_time_hours: percentiles(cycleTimes.whole),
    in_progress_now: active[0]?.n ?? 0,
    by_type: byType(types),
    series: series(q, (bucket, i) => ({
      start: bucket.start,
      completed: cycleTimes.byBucket.get(i)?.n ?? 0,
      cycle_time_hours: percentiles(cycleTimes.byBucket.get(i)),
      by_type: byType(types.filter((r) => Number(r.bucket) === i)),
    })),
  };
}

const completedInWindow = (q: MetricSql) => `${q.scoped('t', 'task')} AND t.status = 'done' AND t.completed_at IS NOT NULL AND ${q.inWindow('t.completed_at')}`;

function completedByType(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('t.completed_at')} AS bucket, t.type AS type, COUNT(*) AS n FROM tasks t WHERE ${completedInWindow(q)} GROUP BY bucket, t.type`;
}

/** Cycle time of each task completed in the window: completed − created. */
function cycleTimesOf(q: MetricSql, bucket: BucketOf): string {
  return `SELECT ${bucket('t.completed_at')} AS bucket, ${q.hours('t.created_at', 't.completed_at')} AS v FROM tasks t WHERE ${completedInWindow(q)}`;
}
