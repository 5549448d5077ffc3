import { notFound } from '../errors';
import type { Directory } from '../services/people/directory';
import type { Member, MemberInput, MemberWriter } from '../services/people/members';
import { USER_SCHEMA } from '../services/people/scimUserFilter';
import type { ScimResource } from './resourceRouter';
import { patchedUser } from './userPatch';
import { scimUserOf, userInputOf } from './userResource';

/** What a member is now, as a writer's input: the base a PATCH applies to. */
function inputOf({ user, membership, emails }: Member): MemberInput {
  return {
    email: user.email,
    name: user.name,
    nameParts: { givenName: user.given_name, familyName: user.family_name, formatted: user.formatted_name },
    emails: emails.map((e) => ({ value: e.email, type: e.type, primary: Boolean(e.is_primary) })),
    role: membership.role,
    active: membership.status === 'active',
    externalId: membership.external_id ?? null,
    title: membership.title ?? null,
  };
}

/**
 * SCIM Users: the organization's members, suspended ones included (as `active: false`), listed in user-id order;
 * another organization's users are not found.
 */
export function scimUsers(members: MemberWriter, directory: Directory, base: string): ScimResource {
  const answer = (member: Member) => scimUserOf(member, `${base}/Users/${member.user.id}`);
  const existing = async (organizationId: string, id: string): Promise<Member> => {
    const member = await members.find(organizationId, id);
    if (!member) throw notFound(`No User ${id} in this organization`);
    return member;
  };
  return {
    path: 'Users',
    urn: USER_SCHEMA,
    async list(organizationId, filter, query) {
      const page = await directory.members(organizationId, filter, query.startIndex - 1, query.count);
      return { total: page.total, resources: page.items.map(answer) };
    },
    get: async (organizationId, id) => answer(await existing(organizationId, id)),
    async create(organizationId, body) {
      const member = await members.provision(organizationId, userInputOf(body));
      return { id: member.user.id, resource: answer(member) };
    },
    async replace(organizationId, id, body) {
      await existing(organizationId, id);
      return answer(await members.update(organizationId, id, userInputOf(body)));
    },
    async patch(organizationId, id, body) {
      const next = patchedUser(inputOf(await existing(organizationId, id)), body);
      return answer(await members.update(organizationId, id, next));
    },
    remove: (organizationId, id) => members.remove(organizationId, id),
  };
}
