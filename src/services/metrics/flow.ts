import { BucketOf, Distribution, emptyDistribution, MetricSql, Percentile, roundHours } from './reading/sql';
import { byBucket, countBuckets, percentiles, ratio, series } from './reading/figures';

import { TASK_TYPES } from '../../../db/models';
import { recordOf } from './reading/records';

/**
 * The scope's tasks (docs/metrics.md#flow): a task counts where it was completed. Everything is read from what the
 * task writer derives from each task's history and keeps on the task (started_at, time in each status, canceled_at),
 * through the tasks' flow, canceled and completed indexes, and the history's reopened index. The tasks completed in
 * the window are read three times, each a range of an index that holds all it needs: their types (the completed
 * index); their lead and cycle times and totals (the flow index), once more per bucket for a series; their time in
 * each status (the flow index again, apart so that it runs beside the others: together they would run one after the
 * other).
 */
export async function flowFigures(q: MetricSql) {
  const buckets = countBuckets(q);
  const [types, [completed], completedBy, inStatus, wip, now, canceled, reworked, reworkedBy] = await Promise.all([
    q.rows<{ bucket: number; type: string; n: number }>(completedByType(q, buckets)),
    q.rows<CompletedFlow>(completedFlow(q, q.whole)),
    q.window.interval ? q.rows<CompletedFlow>(completedFlow(q, q.series)).then(byBucket) : new Map<number, CompletedFlow>(),
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
  const byType = (rows: typeof types) => recordOf(TASK_TYPES, (type) => rows.filter((r) => r.type === type).reduce((s, r) => s + r.n, 0));
  const sum = <T extends { bucket: number }>(rows: T[], key: keyof T) => rows.reduce((s, r) => s + Number(r[key] ?? 0), 0);
  const inWip: Distribution = wip.get(0) ?? emptyDistribution;
  const hoursOf = (seconds: number | null | undefined) => roundHours(seconds === null || seconds === undefined ? null : seconds / 3600);
  const [cancelsBy, reworkBy] = [byBucket(canceled), byBucket(reworkedBy)];
  return {
    completed: completed?.n ?? 0,
    lead_time_hours: percentiles(completed && distribution(completed, 'lead_time')),
    cycle_time_hours: percentiles(completed && distribution(completed, 'cycle_time')),
    completed_with_history: completed?.with_history ?? 0,
    flow_efficiency: ratio(completed?.active ?? 0, completed?.timed ?? 0),
    time_in_status_hours: { backlog: hoursOf(inStatus[0]?.backlog), active: hoursOf(inStatus[0]?.active), paused: hoursOf(inStatus[0]?.paused) },
    reworked: sum(reworked, 'n'),
    canceled: sum(canceled, 'n'),
    in_progress_now: inWip.n,
    wip_age_hours: { median: roundHours(inWip.at[50]), p90: roundHours(inWip.at[90]) },
    unassigned_now: now[0]?.unassigned ?? 0,
    by_type: byType(types),
    series: series(q, (bucket, i) => {
      const inBucket = completedBy.get(i);
      return {
        start: bucket.start,
        completed: inBucket?.n ?? 0,
        lead_time_hours: percentiles(inBucket && distribution(inBucket, 'lead_time')),
        cycle_time_hours: percentiles(inBucket && distribution(inBucket, 'cycle_time')),
        reworked: reworkBy.get(i)?.n ?? 0,
        canceled: cancelsBy.get(i)?.n ?? 0,
        by_type: byType(types.filter((r) => Number(r.bucket) === i)),
      };
    }),
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
const SINCE = { lead_time: 't.created_at', cycle_time: 'COALESCE(t.started_at, t.created_at)' } as const;
type Sample = keyof typeof SINCE;
const SAMPLES = Object.keys(SINCE).filter((k): k is Sample => Object.hasOwn(SINCE, k));
const PERCENTILES: Percentile[] = [50, 75, 90];

/** A bucket's tasks completed, their totals, and each sample's percentiles (`lead_time_50`), in hours. */
type CompletedFlow = { bucket: number; n: number; with_history: number | null; active: number | null; timed: number | null } & Record<`${Sample}_${Percentile}`, number | null>;

/**
 * The tasks completed in the window, read once: per bucket, how many, the nearest-rank percentiles of their lead
 * and cycle times (ranked as MetricSql.distribution ranks a sample: the least value whose rank r has r·100 ≥ p·n),
 * those with a history, and their seconds active, and active or paused. The samples are ranked on their spans
 * (`MetricSql.span`) and only the percentiles picked are turned into hours. The window's whole (bucket 0: one row,
 * whatever was completed) is read apart from a series' buckets: MariaDB 10.11 numbers rows wrongly when one
 * statement ranks the same values both within buckets and over all rows.
 */
function completedFlow(q: MetricSql, bucket: BucketOf): string {
  const series = bucket !== q.whole;
  const over = (order: string) => `OVER (${series ? 'PARTITION BY bucket ' : ''}${order})`;
  const ranks = SAMPLES.map((sample) => `ROW_NUMBER() ${over(`ORDER BY ${sample}`)} AS ${sample}_rank`);
  const picks = SAMPLES.flatMap((sample) =>
    PERCENTILES.map((p) => `${q.hoursOfSpan(`MIN(CASE WHEN ${sample}_rank * 100 >= ${p} * sample_size THEN ${sample} END)`)} AS ${sample}_${p}`),
  );
  const spans = SAMPLES.map((sample) => `${q.span(SINCE[sample], 't.completed_at')} AS ${sample}`);
  // Grouped only by a series' buckets: grouping every row under bucket 0 costs MariaDB a temporary table.
  const [selected, inBucket, grouped] = series ? ['bucket', `${bucket('t.completed_at')} AS bucket, `, 'GROUP BY bucket'] : ['0 AS bucket', '', ''];
  return `SELECT ${selected}, COUNT(*) AS n,
      SUM(CASE WHEN status_changes > 0 THEN 1 ELSE 0 END) AS with_history,
      SUM(CASE WHEN paused IS NOT NULL THEN active END) AS active,
      SUM(active + paused) AS timed,
      ${picks.join(', ')}
    FROM (SELECT ${series ? 'bucket, ' : ''}${SAMPLES.join(', ')}, status_changes, active, paused, COUNT(*) ${over('')} AS sample_size, ${ranks.join(', ')}
          FROM (SELECT ${inBucket}${spans.join(', ')}, t.status_changes AS status_changes, t.active_seconds AS active, t.paused_seconds AS paused
                FROM tasks t WHERE ${completedInWindow(q)}) AS completed) AS ranked
    ${grouped}`;
}

/** A sample's distribution over a bucket's tasks. */
const distribution = (row: CompletedFlow, sample: Sample): Distribution => ({ n: row.n, at: { 50: row[`${sample}_50`], 75: row[`${sample}_75`], 90: row[`${sample}_90`] } });

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
