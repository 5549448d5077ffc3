import type { TaskStatus } from '../models';

export interface Transition {
  from_status: TaskStatus | null;
  to_status: TaskStatus;
  at: Date;
}

/**
 * What the flow figures read of a task (docs/metrics.md#flow), derived from its current state and history: by the task
 * writer (src/services/work) and by the demo seed, which writes its tasks' histories itself.
 */
export interface FlowFacts {
  completed_at: Date | null;
  canceled_at: Date | null;
  started_at: Date | null;
  backlog_seconds: number | null;
  active_seconds: number | null;
  paused_seconds: number | null;
  status_changes: number;
}

const TIMED: readonly TaskStatus[] = ['backlog', 'active', 'paused'];

/**
 * A task's flow facts. Its history is walked from its creation: each interval counts for the category the task
 * was in (the first change's `from`, else backlog), up to completion. A done task's completion is its last move to
 * done on record, else the provider's resolution time, else the time of the state shown; likewise a canceled
 * one's. Time in each category is known only for a done task with a history.
 */
export function flowFacts(
  task: { status: TaskStatus; createdAt: Date; resolvedAt: Date | null; updatedAt: Date },
  history: Transition[],
): FlowFacts {
  const changes = [...history].sort((a, b) => a.at.getTime() - b.at.getTime());
  const lastInto = (status: TaskStatus) => [...changes].reverse().find((c) => c.to_status === status)?.at ?? null;
  const closedAt = (status: TaskStatus) => (task.status === status ? (lastInto(status) ?? task.resolvedAt ?? task.updatedAt) : null);
  const completedAt = closedAt('done');
  const facts: FlowFacts = {
    completed_at: completedAt,
    canceled_at: closedAt('canceled'),
    started_at: changes.find((c) => c.to_status === 'active')?.at ?? null,
    backlog_seconds: null,
    active_seconds: null,
    paused_seconds: null,
    status_changes: changes.length,
  };
  if (!completedAt || changes.length === 0) return facts;
  const seconds: Record<string, number> = { backlog: 0, active: 0, paused: 0 };
  let current: TaskStatus = changes[0].from_status ?? 'backlog';
  let since = task.createdAt.getTime();
  const end = completedAt.getTime();
  for (const change of changes) {
    const at = Math.min(Math.max(change.at.getTime(), since), end);
    if (TIMED.includes(current)) seconds[current] += (at - since) / 1000;
    current = change.to_status;
    since = at;
  }
  if (TIMED.includes(current)) seconds[current] += (end - since) / 1000;
  return { ...facts, backlog_seconds: Math.round(seconds.backlog), active_seconds: Math.round(seconds.active), paused_seconds: Math.round(seconds.paused) };
}
