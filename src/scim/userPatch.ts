import { filter as matcher, Filter } from 'scim2-parse-filter';
import type { EmailAddress, MemberInput, NameParts } from '../services/people/members';
import { namePartColumns } from '../services/people/profile';
import { isRecord } from '../wire/record';
import { ScimError } from './errors';
import { parseFilter } from './filter';
import { USER_SCHEMA } from '../services/people/scimUserFilter';
import { booleanOf, emailOf, emailsIn, ENTERPRISE_USER_SCHEMA, IGNORED_CORE, nameFromParts, roleOf, stringOf, userNameOf } from './userResource';
import { PatchOpName, patchOperations, pathsOf } from './patchOp';

export { PATCH_SCHEMA } from './patchOp';

/** What a PATCH works on: the member as a writer's input, with every part present. */
type PatchTarget = MemberInput & { nameParts: NameParts; emails: EmailAddress[] };

/**
 * A User PATCH (RFC 7644 §3.5.2) applied to what the member is now, giving what it becomes. It takes the forms
 * identity providers really send, besides the RFC's: capitalised ops (`"Replace"`), booleans as strings
 * (`"False"`), operations without a path whose value object names attributes, dotted (`"name.givenName"`) or
 * schema-qualified, and Entra ID's `emails[type eq "work"].value`. Attributes we do not keep (enterprise
 * extension, phone numbers, …) are accepted and ignored.
 */
export function patchedUser(member: MemberInput, body: unknown): MemberInput {
  const current: PatchTarget = { ...member, nameParts: member.nameParts ?? derivedParts(member.name), emails: member.emails ?? [] };
  const next: PatchTarget = { ...current, nameParts: { ...current.nameParts }, emails: current.emails.map((e) => ({ ...e })) };
  const state: PatchState = { next, displayName: undefined, formattedSet: false };
  for (const operation of patchOperations(body)) {
    for (const [path, value] of pathsOf(operation)) apply(state, operation.op, path, value, operation.where);
  }
  // What followed the given and family names (a formatted name that was their join; a name that was not sent as
  // displayName) follows them still.
  const joined = (parts: NameParts) => [parts.givenName, parts.familyName].filter(Boolean).join(' ');
  if (!state.formattedSet && current.nameParts.formatted === joined(current.nameParts)) next.nameParts.formatted = joined(next.nameParts) || null;
  if (state.displayName !== undefined) next.name = state.displayName;
  else if (current.name === nameFromParts(current.nameParts, current.email)) next.name = nameFromParts(next.nameParts, next.email);
  return next;
}

function derivedParts(name: string): NameParts {
  const columns = namePartColumns(name, undefined);
  return { givenName: columns.given_name, familyName: columns.family_name, formatted: columns.formatted_name };
}

/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, each maybe prefixed by a schema URN. */
const PATH = /^([A-Za-z][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z][\w$-]*))?$/;

interface PatchState {
  next: PatchTarget;
  displayName: string | undefined;
  formattedSet: boolean;
}

