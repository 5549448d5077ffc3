import { Router, Request, Response } from 'express';
import { Op, WhereOptions } from 'sequelize';
import { Team, TeamMembership } from '../../db/models';
import type { TeamWriter } from '../services/people/teams';
import { ScimError } from './errors';
import { filterToWhere } from './filter';
import { listResponse } from './discovery';
import { GROUP_FILTER, GROUP_SCHEMA } from './groupFilter';
import { GroupMember, groupInputOf, patchedGroup, scimGroupOf } from './groupResource';
import { ListQuery, listQueryOf, project } from './query';
import { callerOf, sendScim } from './respond';

/** Whether the answer shows members: not when the client excluded them or asked only for other attributes. */
function wantsMembers(query: Pick<ListQuery, 'attributes' | 'excludedAttributes'>): boolean {
  const named = (list?: string[]) => list?.some((n) => n.toLowerCase().split(':').pop()!.split('.')[0] === 'members') ?? false;
  if (query.excludedAttributes) return !named(query.excludedAttributes);
  if (query.attributes) return named(query.attributes);
  return true;
}

/** Members of these teams, in user-id order, all states (the identity provider's view of its groups). */
async function membersOf(teamIds: string[]): Promise<Map<string, GroupMember[]>> {
  const rows = teamIds.length
    ? await TeamMembership.findAll({ where: { team_id: { [Op.in]: teamIds } }, attributes: ['team_id', 'user_id', 'user_name'], order: [['user_id', 'ASC']] })
    : [];
  const byTeam = new Map<string, GroupMember[]>(teamIds.map((id) => [id, []]));
  for (const r of rows) byTeam.get(r.team_id)!.push({ user_id: r.user_id, user_name: r.user_name });
  return byTeam;
}

/** `/scim/v2/Groups` of the token's organization: its teams (RFC 7644 §3, DESIGN §11). */
export function groupsRouter(teams: TeamWriter, base: string): Router {
  const router = Router();
  const organizationOf = (req: Request) => callerOf(req).organizationId;
  const found = async (req: Request): Promise<Team> => {
    const team = await Team.findOne({ where: { id: String(req.params.id), organization_id: organizationOf(req) } });
    if (!team) throw new ScimError(404, undefined, `No Group ${req.params.id} in this organization`);
    return team;
  };
  const answer = async (res: Response, status: number, team: Team, query: Pick<ListQuery, 'attributes' | 'excludedAttributes'> = {}) => {
    const members = wantsMembers(query) ? (await membersOf([team.id])).get(team.id) : undefined;
    sendScim(res, status, project(scimGroupOf(team, members, base) as unknown as Record<string, unknown>, query, GROUP_SCHEMA));
  };

  router.get('/', async (req: Request, res: Response) => {
    const query = listQueryOf(req.query as Record<string, unknown>);
    const conditions: WhereOptions[] = [{ organization_id: organizationOf(req) }];
    if (query.filter !== undefined) conditions.push(filterToWhere(query.filter, GROUP_FILTER));
    const where = { [Op.and]: conditions };
    const [total, page] = await Promise.all([
      Team.count({ where }),
      query.count === 0 ? Promise.resolve([]) : Team.findAll({ where, order: [['id', 'ASC']], offset: query.startIndex - 1, limit: query.count }),
    ]);
    const members = wantsMembers(query) ? await membersOf(page.map((t) => t.id)) : undefined;
    const resources = page.map((team) => project(scimGroupOf(team, members?.get(team.id), base) as unknown as Record<string, unknown>, query, GROUP_SCHEMA));
    sendScim(res, 200, listResponse(resources, total, query.startIndex));
  });

  router.get('/:id', async (req: Request, res: Response) => {
    const query = listQueryOf(req.query as Record<string, unknown>);
    if (query.filter !== undefined) throw new ScimError(400, 'invalidValue', "'filter' applies to /Groups, not to one Group");
    await answer(res, 200, await found(req), query);
  });

  router.post('/', async (req: Request, res: Response) => {
    const { input, members } = groupInputOf(req.body);
    const team = await teams.create(organizationOf(req), input, members);
    res.setHeader('Location', `${base}/Groups/${team.id}`);
    await answer(res, 201, team);
  });

  router.put('/:id', async (req: Request, res: Response) => {
    await found(req);
    const { input, members } = groupInputOf(req.body);
    await answer(res, 200, await teams.update(organizationOf(req), String(req.params.id), input, { set: members }));
  });

  router.patch('/:id', async (req: Request, res: Response) => {
    const team = await found(req);
    const { input, members } = patchedGroup({ id: team.id, name: team.name, externalId: team.external_id ?? null }, req.body);
    await answer(res, 200, await teams.update(organizationOf(req), team.id, input, members));
  });

  router.delete('/:id', async (req: Request, res: Response) => {
    await teams.delete(organizationOf(req), String(req.params.id));
    res.status(204).end();
  });

  router.all(['/', '/:id'], (req: Request) => {
    throw new ScimError(405, undefined, `${req.method} is not allowed here; /Groups takes GET and POST, /Groups/{id} GET, PUT, PATCH and DELETE`);
  });
  return router;
}
