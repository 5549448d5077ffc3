import { createHash } from 'node:crypto';
import { EmailAddress, isOrganizationRole, Member, MemberInput, NameParts, ORGANIZATION_ROLES, OrganizationRole } from '../services/people/members';
import { splitName } from '../services/people/profile';
import { isRecord } from '../wire/record';
import { ScimError } from './errors';
import { lowerKeys } from './patchOp';
import { USER_SCHEMA } from '../services/people/scimUserFilter';

export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/**
 * A SCIM User (RFC 7643 §4.1) as this service keeps it: `userName` is the e-mail, the name parts, `displayName`
 * and `emails` as the identity provider sent them (a user no identity provider named has its name split at the
 * first space and its e-mail as the one work address), the organization role as a core `roles` value, the
 * membership's state as `active`. What an identity provider may send and we do not keep is accepted, not stored.
 */
export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name: { formatted?: string; givenName?: string; familyName?: string };
  displayName: string;
  title?: string;
  active: boolean;
  emails: { value: string; type?: string; primary: boolean }[];
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

/** The name parts as stored: as sent, or (for rows no writer has named) derived from the name. */
function namePartsOf(member: Member): ScimUser['name'] {
  const { user } = member;
  if (user.given_name === null && user.family_name === null && user.formatted_name === null) {
    return { formatted: user.name, ...splitName(user.name) };
  }
  return {
    ...(user.formatted_name !== null ? { formatted: user.formatted_name } : {}),
    ...(user.given_name !== null ? { givenName: user.given_name } : {}),
    ...(user.family_name !== null ? { familyName: user.family_name } : {}),
  };
}

function emailsOf(member: Member): ScimUser['emails'] {
  if (member.emails.length === 0) return [{ value: member.user.email, type: 'work', primary: true }];
  return member.emails.map((e) => ({ value: e.email, ...(e.type !== null ? { type: e.type } : {}), primary: Boolean(e.is_primary) }));
}

export function scimUserOf(member: Member, location: string): ScimUser {
  const { user, membership } = member;
  const lastModified = [membership.updated_at, user.updated_at, membership.created_at]
    .filter((d): d is Date => d instanceof Date)
    .reduce((a, b) => (b > a ? b : a));
  const name = namePartsOf(member);
  const emails = emailsOf(member);
  const version = createHash('sha256')
    .update(JSON.stringify([user.email, user.name, name, emails, membership.role, membership.status, membership.external_id, membership.title, lastModified.toISOString()]))
    .digest('base64url')
    .slice(0, 16);
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(membership.external_id !== null && membership.external_id !== undefined ? { externalId: membership.external_id } : {}),
    userName: user.email,
    name,
    displayName: user.name,
    ...(membership.title ? { title: membership.title } : {}),
    active: membership.status === 'active',
    emails,
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

/** A JSON boolean, or the "True"/"False" strings Entra ID sends (docs/scim.md). */
export function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`'${attribute}' must be true or false, not ${JSON.stringify(value)}`);
}

// A name, title or id has no use for control characters; a NUL would also end an SQLite statement early.
const CONTROL = /[\u0000-\u001f\u007f]/;

