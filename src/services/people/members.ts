import { Op, Transaction } from 'sequelize';
import { MembershipStatus, ORGANIZATION_ROLES, OrganizationMembership, OrganizationRole, Team, TeamMembership, User, UserEmail } from '../../../db/models';
import { toOrganizationMember } from '../../resources/people';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { conflict, notFound } from '../../errors';
import { newId } from '../../persistence/changes/ids';
import { assertEmailsFree, EmailAddress, emailRows, emailsDiffer, emailsOf, NameParts, NAME_PART_COLUMNS, namePartColumns, normalizeEmail, replaceEmails } from './profile';

export { normalizeEmail } from './profile';
export type { EmailAddress, NameParts } from './profile';
export { ORGANIZATION_ROLES } from '../../../db/models';
export type { OrganizationRole } from '../../../db/models';

/** Whether a name is an organization role (transports check roles without reaching for the models). */
export const isOrganizationRole = (name: string): name is OrganizationRole => ORGANIZATION_ROLES.some((role) => role === name);

/** A member as a writer sees it: the global user and their membership of one organization. */
export interface Member {
  user: User;
  membership: OrganizationMembership;
  /** The user's addresses as sent, in order; none means `user.email` alone. */
  emails: UserEmail[];
}

export interface MemberInput {
  email: string;
  /** The one name `/v1` shows (SCIM: `displayName`, else `name.formatted`, else given and family names). */
  name: string;
  /** The name parts as sent; left out, they are derived from `name`. */
  nameParts?: NameParts;
  /** Every address as sent (the primary one is `email`, the key); left out, `email` alone. */
  emails?: EmailAddress[];
  role: OrganizationRole;
  active: boolean;
  externalId: string | null;
  /** Job title in the organization. */
  title: string | null;
}

const statusOf = (active: boolean): MembershipStatus => (active ? 'active' : 'suspended');
/** `suspended_at` of a membership entering this state at `now`. */
const suspensionTime = (status: MembershipStatus, now: Date): Date | null => (status === 'suspended' ? now : null);

/**
 * Changes to an organization's members (docs/scim.md semantics): a user is global, one row per e-mail; an
 * organization manages its membership of that user (role, state, external id) and changes the profile (name,
 * e-mail) only of users who belong to no other organization. Every method is one change (change.ts).
 */
