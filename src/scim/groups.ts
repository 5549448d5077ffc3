import type { Team } from '../../db/models';
import { notFound } from '../errors';
import type { Directory } from '../services/people/directory';
import { GROUP_SCHEMA } from '../services/people/scimGroupFilter';
import type { TeamWriter } from '../services/people/teams';
import type { ListQuery } from './query';
import type { ScimResource } from './resourceRouter';
import { groupInputOf, patchedGroup, scimGroupOf } from './groupResource';

type Selection = Pick<ListQuery, 'attributes' | 'excludedAttributes'>;

/** Whether the answer shows members: not when the client excluded them or asked only for other attributes. */
function wantsMembers(query: Selection): boolean {
  const named = (list?: string[]) => list?.some((n) => n.toLowerCase().split(':').pop()!.split('.')[0] === 'members') ?? false;
  if (query.excludedAttributes) return !named(query.excludedAttributes);
  if (query.attributes) return named(query.attributes);
  return true;
}

/** SCIM Groups: the organization's teams (RFC 7644 §3, docs/scim.md), in id order. */
export function scimGroups(teams: TeamWriter, directory: Directory, base: string): ScimResource {
  const found = async (organizationId: string, id: string): Promise<Team> => {
    const team = await directory.team(organizationId, id);
    if (!team) throw notFound(`No Group ${id} in this organization`);
    return team;
  };
  const answer = async (team: Team, query: Selection = {}) => {
    const members = wantsMembers(query) ? (await directory.teamMembers([team.id])).get(team.id) : undefined;
    return scimGroupOf(team, members, base);
  };
  return {
    path: 'Groups',
    urn: GROUP_SCHEMA,
    async list(organizationId, filter, query) {
      const page = await directory.teams(organizationId, filter, query.startIndex - 1, query.count);
      const members = wantsMembers(query) ? await directory.teamMembers(page.items.map((t) => t.id)) : undefined;
      return { total: page.total, resources: page.items.map((team) => scimGroupOf(team, members?.get(team.id), base)) };
    },
    get: async (organizationId, id, query) => answer(await found(organizationId, id), query),
    async create(organizationId, body) {
      const { input, members } = groupInputOf(body);
      const team = await teams.create(organizationId, input, members);
      return { id: team.id, resource: await answer(team) };
    },
    async replace(organizationId, id, body) {
      await found(organizationId, id);
      const { input, members } = groupInputOf(body);
      return answer(await teams.update(organizationId, id, input, { set: members }));
    },
    async patch(organizationId, id, body) {
      const team = await found(organizationId, id);
      const { input, members } = patchedGroup({ id: team.id, name: team.name, externalId: team.external_id ?? null }, body);
      return answer(await teams.update(organizationId, team.id, input, members));
    },
    async remove(organizationId, id) {
      await teams.delete(organizationId, id);
    },
  };
}
