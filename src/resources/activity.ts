import { z } from 'zod';
import type { DashboardView, Interaction } from '../../db/models';
import { timestamp } from '../wire/envelopes';
import { defineResource, iso } from './resource';

export const InteractionResource = defineResource('Interaction', 'One collaboration event of a user.', {
  id: z.string(),
  type: z.enum(['code_review', 'communication', 'task_assignment', 'meeting']),
  source: z.string().meta({ description: 'Where it was observed: github, slack, jira, calendar, ...' }),
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