function apply(state: PatchState, op: PatchOpName, rawPath: string, value: unknown, operation: string): void {
  const { next } = state;
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
  if (IGNORED_CORE.has(name)) return;
  if (name === 'emails') return applyEmails(next, op, filter, subName, value, where);
  if (filter && name !== 'roles') throw new ScimError(400, 'invalidPath', `${where}: '${attribute}' has no values to select with [...]`);
  switch (subName ? `${name}.${subName}` : name) {
    case 'username':
      if (op === 'remove') throw new ScimError(400, 'mutability', `${where}: userName is required and cannot be removed`);
      next.email = userNameOf(value);
      return;
    case 'displayname':
      if (op !== 'remove') state.displayName = stringOf(value, attribute);
      return;
    case 'name.formatted':
    case 'name.givenname':
    case 'name.familyname': {
      const key = subName === 'givenname' ? 'givenName' : subName === 'familyname' ? 'familyName' : 'formatted';
      next.nameParts[key] = op === 'remove' || value === null ? null : stringOf(value, path, { allowEmpty: true });
      if (key === 'formatted') state.formattedSet = true;
      return;
    }
    case 'name':
      if (op === 'remove') {
        next.nameParts = { givenName: null, familyName: null, formatted: null };
        return;
      }
      if (!isRecord(value)) throw new ScimError(400, 'invalidValue', `${where}: "value" must be an object of name parts`);
      for (const [part, partValue] of Object.entries(value)) apply(state, op, `name.${part}`, partValue, operation);
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

const EMAIL_SUBS = new Set(['value', 'type', 'primary']);

/**
 * `emails`, `emails[filter]`, `emails[filter].sub` and `emails.sub`. A user with no stored addresses has one,
 * its userName as a primary work address, so Entra ID's `Replace emails[type eq "work"].value` replaces that; a
 * filter no address matches gets a new address, with the attributes the filter names (Entra ID adds this way).
 */
function applyEmails(next: PatchTarget, op: PatchOpName, filterText: string | undefined, sub: string | undefined, value: unknown, where: string): void {
  if (sub !== undefined && !EMAIL_SUBS.has(sub)) throw new ScimError(400, 'invalidPath', `${where}: an e-mail has value, type and primary`);
  if (next.emails.length === 0) next.emails = [{ value: next.email, type: 'work', primary: true }];
  const selects = filterText === undefined ? () => true : selector(filterText, where);
  const selected = next.emails.filter(selects);

  if (sub === undefined) {
    if (filterText === undefined) {
      if (op === 'add') next.emails.push(...emailsIn(value));
      else if (op === 'replace') next.emails = emailsIn(value);
      else if (value === undefined || value === null) next.emails = [];
      else {
        const gone = new Set(emailsIn(value).map((e) => e.value.toLowerCase()));
        next.emails = next.emails.filter((e) => !gone.has(e.value.toLowerCase()));
      }
    } else if (op === 'remove') {
      next.emails = next.emails.filter((e) => !selected.includes(e));
    } else {
      if (!isRecord(value)) throw new ScimError(400, 'invalidValue', `${where}: "value" must be an e-mail object`);
      if (selected.length === 0) next.emails.push(emailOf({ ...impliedBy(filterText), ...value }, where));
      for (const e of selected) Object.assign(e, emailOf({ ...e, ...value }, where));
    }
  } else if (op === 'remove') {
    if (sub === 'value') next.emails = next.emails.filter((e) => !selected.includes(e));
    else for (const e of selected) sub === 'type' ? (e.type = null) : (e.primary = false);
  } else {
    // Without a filter, `emails.value` means the primary address (or the only one).
    let targets = filterText === undefined ? [selected.find((e) => e.primary) ?? selected[0]].filter(Boolean) : selected;
    if (targets.length === 0) targets = [pushed(next, filterText === undefined ? {} : impliedBy(filterText), where)];
    for (const e of targets) Object.assign(e, emailOf({ ...e, [sub]: value }, where));
  }
  if (next.emails.filter((e) => e.primary).length > 1) {
    throw new ScimError(400, 'invalidValue', `${where}: at most one e-mail address may be primary`);
  }
}

/** A new address for a filter nothing matched, with a placeholder value the operation then sets. */
function pushed(next: PatchTarget, implied: Record<string, unknown>, where: string): EmailAddress {
  const entry = emailOf({ value: next.email, ...implied }, where);
  next.emails.push(entry);
  return entry;
}

/** The attributes an `eq` filter names (`type eq "work" and primary eq true`), to give an address it adds. */
function impliedBy(filterText: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (f: Filter) => {
    if (f.op === 'and') f.filters.forEach(walk);
    else if (f.op === 'eq' && EMAIL_SUBS.has(f.attrPath.toLowerCase())) out[f.attrPath.toLowerCase()] = f.compValue;
  };
  walk(parseFilter(filterText));
  return out;
}

/** Whether an address matches a value filter (`type eq "work"`); names and strings compare case-insensitively. */
function selector(filterText: string, where: string): (e: EmailAddress) => boolean {
  const parsed = parseFilter(filterText);
  const names = new Set<string>();
  const lowered = (f: Filter): Filter => {
    switch (f.op) {
      case 'and':
      case 'or':
        return { ...f, filters: f.filters.map(lowered) };
      case 'not':
        return { ...f, filter: lowered(f.filter) };
      case '[]':
        throw new ScimError(400, 'invalidPath', `${where}: an e-mail has no sub-attributes to filter with [...]`);
      default:
        names.add(f.attrPath.toLowerCase());
        return f.op === 'pr' || typeof f.compValue !== 'string' ? f : { ...f, compValue: f.compValue.toLowerCase() };
    }
  };
  const test = matcher(lowered(parsed));
  const unknown = [...names].filter((n) => !EMAIL_SUBS.has(n));
  if (unknown.length) throw new ScimError(400, 'invalidPath', `${where}: an e-mail has value, type and primary, not ${unknown.join(', ')}`);
  return (e) => test({ value: e.value.toLowerCase(), ...(e.type !== null ? { type: e.type.toLowerCase() } : {}), primary: e.primary });
}
