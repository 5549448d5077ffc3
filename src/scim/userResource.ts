import { createHash } from 'node:crypto';
import { ORGANIZATION_ROLES, OrganizationRole } from '../../db/models';
import type { Member, MemberInput } from '../services/writes/members';
import { ScimError } from './errors';
import { USER_SCHEMA } from './userFilter';

export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/**
 * A SCIM User (RFC 7643 §4.1) as this service keeps it: `userName` is the e-mail, one name (given and family
 * names are its first word and the rest), the organization role as a core `roles` value, the membership's
 * state as `active`. What an identity provider may send and we do not keep is accepted and not stored.
 */
export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { formatted: string; givenName: string; familyName: string };
  displayName: string;
  title?: string;
  active: boolean;
  emails: { value: string; type: 'work'; primary: true }[];
  roles: { value: OrganizationRole; primary: true }[];
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
}

/** Core User attributes we do not keep: accepted from identity providers (Entra ID sends several), not stored. */
export const IGNORED_CORE = new Set([
  'nickname',
  'profileurl',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'phonenumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'x509certificates',
  'password',
]);
const READ_ONLY = new Set(['id', 'meta', 'groups']);
const SUPPORTED = new Set(['schemas', 'externalid', 'username', 'name', 'displayname', 'title', 'active', 'emails', 'roles']);

export function splitName(name: string): { givenName: string; familyName: string } {
  const trimmed = name.trim();
  const space = trimmed.indexOf(' ');
  return space < 0 ? { givenName: trimmed, familyName: '' } : { givenName: trimmed.slice(0, space), familyName: trimmed.slice(space + 1).trim() };
}

export function scimUserOf(member: Member, location: string): ScimUser {
  const { user, membership } = member;
  const lastModified = [membership.updated_at, user.updated_at, membership.created_at]
    .filter((d): d is Date => d instanceof Date)
    .reduce((a, b) => (b > a ? b : a));
  const version = createHash('sha256').update(`${user.email}|${user.name}|${membership.role}|${membership.status}|${membership.external_id}|${membership.title}|${lastModified.toISOString()}`).digest('base64url').slice(0, 16);
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(membership.external_id !== null && membership.external_id !== undefined ? { externalId: membership.external_id } : {}),
    userName: user.email,
    name: { formatted: user.name, ...splitName(user.name) },
    displayName: user.name,
    ...(membership.title ? { title: membership.title } : {}),
    active: membership.status === 'active',
    emails: [{ value: user.email, type: 'work', primary: true }],
    roles: [{ value: membership.role, primary: true }],
    meta: {
      resourceType: 'User',
      created: membership.created_at.toISOString(),
      lastModified: lastModified.toISOString(),
      location,
      version: `W/"${version}"`,
    },
  };
}

const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);

/** A JSON boolean, or the "True"/"False" strings Entra ID sends (DESIGN §11). */
export function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`'${attribute}' must be true or false, not ${JSON.stringify(value)}`);
}

