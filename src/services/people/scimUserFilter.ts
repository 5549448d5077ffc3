import { OrganizationMembership } from '../../../db/models';
import type { FilterSchema, RelatedTable } from './scimFilter';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

// Correlated with the listed membership row, which Sequelize names by the model (`organization_membership`).
const USER_ROW: RelatedTable = { table: 'users', alias: 'u', correlation: 'u.id = organization_membership.user_id' };
const USER_EMAILS: RelatedTable = { table: 'user_emails', alias: 'ue', correlation: 'ue.user_id = organization_membership.user_id' };

/**
 * What a Users filter can name: the organization's membership rows (which carry the user's name and e-mail,
 * db/models/people.ts), so one organization's users filter and page on one table; the name parts and the
 * e-mails are read from the member's own rows of `users` and `user_emails` (a primary-key or user-id probe each).
 */
export const USER_FILTER: FilterSchema = {
  urn: USER_SCHEMA,
  complex: ['roles'],
  sequelize: () => OrganizationMembership.sequelize!,
  attributes: {
    id: { column: 'user_id', type: 'reference', caseExact: true },
    username: { column: 'user_email', type: 'string', caseExact: false, storedLowerCase: true },
    displayname: { column: 'user_name', type: 'string', caseExact: false },
    externalid: { column: 'external_id', type: 'string', caseExact: true },
    title: { column: 'title', type: 'string', caseExact: false },
    active: { column: 'status', type: 'boolean', caseExact: false, stored: { true: 'active', false: 'suspended' } },
    'roles.value': { column: 'role', type: 'string', caseExact: false },
    'roles.primary': { column: 'role', type: 'boolean', caseExact: false, constant: true },
    'meta.created': { column: 'created_at', type: 'dateTime', caseExact: false },
    'meta.lastmodified': { column: 'updated_at', type: 'dateTime', caseExact: false, fallbackColumn: 'created_at' },
    'meta.resourcetype': { column: 'user_id', type: 'string', caseExact: false, constant: 'User' },
  },
  related: {
    name: {
      related: USER_ROW,
      attributes: {
        givenname: { column: 'u.given_name', type: 'string', caseExact: false },
        familyname: { column: 'u.family_name', type: 'string', caseExact: false },
        formatted: { column: 'u.formatted_name', type: 'string', caseExact: false },
      },
    },
    emails: {
      related: USER_EMAILS,
      attributes: {
        value: { column: 'ue.email', type: 'string', caseExact: false, storedLowerCase: true },
        type: { column: 'ue.type', type: 'string', caseExact: false },
        primary: { column: 'ue.is_primary', type: 'boolean', caseExact: false },
      },
      implicit: {
        value: { column: 'user_email', type: 'string', caseExact: false, storedLowerCase: true },
        type: { column: 'user_email', type: 'string', caseExact: false, constant: 'work' },
        primary: { column: 'user_email', type: 'boolean', caseExact: false, constant: true },
      },
    },
  },
};
