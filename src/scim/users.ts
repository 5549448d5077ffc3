import { Router, Request, Response } from 'express';
import { Op, WhereOptions } from 'sequelize';
import { MEMBERSHIP_STATUSES, OrganizationMembership, User } from '../../db/models';
import type { Member, MemberInput, MemberWriter } from '../services/people/members';
import { ScimError } from './errors';
import { filterToWhere } from './filter';
import { listResponse } from './discovery';
import { listQueryOf, project } from './query';
import { USER_FILTER, USER_SCHEMA } from './userFilter';
import { patchedUser } from './userPatch';
import { scimUserOf, userInputOf } from './userResource';
import { callerOf, sendScim } from './respond';
import { emailsOf } from '../services/people/profile';

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
 * `/scim/v2/Users` of the token's organization (RFC 7644 §3): its members, suspended ones included (as
 * `active: false`), listed in user-id order; another organization's users are not found.
 */
export function usersRouter(members: MemberWriter, base: string): Router {
  const router = Router();
  const location = (id: string) => `${base}/Users/${id}`;
  const resource = (member: Member) => scimUserOf(member, location(member.user.id)) as unknown as Record<string, unknown>;
  const existing = async (req: Request): Promise<Member> => {
    const member = await members.find(callerOf(req).organizationId, String(req.params.id));
    if (!member) throw new ScimError(404, undefined, `No User ${req.params.id} in this organization`);
    return member;
  };

  router.get('/', async (req: Request, res: Response) => {
    const query = listQueryOf(req.query as Record<string, unknown>);
    // Every state, named: the member indexes are (organization, status, field, user), and without the status an
    // identity provider's `userName eq` lookup read all 80,000 of Acme's memberships instead of two index entries.
    const conditions: WhereOptions[] = [{ organization_id: callerOf(req).organizationId, status: { [Op.in]: MEMBERSHIP_STATUSES } }];
    if (query.filter !== undefined) conditions.push(filterToWhere(query.filter, USER_FILTER));
    const where = { [Op.and]: conditions };
    const [total, page] = await Promise.all([
      OrganizationMembership.count({ where }),
      query.count === 0
        ? Promise.resolve([])
        : OrganizationMembership.findAll({ where, order: [['user_id', 'ASC']], offset: query.startIndex - 1, limit: query.count }),
    ]);
    const userIds = page.map((m) => m.user_id);
    const [users, emails] = page.length ? await Promise.all([User.findAll({ where: { id: { [Op.in]: userIds } } }), emailsOf(userIds)]) : [[], new Map()];
    const byId = new Map(users.map((u) => [u.id, u]));
    const resources = page.flatMap((membership) => {
      const user = byId.get(membership.user_id);
      return user ? [project(resource({ user, membership, emails: emails.get(user.id) ?? [] }), query, USER_SCHEMA)] : [];
    });
    sendScim(res, 200, listResponse(resources, total, query.startIndex));
  });

  router.get('/:id', async (req: Request, res: Response) => {
    const query = listQueryOf(req.query as Record<string, unknown>);
    if (query.filter !== undefined) throw new ScimError(400, 'invalidValue', "'filter' applies to /Users, not to one User");
    sendScim(res, 200, project(resource(await existing(req)), query, USER_SCHEMA));
  });

  router.post('/', async (req: Request, res: Response) => {
    const member = await members.provision(callerOf(req).organizationId, userInputOf(req.body));
    res.setHeader('Location', location(member.user.id));
    sendScim(res, 201, resource(member));
  });

  router.put('/:id', async (req: Request, res: Response) => {
    await existing(req);
    const member = await members.update(callerOf(req).organizationId, String(req.params.id), userInputOf(req.body));
    sendScim(res, 200, resource(member));
  });

  router.patch('/:id', async (req: Request, res: Response) => {
    const next = patchedUser(inputOf(await existing(req)), req.body);
    const member = await members.update(callerOf(req).organizationId, String(req.params.id), next);
    sendScim(res, 200, resource(member));
  });

  router.delete('/:id', async (req: Request, res: Response) => {
    await members.remove(callerOf(req).organizationId, String(req.params.id));
    res.status(204).end();
  });

  router.all(['/', '/:id'], (req: Request) => {
    throw new ScimError(405, undefined, `${req.method} is not allowed here; /Users takes GET and POST, /Users/{id} GET, PUT, PATCH and DELETE`);
  });
  return router;
}
