import { USER_SCHEMA } from '../services/people/scimUserFilter';
import { GROUP_SCHEMA } from '../services/people/scimGroupFilter';

/** RFC 7644 §4 and RFC 7643 §5–7: what this SCIM service supports, for identity providers that ask. */

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** Most resources one list page returns (`count` above it is lowered to it). */
export const MAX_RESULTS = 100;

export function serviceProviderConfig(base: string) {
  return {
    schemas: [CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: "The organization's SCIM token (npm run tokens -- create-scim), sent as 'Authorization: Bearer scim_…'",
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: "A member of the organization: the user (one per e-mail) and their role, title and state in it",
      schema: USER_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: "A team of the organization; its members are the organization's users",
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'dateTime' | 'reference';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned?: 'always' | 'default' | 'never' | 'request';
  uniqueness?: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  description: string;
  subAttributes?: Attribute[];
}

function attribute(a: Attribute): Record<string, unknown> {
  const { subAttributes, ...rest } = a;
  return {
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...rest,
    ...(subAttributes ? { subAttributes: subAttributes.map(attribute) } : {}),
  };
}

const USER_ATTRIBUTES: Attribute[] = [
  { name: 'userName', type: 'string', required: true, uniqueness: 'server', description: "The user's e-mail address; unique, compared case-insensitively" },
  {
    name: 'name',
    type: 'complex',
    description: 'The name; given and family names are its first word and the rest',
    subAttributes: [
      { name: 'formatted', type: 'string', description: 'The full name' },
      { name: 'givenName', type: 'string', description: 'First word of the name' },
      { name: 'familyName', type: 'string', description: 'The rest of the name' },
    ],
  },
  { name: 'displayName', type: 'string', description: 'The full name (same as name.formatted)' },
  { name: 'title', type: 'string', description: "The user's job title in this organization" },
  { name: 'active', type: 'boolean', description: 'false suspends the membership: no access, out of member lists; history stays' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description: 'The userName as the one work e-mail',
    subAttributes: [
      { name: 'value', type: 'string', description: 'The e-mail address' },
      { name: 'type', type: 'string', canonicalValues: ['work'], description: 'Always work' },
      { name: 'primary', type: 'boolean', description: 'Always true' },
    ],
  },
  {
    name: 'roles',
    type: 'complex',
    multiValued: true,
    description: 'The organization role: admin, manager or collaborator (the default)',
    subAttributes: [
      { name: 'value', type: 'string', canonicalValues: ['admin', 'manager', 'collaborator'], description: 'The role' },
      { name: 'primary', type: 'boolean', description: 'The role that applies' },
    ],
  },
];

const GROUP_ATTRIBUTES: Attribute[] = [
  { name: 'displayName', type: 'string', required: true, description: "The team's name" },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: "The team's members: users of the organization",
    subAttributes: [
      { name: 'value', type: 'string', caseExact: true, mutability: 'immutable', description: "The user's id" },
      { name: 'display', type: 'string', mutability: 'readOnly', description: "The user's name" },
      { name: '$ref', type: 'reference', mutability: 'immutable', description: 'The User resource' },
    ],
  },
];

export function schemas(base: string) {
  return [
    {
      schemas: [SCHEMA_SCHEMA],
      id: USER_SCHEMA,
      name: 'User',
      description: 'User Account',
      attributes: USER_ATTRIBUTES.map(attribute),
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
    },
    {
      schemas: [SCHEMA_SCHEMA],
      id: GROUP_SCHEMA,
      name: 'Group',
      description: 'Group',
      attributes: GROUP_ATTRIBUTES.map(attribute),
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` },
    },
  ];
}

export function listResponse(resources: unknown[], totalResults: number, startIndex: number) {
  return { schemas: [LIST_SCHEMA], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}
