import { createHash } from 'node:crypto';
import type { Team } from '../../db/models';
import type { MemberChange, TeamInput } from '../services/people/teams';
import type { GroupMember } from '../services/people/directory';
import { isRecord } from '../wire/record';
import { ScimError } from './errors';
import { GROUP_SCHEMA } from '../services/people/scimGroupFilter';
import { lowerKeys, patchOperations, pathsOf } from './patchOp';
import { stringOf } from './userResource';

/** A team as a SCIM Group (RFC 7643 §4.2): `displayName` is its name, `members` its members (users only). */
export interface ScimGroup {
  schemas: string[];
  id: string;
  externalId?: string;
  displayName: string;
  members?: { value: string; display: string; $ref: string }[];
  meta: { resourceType: 'Group'; created: string; lastModified: string; location: string; version: string };
}

export function scimGroupOf(team: Team, members: GroupMember[] | undefined, base: string): ScimGroup {
  const lastModified = team.updated_at ?? team.created_at;
  const version = createHash('sha256').update(`${team.name}|${team.external_id}|${lastModified.toISOString()}`).digest('base64url').slice(0, 16);
  return {
    schemas: [GROUP_SCHEMA],
    id: team.id,
    ...(team.external_id ? { externalId: team.external_id } : {}),
    displayName: team.name,
    ...(members ? { members: members.map((m) => ({ value: m.user_id, display: m.user_name, $ref: `${base}/Users/${m.user_id}` })) } : {}),
    meta: {
      resourceType: 'Group',
      created: team.created_at.toISOString(),
      lastModified: lastModified.toISOString(),
      location: `${base}/Groups/${team.id}`,
      version: `W/"${version}"`,
    },
  };
}

const KNOWN = new Set(['schemas', 'id', 'externalid', 'displayname', 'members', 'meta']);

/** The user ids a `members` value names: `[{"value": "usr_…"}]` (a `display` or `$ref` beside it is ignored). */
function memberIds(value: unknown, where: string): string[] {
  const entries = Array.isArray(value) ? value : [value];
  return entries.map((e, i) => {
    const id = isRecord(e) ? e.value ?? e.Value : undefined;
    if (typeof id !== 'string' || id.trim() === '') throw new ScimError(400, 'invalidValue', `${where}: member ${i + 1} needs a "value" (the user's id)`);
    return id.trim();
  });
}


/** A POST or PUT body: the team's name, external id and (all of) its members. */
export function groupInputOf(body: unknown): { input: TeamInput; members: string[] } {
  if (!isRecord(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object (a SCIM Group)');
  const b = lowerKeys(body);
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key.toLowerCase())) throw new ScimError(400, 'invalidSyntax', `Unknown attribute '${key}' for a Group; see GET /scim/v2/Schemas/${GROUP_SCHEMA}`);
  }
  if (!Array.isArray(b.schemas) || !b.schemas.some((s) => typeof s === 'string' && s.toLowerCase() === GROUP_SCHEMA.toLowerCase())) {
    throw new ScimError(400, 'invalidSyntax', `A Group body lists "${GROUP_SCHEMA}" in "schemas"`);
  }
  if (b.displayname === undefined) throw new ScimError(400, 'invalidValue', "'displayName' is required: the team's name");
  return {
    input: {
      name: stringOf(b.displayname, 'displayName'),
      externalId: b.externalid === undefined || b.externalid === null ? null : stringOf(b.externalid, 'externalId', { max: 255 }),
    },
    members: b.members === undefined || b.members === null ? [] : memberIds(b.members, 'members'),
  };
}

/**
 * A Group PATCH (RFC 7644 §3.5.2) as Okta and Entra ID send it: `add` members with a value array, `remove` by
 * value path (`members[value eq "…"]`, Okta) or with a value array (Entra ID), `replace` the name in a
 * path-less value that may repeat the id. Adds and removes stay adds and removes (applied to the members the
 * team has when the change runs); replacing or clearing all members makes the change a whole set.
 */
export function patchedGroup(current: TeamInput & { id: string }, body: unknown): { input: TeamInput; members?: MemberChange } {
  const input = { name: current.name, externalId: current.externalId };
  let set: Set<string> | undefined;
  const add = new Set<string>();
  const remove = new Set<string>();
  const addMembers = (ids: string[]) => ids.forEach((id) => (set ? set.add(id) : (add.add(id), remove.delete(id))));
  const removeMembers = (ids: string[]) => ids.forEach((id) => (set ? set.delete(id) : (remove.add(id), add.delete(id))));

  for (const operation of patchOperations(body)) {
    const { op, where } = operation;
    for (const [path, value] of pathsOf(operation)) {
      const byValue = /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i.exec(path);
      const name = path.toLowerCase().replace(`${GROUP_SCHEMA.toLowerCase()}:`, '');
      if (byValue) {
        if (op !== 'remove') throw new ScimError(400, 'invalidPath', `${where}: '${path}' selects a member to remove; add members with path "members"`);
        removeMembers([byValue[1]]);
      } else if (name === 'members') {
        if (op === 'add') addMembers(memberIds(value, where));
        else if (op === 'replace') set = new Set(memberIds(value, where));
        else if (value === undefined || value === null) set = new Set();
        else removeMembers(memberIds(value, where));
      } else if (name === 'displayname') {
        if (op === 'remove') throw new ScimError(400, 'mutability', `${where}: displayName is required and cannot be removed`);
        input.name = stringOf(value, 'displayName');
      } else if (name === 'externalid') {
        input.externalId = op === 'remove' || value === null ? null : stringOf(value, 'externalId', { max: 255 });
      } else if (name === 'id' || name === 'meta') {
        // Okta repeats the group's id in a rename; changing it (or meta) is refused.
        if (name === 'meta' || value !== current.id) throw new ScimError(400, 'mutability', `${where}: ${name} is read-only`);
      } else {
        throw new ScimError(400, 'invalidPath', `${where}: a Group has no attribute '${path}'`);
      }
    }
  }
  const members: MemberChange | undefined = set ? { set: [...set] } : add.size || remove.size ? { add: [...add], remove: [...remove] } : undefined;
  return { input, members };
}
