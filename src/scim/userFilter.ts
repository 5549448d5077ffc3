import type { FilterSchema } from './filter';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

/**
 * What a Users filter can name, as columns of the organization's membership rows (which carry the user's name
 * and e-mail, db/models/people.ts): one organization's users filter and page on one table.
 */
export const USER_FILTER: FilterSchema = {
  urn: USER_SCHEMA,
  complex: ['emails', 'roles'],
  attributes: {
    id: { column: 'user_id', type: 'reference', caseExact: true },
    username: { column: 'user_email', type: 'string', caseExact: false, storedLowerCase: true },
    'emails.value': { column: 'user_email', type: 'string', caseExact: false, storedLowerCase: true },
    'emails.type': { column: 'user_email', type: 'string', caseExact: false, constant: 'work' },
    'emails.primary': { column: 'user_email', type: 'boolean', caseExact: false, constant: true },
    displayname: { column: 'user_name', type: 'string', caseExact: false },
    'name.formatted': { column: 'user_name', type: 'string', caseExact: false },
    externalid: { column: 'external_id', type: 'string', caseExact: true },
    title: { column: 'title', type: 'string', caseExact: false },
    active: { column: 'status', type: 'boolean', caseExact: false, stored: { true: 'active', false: 'suspended' } },
    'roles.value': { column: 'role', type: 'string', caseExact: false },
    'roles.primary': { column: 'role', type: 'boolean', caseExact: false, constant: true },
    'meta.created': { column: 'created_at', type: 'dateTime', caseExact: false },
    'meta.lastmodified': { column: 'updated_at', type: 'dateTime', caseExact: false, fallbackColumn: 'created_at' },
  },
};