export class MemberWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  /** The member, suspended or not; undefined when the user is no member of the organization. */
  async find(organizationId: string, userId: string, transaction?: Transaction): Promise<Member | undefined> {
    const membership = await OrganizationMembership.findOne({ where: { organization_id: organizationId, user_id: userId }, transaction });
    if (!membership) return undefined;
    const user = await User.findByPk(userId, { transaction });
    if (!user) return undefined;
    return { user, membership, emails: (await emailsOf([userId], transaction)).get(userId) ?? [] };
  }

  /** Adds the user with this e-mail to the organization, creating the user when nobody has the address. */
  provision(organizationId: string, input: MemberInput): Promise<Member> {
    return this.changes.run((change) => this.provisionIn(change, organizationId, input));
  }

  /** `provision` within a change of the caller's (an organization made with its first admin). */
  async provisionIn(change: Change, organizationId: string, input: MemberInput): Promise<Member> {
    const { transaction } = change;
    const email = normalizeEmail(input.email);
    const now = this.now();
    // No locking read: on MariaDB it would gap-lock and deadlock concurrent provisionings of nearby e-mails. Two
    // creates of one e-mail race to the unique index instead, and the loser's change runs again (change.ts).
    let user = await User.findOne({ where: { email }, transaction });
    let emails: UserEmail[];
    if (user) {
      const existing = await OrganizationMembership.findOne({ where: { organization_id: organizationId, user_id: user.id }, transaction });
      if (existing) throw conflict(`A member with userName '${email}' already exists in this organization`);
      emails = (await emailsOf([user.id], transaction)).get(user.id) ?? [];
      if (!(await this.belongsElsewhere(user.id, organizationId, transaction))) {
        emails = await this.setProfile(change, user, emails, { ...input, email }, now);
      }
    } else {
      const id = newId('usr');
      const rows = emailRows(id, input.emails);
      await assertEmailsFree(undefined, [email, ...rows.map((r) => r.email)], transaction);
      const parts = namePartColumns(input.name, input.nameParts);
      user = await User.create({ id, name: input.name, email, ...parts, is_active: true, created_at: now, updated_at: now }, { transaction });
      emails = rows.length ? await UserEmail.bulkCreate(rows, { transaction }) : [];
      change.wrote('users');
    }
    await this.assertExternalIdFree(organizationId, input.externalId, undefined, transaction);
    const membership = await OrganizationMembership.create(
      {
        organization_id: organizationId,
        user_id: user.id,
        role: input.role,
        status: statusOf(input.active),
        suspended_at: suspensionTime(statusOf(input.active), now),
        external_id: input.externalId,
        title: input.title,
        created_at: now,
        updated_at: now,
        user_name: user.name,
        user_email: user.email,
        user_created_at: user.created_at,
      },
      { transaction },
    );
    change.wrote('organization_memberships');
    change.accessChanged(user.id);
    const member = { user, membership, emails };
    change.emit(organizationId, 'user.created', toOrganizationMember(membership));
    if (!input.active) change.emit(organizationId, 'membership.deactivated', toOrganizationMember(membership));
    return member;
  }

  /**
   * Sets every field of the member to `input` (SCIM PUT and PATCH both end here). The profile changes only when
   * this organization has the user to itself; otherwise the stored one stays and is what the caller gets back.
   */
  update(organizationId: string, userId: string, input: MemberInput): Promise<Member> {
    return this.changes.run(async (change) => {
      const member = await this.existing(organizationId, userId, change.transaction);
      const { user } = member;
      let { emails } = member;
      const before = { email: user.email, name: user.name };

      if (!(await this.belongsElsewhere(userId, organizationId, change.transaction))) {
        const email = normalizeEmail(input.email);
        if (email !== user.email && (await User.count({ where: { email, id: { [Op.ne]: userId } }, transaction: change.transaction })) > 0) {
          throw conflict(`Another user already has userName '${email}'`);
        }
        emails = await this.setProfile(change, user, emails, { ...input, email }, this.now());
      }
      const profileChanged = user.email !== before.email || user.name !== before.name;
      await this.setMembership(change, organizationId, { ...member, emails }, input, profileChanged);
      return { ...member, emails };
    });
  }

  /**
   * Gives the member another role in the organization and nothing else, within a change of the caller's (an admin's,
   * audited there): the same membership change, events and access change as an `update` with that role.
   */
  async setRoleIn(change: Change, organizationId: string, userId: string, role: OrganizationRole): Promise<Member> {
    const member = await this.existing(organizationId, userId, change.transaction);
    const { membership } = member;
    const kept = { role, active: membership.status === 'active', externalId: membership.external_id ?? null, title: membership.title ?? null };
    await this.setMembership(change, organizationId, member, kept, false);
    return member;
  }

  /** Ends the membership and the organization's team memberships of the user; the user and their history stay. */
  remove(organizationId: string, userId: string): Promise<void> {
    return this.changes.run(async (change) => {
      await this.removeIn(change, organizationId, userId);
    });
  }

  /** `remove` within a change of the caller's (an admin's, audited there). */
  async removeIn(change: Change, organizationId: string, userId: string): Promise<Member> {
    const { transaction } = change;
    const member = await this.existing(organizationId, userId, transaction);
    const teamIds = await this.teamIdsIn(organizationId, userId, transaction);
    if (teamIds.length) await TeamMembership.destroy({ where: { user_id: userId, team_id: { [Op.in]: teamIds } }, transaction });
    await member.membership.destroy({ transaction });
    change.wrote('organization_memberships', 'team_memberships');
    change.accessChanged(userId);
    change.emit(organizationId, 'membership.removed', toOrganizationMember(member.membership));
    return member;
  }

  private async existing(organizationId: string, userId: string, transaction: Transaction): Promise<Member> {
    const member = await this.find(organizationId, userId, transaction);
    if (!member) throw notFound(`No member ${userId} in this organization`);
    return member;
  }

  /**
   * Sets the membership's role, state, external id and title, with the event and access change they call for. The
   * profile was set before (`profileChanged`: its e-mail or name, which the membership row and the event carry).
   */
  private async setMembership(
    change: Change,
    organizationId: string,
    member: Member,
    input: Pick<MemberInput, 'role' | 'active' | 'externalId' | 'title'>,
    profileChanged: boolean,
  ): Promise<void> {
    const { transaction } = change;
    const { user, membership } = member;
    const userId = user.id;
    const now = this.now();
    const status = statusOf(input.active);
    if (input.externalId !== membership.external_id) await this.assertExternalIdFree(organizationId, input.externalId, userId, transaction);
    const wasStatus = membership.status;
    const membershipChanged =
      input.role !== membership.role || status !== wasStatus || input.externalId !== membership.external_id || input.title !== membership.title;
    if (!membershipChanged && !profileChanged) return;
    // The instance gets the user fields the bulk update of setProfile gave its row, for the event below.
    const sortFields = { user_email: user.email, user_name: user.name };
    // A suspension keeps its first time through later updates: costs count the member until then.
    const suspendedAt = status === wasStatus ? membership.suspended_at : suspensionTime(status, now);
    const roleChanged = input.role !== membership.role;
    await membership.update(
      { role: input.role, status, suspended_at: suspendedAt, external_id: input.externalId, title: input.title, updated_at: now, ...sortFields },
      { transaction },
    );
    change.wrote('organization_memberships');
    if (status !== wasStatus) await this.setTeamStatus(change, organizationId, userId, status, suspendedAt);
    if (roleChanged || status !== wasStatus) change.accessChanged(userId);
    const item = toOrganizationMember(membership);
    if (status === 'suspended' && wasStatus !== 'suspended') change.emit(organizationId, 'membership.deactivated', item);
    else change.emit(organizationId, 'user.updated', item);
  }

  /**
   * Sets the profile (e-mail, name, name parts, addresses) of a user this organization has to itself. A new
   * e-mail or name is copied to the user's membership rows, which member lists sort by (db/models/people.ts).
   */
  private async setProfile(change: Change, user: User, stored: UserEmail[], input: MemberInput, now: Date): Promise<UserEmail[]> {
    const { transaction } = change;
    const parts = namePartColumns(input.name, input.nameParts);
    const profileChanged =
      input.email !== user.email ||
      input.name !== user.name ||
      NAME_PART_COLUMNS.some((k) => (parts[k] ?? null) !== (user[k] ?? null));
    const rows = emailRows(user.id, input.emails);
    const emailsChanged = emailsDiffer(stored, rows);
    if (!profileChanged && !emailsChanged) return stored;
    const sortFieldsChanged = input.email !== user.email || input.name !== user.name;
    // A new userName or address must be no one else's, as a userName or as one of their addresses.
    const added = [...(input.email !== user.email ? [input.email] : []), ...(emailsChanged ? rows.map((r) => r.email) : [])];
    await assertEmailsFree(user.id, added, transaction);
    await user.update({ email: input.email, name: input.name, ...parts, updated_at: now }, { transaction });
    change.wrote('users');
    if (sortFieldsChanged) {
      const sortFields = { user_email: input.email, user_name: input.name };
      await OrganizationMembership.update(sortFields, { where: { user_id: user.id }, transaction });
      await TeamMembership.update(sortFields, { where: { user_id: user.id }, transaction });
      change.wrote('organization_memberships', 'team_memberships');
    }
    if (!emailsChanged) return stored;
    await replaceEmails(user.id, rows, transaction);
    return (await emailsOf([user.id], transaction)).get(user.id) ?? [];
  }

  /** The user's teams in this organization: from the user's few team memberships, not the organization's teams. */
  private async teamIdsIn(organizationId: string, userId: string, transaction: Transaction): Promise<string[]> {
    const rows = await TeamMembership.findAll({
      where: { user_id: userId },
      attributes: ['team_id'],
      include: [{ model: Team, as: 'team', attributes: [], required: true, where: { organization_id: organizationId } }],
      transaction,
    });
    return rows.map((r) => r.team_id);
  }

  private async belongsElsewhere(userId: string, organizationId: string, transaction: Transaction): Promise<boolean> {
    const others = await OrganizationMembership.count({ where: { user_id: userId, organization_id: { [Op.ne]: organizationId } }, transaction });
    return others > 0;
  }

  private async assertExternalIdFree(organizationId: string, externalId: string | null, userId: string | undefined, transaction: Transaction) {
    if (externalId === null) return;
    const holder = await OrganizationMembership.findOne({ where: { organization_id: organizationId, external_id: externalId }, transaction });
    if (holder && holder.user_id !== userId) throw conflict(`Another member of this organization already has externalId '${externalId}'`);
  }

  /** A team membership carries its member's organization state (db/models/people.ts). */
  private async setTeamStatus(change: Change, organizationId: string, userId: string, status: MembershipStatus, suspendedAt: Date | null): Promise<void> {
    const teamIds = await this.teamIdsIn(organizationId, userId, change.transaction);
    if (teamIds.length === 0) return;
    await TeamMembership.update({ status, suspended_at: suspendedAt }, { where: { user_id: userId, team_id: { [Op.in]: teamIds } }, transaction: change.transaction });
    change.wrote('team_memberships');
  }
}

