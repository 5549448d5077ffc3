import { literal, Op } from 'sequelize';
import { Team, TeamMembership } from '../../../db/models';
import type { FilterSchema } from './scimFilter';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

// Our user ids are lower-case letters, digits and underscores; anything else is nobody's id.
const USER_ID = /^[a-z0-9_]{1,40}$/;

/** Teams with this member (any member, for `members pr`), as a condition on the team id. */
function withMember(userId: string | null) {
  if (userId !== null && !USER_ID.test(userId)) return { [Op.and]: [literal('1 = 0')] };
  const escaped = userId === null ? '' : ` WHERE tm.user_id = ${TeamMembership.sequelize!.escape(userId)}`;
  return { id: { [Op.in]: literal(`(SELECT tm.team_id FROM team_memberships tm${escaped})`) } };
}

/** What a Groups filter can name, as columns of `teams` (Entra ID asks `members[value eq "…"]` of one group). */
export const GROUP_FILTER: FilterSchema = {
  urn: GROUP_SCHEMA,
  complex: ['members'],
  sequelize: () => Team.sequelize!,
  attributes: {
    id: { column: 'id', type: 'reference', caseExact: true },
    displayname: { column: 'name', type: 'string', caseExact: false },
    externalid: { column: 'external_id', type: 'string', caseExact: true },
    members: { column: 'id', type: 'reference', caseExact: true, condition: withMember },
    'members.value': { column: 'id', type: 'reference', caseExact: true, condition: withMember },
    'meta.created': { column: 'created_at', type: 'dateTime', caseExact: false },
    'meta.lastmodified': { column: 'updated_at', type: 'dateTime', caseExact: false, fallbackColumn: 'created_at' },
    'meta.resourcetype': { column: 'id', type: 'string', caseExact: false, constant: 'Group' },
  },
};
