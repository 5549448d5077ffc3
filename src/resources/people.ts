import { z } from 'zod';
import type { Organization, OrganizationMembership, Team, TeamMembership, User } from '../../db/models';
import { timestamp } from '../wire/envelopes';
import { defineResource, iso } from './resource';

const id = (what: string) => z.string().meta({ description: `${what} id` });

export const UserResource = defineResource(
  'User',
  'A person on the platform.',
  { id: id('User'), name: z.string(), email: z.string(), created_at: timestamp },
  { sort: ['created_at', 'name', 'email'] },
);

export const OrganizationResource = defineResource(
  'Organization',
  'An organization (company account).',
  { id: id('Organization'), name: z.string(), created_at: timestamp },
  { sort: ['created_at', 'name'] },
);

export const OrganizationMemberResource = defineResource(
  'OrganizationMember',
  'A user with their role in the organization.',
  {
    id: id('User'),
    name: z.string(),
    email: z.string(),
    created_at: timestamp,
    role: z.enum(['admin', 'manager', 'collaborator']),
  },
  { sort: ['created_at', 'name', 'email'] },
);

export const TeamResource = defineResource(
  'Team',
  'A team inside an organization.',
  { id: id('Team'), organization_id: id('Organization'), name: z.string(), created_at: timestamp },
  { sort: ['created_at', 'name'] },
);

export const TeamMemberResource = defineResource(
  'TeamMember',
  'A user with their job title in the team.',
  { id: id('User'), name: z.string(), email: z.string(), created_at: timestamp, title: z.string() },
  { sort: ['created_at', 'name', 'email'] },
);

export const UserTeamResource = defineResource('UserTeam', "A user's membership of a team.", {
  user_id: id('User'),
  team_id: id('Team'),
  organization_id: id('Organization'),
  title: z.string(),
  role: z.enum(['member', 'manager']),
  created_at: timestamp.meta({ description: 'When the user joined the team' }),
});

export const toUser = (u: User) => ({ id: u.id, name: u.name, email: u.email, created_at: iso(u.created_at) });
export const toOrganization = (o: Organization) => ({ id: o.id, name: o.name, created_at: iso(o.created_at) });
export const toTeam = (t: Team) => ({ id: t.id, organization_id: t.organization_id, name: t.name, created_at: iso(t.created_at) });
/** A member as a user: from the user fields its membership row carries (see db/models/people.ts). */
const memberAsUser = (m: OrganizationMembership | TeamMembership) => ({
  id: m.user_id,
  name: m.user_name,
  email: m.user_email,
  created_at: iso(m.user_created_at),
});
export const toOrganizationMember = (m: OrganizationMembership) => ({ ...memberAsUser(m), role: m.role });
export const toTeamMember = (m: TeamMembership) => ({ ...memberAsUser(m), title: m.title });
export const toUserTeam = (m: TeamMembership, team: Team) => ({
  user_id: m.user_id,
  team_id: m.team_id,
  organization_id: team.organization_id,
  title: m.title,
  role: m.role,
  created_at: iso(m.created_at),
});

/**
 * A member's public fields as columns of its membership row: member lists page, sort and filter on one index
 * range of the membership table, without a join.
 */
export const memberColumns = {
  id: 'user_id',
  name: 'user_name',
  email: 'user_email',
  created_at: 'user_created_at',
} as const;
