import { z } from 'zod';
import type { DashboardCatalogEntry, DashboardView, Interaction, Task } from '../../db/models';
import { INTERACTION_TYPES, TASK_STATUSES, TASK_TYPES } from '../../db/vocabulary';
import { nullableTimestamp, timestamp } from '../wire/envelopes';
import { defineResource, iso, isoOrNull } from './resource';

export const InteractionResource = defineResource('Interaction', 'One collaboration event of a user.', {
  id: z.string(),
  type: z.enum(INTERACTION_TYPES).meta({ description: 'A review of a member’s pull request, a Slack message to a member, or a task assigned to a member (docs/metrics.md#activity)' }),
  source: z.string().meta({ description: 'Where it was observed: github, gitlab, bitbucket, slack, jira, linear' }),
  user_id: z.string(),
  counterpart_id: z.string().nullable(),
  team_id: z.string().nullable(),
  created_at: timestamp,
});

export const DashboardViewResource = defineResource(
  'DashboardView',
  'A saved dashboard.',
  {
    id: z.string(),
    name: z.string(),
    type: z.string().meta({ description: 'A key of the dashboard catalog' }),
    visibility: z.enum(['private', 'team', 'organization']),
    organization_id: z.string(),
    team_id: z.string().nullable(),
    owner_id: z.string(),
    created_at: timestamp,
  },
  { sort: ['created_at', 'name'] },
);

export const toInteraction = (i: Interaction) => ({
  id: i.id,
  type: i.type,
  source: i.source,
  user_id: i.user_id,
  counterpart_id: i.counterpart_id,
  team_id: i.team_id,
  created_at: iso(i.created_at),
});

export const toDashboardView = (v: DashboardView) => ({
  id: v.id,
  name: v.name,
  type: v.type,
  visibility: v.visibility,
  organization_id: v.organization_id,
  team_id: v.team_id,
  owner_id: v.owner_id,
  created_at: iso(v.created_at),
});

export const TaskResource = defineResource(
  'Task',
  'A work item of a team.',
  {
    id: z.string(),
    team_id: z.string(),
    title: z.string(),
    type: z.enum(TASK_TYPES),
    status: z.enum(TASK_STATUSES).meta({ description: 'Its category: a provider status such as "In Review" counts as active; canceled is never counted as completed' }),
    assignee_id: z.string().nullable(),
    parent_id: z.string().nullable().meta({ description: 'The epic this task belongs to, if any' }),
    story_points: z.number().int().nullable(),
    created_at: timestamp,
    completed_at: nullableTimestamp,
  },
  { sort: ['created_at', 'title'] },
);

export const DashboardCatalogResource = defineResource(
  'DashboardCatalogEntry',
  'A kind of dashboard that can be created.',
  { key: z.string(), name: z.string(), description: z.string(), category: z.string() },
  { sort: ['key', 'name'], defaultOrder: 'asc' },
);

/** A task as its team's list shows it (a task of an unmapped board is in no team's list). */
export const toTask = (t: Task, teamId: string) => ({
  id: t.id,
  team_id: teamId,
  title: t.title,
  type: t.type,
  status: t.status,
  assignee_id: t.assignee_id,
  parent_id: t.parent_id,
  story_points: t.story_points,
  created_at: iso(t.created_at),
  completed_at: isoOrNull(t.completed_at),
});

export const toCatalogEntry = (e: DashboardCatalogEntry) => ({
  key: e.key,
  name: e.name,
  description: e.description,
  category: e.category,
});