export function stringOf(value: unknown, attribute: string, options: { max?: number; allowEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') throw invalidValue(`'${attribute}' must be a string, not ${JSON.stringify(value)}`);
  const trimmed = value.trim();
  if (!options.allowEmpty && trimmed === '') throw invalidValue(`'${attribute}' must not be empty`);
  if (trimmed.length > (options.max ?? 200)) throw invalidValue(`'${attribute}' is longer than ${options.max ?? 200} characters`);
  return trimmed;
}

/** The role a `roles` value gives: its primary entry (or its only one); none means collaborator (DESIGN §11). */
export function roleOf(value: unknown): OrganizationRole {
  if (value === null || value === undefined) return 'collaborator';
  const entries = Array.isArray(value) ? value : [value];
  if (entries.length === 0) return 'collaborator';
  const values = entries.map((e) => (typeof e === 'string' ? { value: e } : e)) as { value?: unknown; primary?: unknown }[];
  const chosen = values.find((e) => e && (e.primary === true || e.primary === 'True' || e.primary === 'true')) ?? values[0];
  const role = typeof chosen?.value === 'string' ? chosen.value.trim().toLowerCase() : undefined;
  if (!role || !(ORGANIZATION_ROLES as readonly string[]).includes(role)) {
    throw invalidValue(`'roles' values are one of ${ORGANIZATION_ROLES.join(', ')}, not ${JSON.stringify(chosen?.value ?? chosen)}`);
  }
  return role as OrganizationRole;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function userNameOf(value: unknown): string {
  const userName = stringOf(value, 'userName', { max: 254 });
  if (!EMAIL.test(userName)) throw invalidValue(`'userName' is the user's e-mail address, not '${userName}'`);
  return userName;
}

/** The name a body gives: `displayName`, else `name.formatted`, else given and family names; else the e-mail. */
export function nameOf(body: Record<string, unknown>, fallback: string): string {
  const name = (body.name ?? {}) as Record<string, unknown>;
  if (typeof name !== 'object' || Array.isArray(name)) throw invalidValue("'name' must be an object such as {\"givenName\": \"Ada\", \"familyName\": \"Lovelace\"}");
  if (body.displayName !== undefined && body.displayName !== null) return stringOf(body.displayName, 'displayName');
  if (name.formatted !== undefined && name.formatted !== null) return stringOf(name.formatted, 'name.formatted');
  const parts = [name.givenName, name.familyName]
    .filter((p) => p !== undefined && p !== null)
    .map((p, i) => stringOf(p, i === 0 ? 'name.givenName' : 'name.familyName', { allowEmpty: true }))
    .filter(Boolean);
  return parts.length ? parts.join(' ') : fallback;
}

/** Attribute names are case-insensitive (RFC 7643 §2.1): the names this module reads, by their lower case. */
const CANONICAL: Record<string, string> = Object.fromEntries(
  ['schemas', 'externalId', 'userName', 'name', 'displayName', 'title', 'active', 'emails', 'roles', 'formatted', 'givenName', 'familyName'].map((n) => [
    n.toLowerCase(),
    n,
  ]),
);

/** A copy of an object with the attribute names this module reads spelled canonically (`USERNAME` → `userName`). */
export function canonicalKeys(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) out[CANONICAL[key.toLowerCase()] ?? key] = value;
  return out;
}

/** Every top-level attribute must be one the schemas define; readOnly ones are ignored as RFC 7644 §3.5.1 says. */
function checkAttributes(body: Record<string, unknown>): void {
  for (const key of Object.keys(body)) {
    const k = key.toLowerCase();
    if (SUPPORTED.has(k) || IGNORED_CORE.has(k) || READ_ONLY.has(k) || k === ENTERPRISE_USER_SCHEMA.toLowerCase()) continue;
    throw new ScimError(400, 'invalidSyntax', `Unknown attribute '${key}' for a User; see GET /scim/v2/Schemas/${USER_SCHEMA}`);
  }
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === USER_SCHEMA.toLowerCase())) {
    throw new ScimError(400, 'invalidSyntax', `A User body lists "${USER_SCHEMA}" in "schemas"`);
  }
}

/**
 * What a POST or PUT body sets (RFC 7644 §3.3, §3.5.1): a replacement, so what it leaves out is cleared
 * (title, externalId), `active` defaults to true and `roles` to collaborator.
 */
export function userInputOf(body: unknown): MemberInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object (a SCIM User)');
  const b = canonicalKeys(body as Record<string, unknown>);
  if (b.name && typeof b.name === 'object' && !Array.isArray(b.name)) b.name = canonicalKeys(b.name as Record<string, unknown>);
  checkAttributes(b);
  if (b.userName === undefined) throw invalidValue("'userName' is required: the user's e-mail address");
  const email = userNameOf(b.userName);
  return {
    email,
    name: nameOf(b, email),
    role: roleOf(b.roles),
    active: b.active === undefined || b.active === null ? true : booleanOf(b.active, 'active'),
    externalId: b.externalId === undefined || b.externalId === null ? null : stringOf(b.externalId, 'externalId', { max: 255 }),
    title: b.title === undefined || b.title === null || b.title === '' ? null : stringOf(b.title, 'title'),
  };
}
