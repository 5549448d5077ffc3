import { FIXTURE_TASKS } from '../fixtures';
import { DAY_MS } from '../random';
import { Seeding, TeamState } from '../state';
import { taskTitle } from '../text';
import { allocate, END_MS, HOUR, laterMs, sortedCreatedAts, toDate } from '../time';

/** Tasks, team by team (epics first, so children come after their epic). */
export async function seedTasks({ ins, root, spec }: Seeding, teams: TeamState[]): Promise<void> {
  const rngTask = root.fork('tasks');
  const taskShares = allocate(spec.tasks, teams.map((t) => (t.members.length + 2) * (0.5 + rngTask.float())));
  {
    await ins.stream('tasks', async (w) => {
      for (const f of FIXTURE_TASKS) {
        await w.add({ ...f, created_at: toDate(f.created_at), completed_at: toDate(f.completed_at) });
      }
      for (let ti = 0; ti < teams.length; ti++) {
        const team = teams[ti];
        const n = taskShares[ti];
        if (n === 0) continue;
        const assignees = team.members;
        const times = sortedCreatedAts(rngTask, n, team.createdMs + HOUR, END_MS, spec.tieChance);
        const nEpics = n >= 5 ? Math.max(1, Math.round(n * 0.08)) : 0;
        // Epics are the first (oldest) tasks of the team, so children are created after their epic.
        const epics: string[] = [];
        for (let i = 0; i < n; i++) {
          const isEpic = i < nEpics;
          const type = isEpic ? 'epic' : rngTask.weighted<'story' | 'bug' | 'task'>([['story', 50], ['bug', 25], ['task', 25]]);
          const status = rngTask.weighted<'backlog' | 'active' | 'paused' | 'done'>([['backlog', 20], ['active', 22], ['paused', 6], ['done', 52]]);
          const a = assignees.length > 0 && rngTask.chance(isEpic ? 0.6 : 0.85) ? rngTask.pick(assignees) : null;
          const id = rngTask.id('task_');
          if (isEpic) epics.push(id);
          await w.add({
            id,
            team_id: team.id,
            organization_id: team.org.id,
            title: taskTitle(rngTask, type),
            type,
            status,
            assignee_id: a ? a.member.user.id : null,
            parent_id: !isEpic && epics.length > 0 && rngTask.chance(0.45) ? rngTask.pick(epics) : null,
            story_points: isEpic || rngTask.chance(0.15) ? null : rngTask.pick([1, 2, 3, 5, 8, 13]),
            created_at: new Date(times[i]),
            completed_at: status === 'done' ? new Date(laterMs(rngTask, times[i], HOUR, 45 * DAY_MS)) : null,
          });
        }
      }
    });
  }
}