export function stringOf(value: unknown, attribute: string, options: { max?: number; allowEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') throw invalidValue(`'${attribute}' must be a string, not ${JSON.stringify(value)}`);
  if (CONTROL.test(value)) throw invalidValue(`'${attribute}' must not contain control characters (such as NUL, tab or line feed)`);
  const trimmed = value.trim();
  if (!options.allowEmpty && trimmed === '') throw invalidValue(`'${attribute}' must not be empty`);
  if (trimmed.length > (options.max ?? 200)) throw invalidValue(`'${attribute}' is longer than ${options.max ?? 200} characters`);
  return trimmed;
}

/** The role a `roles` value gives: its primary entry (or its only one); none means collaborator (docs/scim.md). */
export function roleOf(value: unknown): OrganizationRole {
  if (value === null || value === undefined) return 'collaborator';
  const entries = Array.isArray(value) ? value : [value];
  if (entries.length === 0) return 'collaborator';
  // An entry is a role's name or {"value": name, "primary": true}.
  const chosen: unknown = entries.find((e) => isRecord(e) && (e.primary === true || e.primary === 'True' || e.primary === 'true')) ?? entries[0];
  const named = typeof chosen === 'string' ? chosen : isRecord(chosen) ? chosen.value : undefined;
  const role = typeof named === 'string' ? named.trim().toLowerCase() : undefined;
  if (!role || !isOrganizationRole(role)) {
    throw invalidValue(`'roles' values are one of ${ORGANIZATION_ROLES.join(', ')}, not ${JSON.stringify(named ?? chosen)}`);
  }
  return role;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function userNameOf(value: unknown): string {
  const userName = stringOf(value, 'userName', { max: 254 });
  if (!EMAIL.test(userName)) throw invalidValue(`'userName' is the user's e-mail address, not '${userName}'`);
  return userName;
}

/** The name that name parts give: `formatted`, else given and family names; else the fallback (the e-mail). */
export function nameFromParts(parts: NameParts, fallback: string): string {
  if (parts.formatted) return parts.formatted;
  const joined = [parts.givenName, parts.familyName].filter(Boolean).join(' ');
  return joined || fallback;
}

/** The name a body gives: `displayName`, else `name.formatted`, else given and family names; else the e-mail. */
export function nameOf(body: Record<string, unknown>, fallback: string): string {
  const parts = namePartsIn(body);
  if (body.displayName !== undefined && body.displayName !== null) return stringOf(body.displayName, 'displayName');
  return nameFromParts(parts, fallback);
}

/** The name parts a `name` object sends, as sent; those it leaves out are null. */
export function namePartsIn(body: Record<string, unknown>): NameParts {
  const name = body.name;
  if (name === undefined || name === null) return { givenName: null, familyName: null, formatted: null };
  if (!isRecord(name)) throw invalidValue("'name' must be an object such as {\"givenName\": \"Ada\", \"familyName\": \"Lovelace\"}");
  const parts = canonicalKeys(name);
  const part = (key: 'givenName' | 'familyName' | 'formatted') =>
    parts[key] === undefined || parts[key] === null ? null : stringOf(parts[key], `name.${key}`, { allowEmpty: true });
  return { givenName: part('givenName'), familyName: part('familyName'), formatted: part('formatted') };
}

/** One `emails` value: `{"value": "…", "type": "work", "primary": true}`. */
export function emailOf(entry: unknown, where: string): EmailAddress {
  if (!isRecord(entry)) throw invalidValue(`${where} must be an object such as {"value": "ada@example.com", "type": "work"}`);
  const e = lowerKeys(entry);
  const value = stringOf(e.value, `${where}.value`, { max: 254 });
  if (!EMAIL.test(value)) throw invalidValue(`${where}.value must be an e-mail address, not '${value}'`);
  const type = e.type === undefined || e.type === null || e.type === '' ? null : stringOf(e.type, `${where}.type`, { max: 40 });
  const primary = e.primary === undefined || e.primary === null ? false : booleanOf(e.primary, `${where}.primary`);
  return { value, type, primary };
}

/** An `emails` attribute: an array of addresses (a single object is read as one); null or absent is none. */
export function emailsIn(value: unknown): EmailAddress[] {
  if (value === undefined || value === null) return [];
  const entries = Array.isArray(value) ? value : [value];
  return entries.map((e, i) => emailOf(e, `emails[${i}]`));
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
  if (!isRecord(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object (a SCIM User)');
  const b = canonicalKeys(body);
  if (isRecord(b.name)) b.name = canonicalKeys(b.name);
  checkAttributes(b);
  if (b.userName === undefined) throw invalidValue("'userName' is required: the user's e-mail address");
  const email = userNameOf(b.userName);
  return {
    email,
    name: nameOf(b, email),
    nameParts: namePartsIn(b),
    emails: emailsIn(b.emails),
    role: roleOf(b.roles),
    active: b.active === undefined || b.active === null ? true : booleanOf(b.active, 'active'),
    externalId: b.externalId === undefined || b.externalId === null ? null : stringOf(b.externalId, 'externalId', { max: 255 }),
    title: b.title === undefined || b.title === null || b.title === '' ? null : stringOf(b.title, 'title'),
  };
}
