import { Op, WhereOptions } from 'sequelize';
import type { Filter } from 'scim2-parse-filter';
import { MEMBERSHIP_STATUSES, OrganizationMembership, Team, TeamMembership, User } from '../../../db/models';
import type { Member } from './members';
import { emailsOf } from './profile';
import { filterToWhere } from './scimFilter';
import { USER_FILTER } from './scimUserFilter';
import { GROUP_FILTER } from './scimGroupFilter';

/** One page of a directory read: the whole count and the page's items. */
export interface DirectoryPage<T> {
  total: number;
  items: T[];
}

/** A team member as an identity provider's group lists them. */
export interface GroupMember {
  user_id: string;
  user_name: string;
}

/**
 * An organization's members and teams as its identity provider reads them (docs/scim.md): every state, in id order,
 * filtered by a parsed SCIM filter, paged by offset. Another organization's rows are never read.
 */
export class Directory {
  /** Members (suspended ones too) in user-id order. */
  async members(organizationId: string, filter: Filter | undefined, offset: number, limit: number): Promise<DirectoryPage<Member>> {
    // Every state, named: the member indexes are (organization, status, field, user), and without the status an
    // identity provider's `userName eq` lookup read all 80,000 of Acme's memberships instead of two index entries.
    const conditions: WhereOptions[] = [{ organization_id: organizationId, status: { [Op.in]: MEMBERSHIP_STATUSES } }];
    if (filter) conditions.push(filterToWhere(filter, USER_FILTER));
    const where = { [Op.and]: conditions };
    const [total, page] = await Promise.all([
      OrganizationMembership.count({ where }),
      limit === 0 ? Promise.resolve([]) : OrganizationMembership.findAll({ where, order: [['user_id', 'ASC']], offset, limit }),
    ]);
    if (page.length === 0) return { total, items: [] };
    const userIds = page.map((m) => m.user_id);
    const [users, emails] = await Promise.all([User.findAll({ where: { id: { [Op.in]: userIds } } }), emailsOf(userIds)]);
    const byId = new Map(users.map((u) => [u.id, u]));
    const items = page.flatMap((membership) => {
      const user = byId.get(membership.user_id);
      return user ? [{ user, membership, emails: emails.get(user.id) ?? [] }] : [];
    });
    return { total, items };
  }

  /** Teams in id order. */
  async teams(organizationId: string, filter: Filter | undefined, offset: number, limit: number): Promise<DirectoryPage<Team>> {
    const conditions: WhereOptions[] = [{ organization_id: organizationId }];
    if (filter) conditions.push(filterToWhere(filter, GROUP_FILTER));
    const where = { [Op.and]: conditions };
    const [total, items] = await Promise.all([
      Team.count({ where }),
      limit === 0 ? Promise.resolve([]) : Team.findAll({ where, order: [['id', 'ASC']], offset, limit }),
    ]);
    return { total, items };
  }

  async team(organizationId: string, teamId: string): Promise<Team | undefined> {
    return (await Team.findOne({ where: { id: teamId, organization_id: organizationId } })) ?? undefined;
  }

  /** Members of these teams, in user-id order, every state (the identity provider's view of its groups). */
  async teamMembers(teamIds: string[]): Promise<Map<string, GroupMember[]>> {
    const rows = teamIds.length
      ? await TeamMembership.findAll({ where: { team_id: { [Op.in]: teamIds } }, attributes: ['team_id', 'user_id', 'user_name'], order: [['user_id', 'ASC']] })
      : [];
    const byTeam = new Map<string, GroupMember[]>(teamIds.map((id) => [id, []]));
    for (const r of rows) byTeam.get(r.team_id)!.push({ user_id: r.user_id, user_name: r.user_name });
    return byTeam;
  }
}
