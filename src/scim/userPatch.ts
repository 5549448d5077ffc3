import type { MemberInput } from '../services/writes/members';
import { ScimError } from './errors';
import { USER_SCHEMA } from './userFilter';
import { booleanOf, ENTERPRISE_USER_SCHEMA, IGNORED_CORE, nameOf, roleOf, splitName, stringOf, userNameOf } from './userResource';
import { PatchOpName, patchOperations, pathsOf } from './patchOp';

export { PATCH_SCHEMA } from './patchOp';


/**
 * A User PATCH (RFC 7644 §3.5.2) applied to what the member is now, giving what it becomes. It takes the forms
 * identity providers really send, besides the RFC's: capitalised ops (`"Replace"`), booleans as strings
 * (`"False"`), operations without a path whose value object names attributes, dotted (`"name.givenName"`) or
 * schema-qualified. Attributes we do not keep (enterprise extension, phone numbers, …) are accepted and
 * ignored; `emails` follow `userName`, which is the e-mail.
 */
export function patchedUser(current: MemberInput, body: unknown): MemberInput {
  const next = { ...current };
  for (const operation of patchOperations(body)) {
    for (const [path, value] of pathsOf(operation)) apply(next, operation.op, path, value, operation.where);
  }
  return next;
}

/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, each maybe prefixed by a schema URN. */
const PATH = /^([A-Za-z][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z][\w$-]*))?$/;

/** Kept elsewhere or not at all: `emails` follow `userName`; the rest is not stored (userResource.ts). */
const IGNORED = new Set(['emails', ...IGNORED_CORE]);

function apply(next: MemberInput, op: PatchOpName, rawPath: string, value: unknown, operation: string): void {
  const where = `${operation} (${rawPath})`;
  const lower = rawPath.trim().toLowerCase();
  // The enterprise extension (and Entra ID's `…:enterprise:2.0:User:manager` paths): accepted, not kept.
  if (lower.startsWith(ENTERPRISE_USER_SCHEMA.toLowerCase())) return;
  const path = lower.startsWith(`${USER_SCHEMA.toLowerCase()}:`) ? rawPath.trim().slice(USER_SCHEMA.length + 1) : rawPath.trim();
  const match = PATH.exec(path);
  if (!match) throw new ScimError(400, 'invalidPath', `${where}: not an attribute path such as "active" or "name.givenName"`);
  const [, attribute, filter, sub] = match;
  const name = attribute.toLowerCase();
  const subName = sub?.toLowerCase();
  if (name === 'id' || name === 'meta' || name === 'groups') throw new ScimError(400, 'mutability', `${where}: '${attribute}' is read-only`);
  if (IGNORED.has(name)) return;
  if (filter && name !== 'roles') throw new ScimError(400, 'invalidPath', `${where}: '${attribute}' has no values to select with [...]`);
  switch (subName ? `${name}.${subName}` : name) {
    case 'username':
      if (op === 'remove') throw new ScimError(400, 'mutability', `${where}: userName is required and cannot be removed`);
      next.email = userNameOf(value);
      return;
    case 'displayname':
    case 'name.formatted':
      if (op !== 'remove') next.name = stringOf(value, attribute);
      return;
    case 'name.givenname':
    case 'name.familyname': {
      const parts = splitName(next.name);
      const part = op === 'remove' ? '' : stringOf(value, path, { allowEmpty: true });
      const [given, family] = subName === 'givenname' ? [part, parts.familyName] : [parts.givenName, part];
      next.name = [given, family].filter(Boolean).join(' ') || next.email;
      return;
    }
    case 'name':
      if (op === 'remove') return;
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ScimError(400, 'invalidValue', `${where}: "value" must be an object of name parts`);
      next.name = nameOf({ name: nameParts(value as Record<string, unknown>) }, next.name);
      return;
    case 'active':
      if (op === 'remove') throw new ScimError(400, 'mutability', `${where}: active cannot be removed; replace it with true or false`);
      next.active = booleanOf(value, 'active');
      return;
    case 'externalid':
      next.externalId = op === 'remove' || value === null ? null : stringOf(value, 'externalId', { max: 255 });
      return;
    case 'title':
      next.title = op === 'remove' || value === null || value === '' ? null : stringOf(value, 'title');
      return;
    case 'roles':
    case 'roles.value':
      next.role = op === 'remove' ? 'collaborator' : roleOf(subName ? [{ value, primary: true }] : value);
      return;
    default:
      throw new ScimError(400, 'invalidPath', `${where}: a User has no attribute '${path}'`);
  }
}

/** Name parts as `nameOf` reads them, whatever their case (`givenname`, `GivenName`). */
function nameParts(value: Record<string, unknown>): Record<string, unknown> {
  const canonical: Record<string, string> = { formatted: 'formatted', givenname: 'givenName', familyname: 'familyName' };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [canonical[k.toLowerCase()] ?? k, v]));
}
