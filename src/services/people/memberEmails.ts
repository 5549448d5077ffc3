import { Op, Transaction } from 'sequelize';
import { MEMBERSHIP_STATUSES, OrganizationMembership, UserEmail } from '../../../db/models';
import { normalizeEmail } from './members';

/**
 * The organization's members behind e-mail addresses (normalised), suspended ones included (who did something does
 * not change when they leave): by their userName, or by any other address their identity provider sent
 * (`user_emails`). A few queries per 500 addresses, whatever their number.
 */
export async function membersByEmail(organizationId: string, addresses: string[], transaction: Transaction): Promise<Map<string, string>> {
  const emails = [...new Set(addresses.map(normalizeEmail))];
  const byEmail = new Map<string, string>();
  for (const chunk of chunks(emails)) {
    const rows = await OrganizationMembership.findAll({
      where: { organization_id: organizationId, status: { [Op.in]: [...MEMBERSHIP_STATUSES] }, user_email: chunk },
      attributes: ['user_id', 'user_email'],
      transaction,
    });
    for (const r of rows) byEmail.set(r.user_email, r.user_id);
    await matchOtherAddresses(organizationId, chunk.filter((e) => !byEmail.has(e)), byEmail, transaction);
  }
  return byEmail;
}

/** Addresses that are no member's userName: a user's other addresses, kept when the user is a member here. */
async function matchOtherAddresses(organizationId: string, emails: string[], byEmail: Map<string, string>, transaction: Transaction): Promise<void> {
  if (emails.length === 0) return;
  const owners = await UserEmail.findAll({ where: { email: { [Op.in]: emails } }, attributes: ['user_id', 'email'], transaction });
  if (owners.length === 0) return;
  const members = await OrganizationMembership.findAll({
    where: { organization_id: organizationId, user_id: { [Op.in]: [...new Set(owners.map((o) => o.user_id))] } },
    attributes: ['user_id'],
    transaction,
  });
  const memberIds = new Set(members.map((m) => m.user_id));
  for (const o of owners) if (memberIds.has(o.user_id)) byEmail.set(o.email, o.user_id);
}

export function* chunks<T>(items: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
