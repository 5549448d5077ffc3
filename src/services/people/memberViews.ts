import { OrganizationMembership } from '../../../db/models';
import type { Member } from './members';
import { hasActiveScimToken } from './teams';

/** How many members the settings page shows of one organization; the total says how many more there are. */
export const MEMBERS_SHOWN = 200;

/** A member as an admin manages them on the settings page. */
function memberView(m: OrganizationMembership) {
  return { user_id: m.user_id, name: m.user_name, email: m.user_email, role: m.role, status: m.status, created_at: m.created_at.toISOString() };
}

export type MemberView = ReturnType<typeof memberView>;

export const describeMember = (member: Member): MemberView => memberView(member.membership);

/**
 * The organization's members by name (suspended ones too, said so), at most MEMBERS_SHOWN, and whether its identity
 * provider owns them (docs/settings.md#members), when the page offers no changes.
 */
export async function listMembers(organizationId: string) {
  const where = { organization_id: organizationId };
  const [total, rows, scimActive] = await Promise.all([
    OrganizationMembership.count({ where }),
    OrganizationMembership.findAll({ where, order: [['user_name', 'ASC'], ['user_id', 'ASC']], limit: MEMBERS_SHOWN }),
    hasActiveScimToken(organizationId),
  ]);
  return { total, members: rows.map(memberView), provisioned_by_identity_provider: scimActive };
}
