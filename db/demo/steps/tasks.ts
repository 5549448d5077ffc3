import type { TaskStatus } from '../../models';
import { flowFacts } from '../../rollups/flowFacts';
import { FIXTURE_TASKS } from '../fixtures/tasks';
import { Row } from '../inserter';
import { DAY_MS, Random } from '../random';
import { Seeding, TeamState } from '../state';
import { historyOf, Move } from '../statusHistory';
import { taskTitle } from '../text';
import { allocate, END_MS, HOUR, laterMs, sortedCreatedAts, toDate } from '../time';
import type { TeamBoard } from './apps';

/**
 * Each provider's status names, with the category the provider gives each (Jira's "Blocked" is "In Progress" to it,
 * its "Won't Do" is "Done": the apps' status overrides map them); tasks of no app keep generic names.
 */
const STATUS_NAMES: Record<string, Record<TaskStatus, [name: string, providerCategory: TaskStatus]>> = {
  jira: { backlog: ['To Do', 'backlog'], active: ['In Progress', 'active'], paused: ['Blocked', 'active'], done: ['Done', 'done'], canceled: ["Won't Do", 'done'] },
  linear: { backlog: ['Backlog', 'backlog'], active: ['In Progress', 'active'], paused: ['Blocked', 'active'], done: ['Done', 'done'], canceled: ['Canceled', 'canceled'] },
  none: { backlog: ['Backlog', 'backlog'], active: ['In Progress', 'active'], paused: ['Paused', 'paused'], done: ['Done', 'done'], canceled: ['Canceled', 'canceled'] },
};

/**
 * Tasks, team by team (epics first, so children come after their epic), each with a status history and the flow facts
 * the task writer would derive from it (db/rollups/flowFacts.ts); the tasks of a team mapped to a tracker's board
 * come from that app. Then the histories themselves.
 */
export async function seedTasks({ ins, root, spec }: Seeding, teams: TeamState[], boards: Map<string, TeamBoard>): Promise<void> {
  const rngTask = root.fork('tasks');
  // A stream of its own: the tasks' other draws stay as they were before they had a history.
  const rngHistory = root.fork('taskHistory');
  const taskShares = allocate(spec.tasks, teams.map((t) => (t.members.length + 2) * (0.5 + rngTask.float())));
  const changes: { taskId: string; organizationId: string; provider: string; moves: Move[] }[] = [];
  const issueNumbers = new Map<string, number>();
  await ins.stream('tasks', async (w) => {
    // The fixtures have no recorded history: their facts are those of a task imported without its changelog.
    for (const f of FIXTURE_TASKS) {
      const createdAt = toDate(f.created_at)!;
      const completedAt = toDate(f.completed_at);
      await w.add({ ...f, created_at: createdAt, ...flowFacts({ status: f.status, createdAt, resolvedAt: completedAt, updatedAt: completedAt ?? createdAt }, []) });
    }
    for (let ti = 0; ti < teams.length; ti++) {
      const team = teams[ti];
      const n = taskShares[ti];
      if (n === 0) continue;
      const assignees = team.members;
      const board = boards.get(team.id);
      const times = sortedCreatedAts(rngTask, n, team.createdMs + HOUR, END_MS, spec.tieChance);
      const nEpics = n >= 5 ? Math.max(1, Math.round(n * 0.08)) : 0;
      // Epics are the first (oldest) tasks of the team, so children are created after their epic.
      const epics: string[] = [];
      for (let i = 0; i < n; i++) {
        const isEpic = i < nEpics;
        const type = isEpic ? 'epic' : rngTask.weighted<'story' | 'bug' | 'task'>([['story', 50], ['bug', 25], ['task', 25]]);
        const drawn = rngTask.weighted<'backlog' | 'active' | 'paused' | 'done'>([['backlog', 20], ['active', 22], ['paused', 6], ['done', 52]]);
        const a = assignees.length > 0 && rngTask.chance(isEpic ? 0.6 : 0.85) ? rngTask.pick(assignees) : null;
        const id = rngTask.id('task_');
        if (isEpic) epics.push(id);
        const title = taskTitle(rngTask, type);
        const parentId = !isEpic && epics.length > 0 && rngTask.chance(0.45) ? rngTask.pick(epics) : null;
        const storyPoints = isEpic || rngTask.chance(0.15) ? null : rngTask.pick([1, 2, 3, 5, 8, 13]);
        const drawnCompletedMs = drawn === 'done' ? laterMs(rngTask, times[i], HOUR, 45 * DAY_MS) : null;
        const { status, completedMs, moves } = historyOf(rngHistory, drawn, times[i], drawnCompletedMs);
        const createdAt = new Date(times[i]);
        const lastMs = moves.at(-1)?.at ?? completedMs ?? times[i];
        const facts = flowFacts(
          { status, createdAt, resolvedAt: completedMs === null ? null : new Date(completedMs), updatedAt: new Date(lastMs) },
          transitions(moves),
        );
        const provider = board?.provider ?? 'none';
        if (moves.length) changes.push({ taskId: id, organizationId: team.org.id, provider, moves });
        await w.add({
          id,
          team_id: team.id,
          organization_id: team.org.id,
          title,
          type,
          status,
          assignee_id: a ? a.member.user.id : null,
          parent_id: parentId,
          story_points: storyPoints,
          created_at: createdAt,
          ...facts,
          ...(board ? fromBoard(rngHistory, board, issueNumbers, STATUS_NAMES[provider][status][0], lastMs) : {}),
        });
      }
    }
  });
  await ins.insertAll('task_status_changes', historyRows(changes));
}

function transitions(moves: Move[]): { from_status: TaskStatus | null; to_status: TaskStatus; at: Date }[] {
  return moves.map((m, i) => ({ from_status: i === 0 ? 'backlog' : moves[i - 1].to, to_status: m.to, at: new Date(m.at) }));
}

/** Where a task of a mapped team came from: its app, board and the provider's id, status name and update time. */
function fromBoard(rng: Random, board: TeamBoard, numbers: Map<string, number>, statusName: string, updatedMs: number): Row {
  const number = (numbers.get(board.appId) ?? 10_000) + 1;
  numbers.set(board.appId, number);
  // Jira's issue ids are numbers; Linear's are UUIDs.
  const externalId = board.provider === 'jira' ? String(number) : `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`;
  return { app_id: board.appId, board_key: board.board, external_id: externalId, status_name: statusName, provider_updated_at: new Date(updatedMs) };
}

/** Each move as the tracker recorded it: its names and categories, and the categories they mean here. */
function* historyRows(changes: { taskId: string; organizationId: string; provider: string; moves: Move[] }[]): Generator<Row> {
  let id = 20_000;
  for (const { taskId, organizationId, provider, moves } of changes) {
    const names = STATUS_NAMES[provider];
    for (let i = 0; i < moves.length; i++) {
      const from: TaskStatus = i === 0 ? 'backlog' : moves[i - 1].to;
      const to = moves[i].to;
      yield {
        task_id: taskId,
        external_id: String(++id),
        organization_id: organizationId,
        from_name: names[from][0],
        to_name: names[to][0],
        from_category: names[from][1],
        to_category: names[to][1],
        from_status: from,
        to_status: to,
        at: new Date(moves[i].at),
      };
    }
  }
}
