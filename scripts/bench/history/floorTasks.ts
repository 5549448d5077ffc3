/**
 * The history floor's task rows (floor.ts): a page's issues as the task writer stores a new task of a new app's board
 * (src/services/work/taskState.ts: no team mapped, no status overrides), its flow facts derived by the same
 * flowFacts from what the issue shows. Status changes a page brings are not written: the history importers' issues
 * carry none (the REST issue shows where it stands, not how it got there).
 */
import { newId } from '../../../src/persistence/changes/ids';
import { clip, LIMITS } from '../../../src/services/git/text';
import type { TaskInput, TrackerAccount } from '../../../src/services/work/taskInput';
import { flowFacts } from '../../../db/rollups/flowFacts';
import type { Row } from './floorSql';

export function taskRows(source: { appId: string; organizationId: string }, tasks: TaskInput[], assignee: (account: TrackerAccount | null) => string | null): Row[] {
  return tasks.map((input) => ({
    id: newId('task'),
    app_id: source.appId,
    external_id: input.externalId,
    team_id: null,
    organization_id: source.organizationId,
    title: clip(input.title, LIMITS.title),
    type: input.type,
    status: input.statusCategory,
    assignee_id: assignee(input.assignee),
    parent_id: null,
    parent_external_id: input.parentExternalId ? clip(input.parentExternalId, 100) : null,
    story_points: input.storyPoints === null ? null : Math.round(input.storyPoints),
    created_at: input.createdAt,
    board_key: input.board,
    status_name: clip(input.statusName, LIMITS.name),
    provider_updated_at: input.updatedAt,
    ...flowFacts({ status: input.statusCategory, createdAt: input.createdAt, resolvedAt: input.resolvedAt, updatedAt: input.updatedAt }, []),
  }));
}
