import type { TaskStatus } from '../models';
import { DAY_MS, Random } from './random';
import { END_MS, HOUR, laterMs } from './time';

/** One move of a task's status, as a tracker's history records it. */
export interface Move {
  at: number;
  to: TaskStatus;
}

/** Old work is settled: of the tasks drawn open but created this long before the demo's end, most were finished or dropped. */
const SETTLED_MS = 60 * DAY_MS;

/**
 * A believable status history for a generated task, ending in the status it was drawn with, unless the task is old:
 * then it was most likely done (or, from the backlog, dropped) since, so the work in progress is mostly recent
 * work. Work starts some time after creation; some is paused and resumed, some done and then reopened, some
 * dropped (canceled). A few tasks have no history (imported without their changelog), as real ones do.
 * `completedMs`: when a task drawn done was completed (its last move to done).
 */
export function historyOf(rng: Random, drawnStatus: TaskStatus, createdMs: number, drawnCompletedMs: number | null): { status: TaskStatus; completedMs: number | null; moves: Move[] } {
  let [drawn, completedMs] = [drawnStatus, drawnCompletedMs];
  let dropped = false;
  if (drawn !== 'done' && createdMs < END_MS - SETTLED_MS) {
    const settled = rng.float();
    if (settled < (drawn === 'backlog' ? 0.5 : 0.97)) [drawn, completedMs] = ['done', laterMs(rng, createdMs, HOUR, 45 * DAY_MS)];
    else dropped = drawn === 'backlog' && settled < 0.75;
  }
  if (rng.chance(0.06)) return { status: drawn, completedMs, moves: [] };
  const within = (from: number, to: number, lo: number, hi: number) => Math.round(from + (to - from) * (lo + rng.float() * (hi - lo)));
  // Work on an open task started within the last weeks (or at its creation, when it is younger).
  const recentStart = () => Math.max(within(createdMs, END_MS, 0.02, 0.4), END_MS - rng.durationMs(6 * HOUR, 45 * DAY_MS));
  let status = drawn;
  const moves: Move[] = [];
  const go = (at: number, to: TaskStatus) => moves.push({ at, to });
  if (drawn === 'done' && completedMs !== null) {
    const started = within(createdMs, completedMs, 0.05, 0.5);
    go(started, 'active');
    const kind = rng.float();
    if (kind < 0.08) {
      // Done, reopened (a bug found in review, a missed case), done again.
      const firstDone = within(started, completedMs, 0.3, 0.6);
      go(firstDone, 'done');
      go(within(firstDone, completedMs, 0.2, 0.6), 'active');
    } else if (kind < 0.65) {
      const paused = within(started, completedMs, 0.2, 0.6);
      go(paused, 'paused');
      go(within(paused, completedMs, 0.2, 0.8), 'active');
    }
    go(completedMs, 'done');
  } else if (drawn === 'active' || drawn === 'paused') {
    const started = recentStart();
    go(started, 'active');
    const kind = rng.float();
    if (drawn === 'paused') go(within(started, END_MS, 0.2, 0.8), 'paused');
    else if (kind < 0.1) {
      const done = within(started, END_MS, 0.3, 0.6);
      go(done, 'done');
      go(within(done, END_MS, 0.2, 0.7), 'active');
    } else if (kind < 0.3) {
      const paused = within(started, END_MS, 0.2, 0.5);
      go(paused, 'paused');
      go(within(paused, END_MS, 0.2, 0.7), 'active');
    }
  } else if (drawn === 'backlog') {
    const kind = rng.float();
    if (dropped || kind < 0.15) {
      status = 'canceled';
      const canceled = Math.min(createdMs + rng.durationMs(HOUR, 90 * DAY_MS), within(createdMs, END_MS, 0.5, 0.99));
      if (rng.chance(0.4)) go(within(createdMs, canceled, 0.2, 0.7), 'active');
      go(canceled, 'canceled');
    } else if (kind < 0.25) {
      // Started, then put back: deprioritized.
      const started = recentStart();
      go(started, 'active');
      go(within(started, END_MS, 0.2, 0.8), 'backlog');
    }
  }
  // A task too young for its moves to fall apart keeps none (and its drawn status).
  const ordered = moves.every((m, i) => m.at > (i === 0 ? createdMs : moves[i - 1].at) && m.at < END_MS);
  return ordered ? { status, completedMs, moves } : { status: drawn, completedMs, moves: [] };
}
