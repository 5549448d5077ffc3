import { Op, Transaction } from 'sequelize';
import { MembershipStatus, OrganizationMembership, OrganizationRole, Team, TeamMembership, User } from '../../../db/models';
import { toOrganizationMember } from '../../resources/people';
import type { Change, ChangeRunner } from './change';
import { conflict, notFound } from './errors';
import { newId } from './ids';

/** A member as a writer sees it: the global user and their membership of one organization. */
export interface Member {
  user: User;
  membership: OrganizationMembership;
}

export interface MemberInput {
  email: string;
  name: string;
  role: OrganizationRole;
  active: boolean;
  externalId: string | null;
  /** Job title in the organization. */
  title: string | null;
}

/**
 * E-mail addresses identify users (DESIGN §11: `userName` is the e-mail, case-insensitive, unique). They are
 * stored lower-cased, so equality is the same on every database and collation.
 */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const statusOf = (active: boolean): MembershipStatus => (active ? 'active' : 'suspended');

/**
 * Changes to an organization's members (DESIGN §11 semantics): a user is global, one row per e-mail; an
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
    return user ? { user, membership } : undefined;
  }

  /** Adds the user with this e-mail to the organization, creating the user when nobody has the address. */
  provision(organizationId: string, input: MemberInput): Promise<Member> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const email = normalizeEmail(input.email);
      const now = this.now();
      // No locking read: on MariaDB it would gap-lock and deadlock concurrent provisionings of nearby e-mails. Two
      // creates of one e-mail race to the unique index instead, and the loser's change runs again (change.ts).
      let user = await User.findOne({ where: { email }, transaction });
      if (user) {
        const existing = await OrganizationMembership.findOne({ where: { organization_id: organizationId, user_id: user.id }, transaction });
        if (existing) throw conflict(`A member with userName '${email}' already exists in this organization`);
        if (!(await this.belongsElsewhere(user.id, organizationId, transaction)) && user.name !== input.name) {
          await user.update({ name: input.name, updated_at: now }, { transaction });
          change.wrote('users');
        }
      } else {
        user = await User.create({ id: newId('usr'), name: input.name, email, is_active: true, created_at: now, updated_at: now }, { transaction });
        change.wrote('users');
      }
      await this.assertExternalIdFree(organizationId, input.externalId, undefined, transaction);
      const membership = await OrganizationMembership.create(
        {
          organization_id: organizationId,
          user_id: user.id,
          role: input.role,
          status: statusOf(input.active),
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
      const member = { user, membership };
      change.emit(organizationId, 'user.created', toOrganizationMember(membership));
      if (!input.active) change.emit(organizationId, 'membership.deactivated', toOrganizationMember(membership));
      return member;
    });
  }

  /**
   * Sets every field of the member to `input` (SCIM PUT and PATCH both end here). The profile changes only when
   * this organization has the user to itself; otherwise the stored one stays and is what the caller gets back.
   */
  update(organizationId: string, userId: string, input: MemberInput): Promise<Member> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const member = await this.find(organizationId, userId, transaction);
      if (!member) throw notFound(`No member ${userId} in this organization`);
      const { user, membership } = member;
      const now = this.now();
      let changed = false;

      if (!(await this.belongsElsewhere(userId, organizationId, transaction))) {
        const email = normalizeEmail(input.email);
        if (email !== user.email || input.name !== user.name) {
          if (email !== user.email && (await User.count({ where: { email, id: { [Op.ne]: userId } }, transaction })) > 0) {
            throw conflict(`Another user already has userName '${email}'`);
          }
          await user.update({ email, name: input.name, updated_at: now }, { transaction });
          // Member lists sort by the user fields their rows carry (db/models/people.ts): keep them equal.
          const sortFields = { user_email: email, user_name: input.name };
          await OrganizationMembership.update(sortFields, { where: { user_id: userId }, transaction });
          await TeamMembership.update(sortFields, { where: { user_id: userId }, transaction });
          change.wrote('users', 'organization_memberships', 'team_memberships');
          changed = true;
        }
      }

      const status = statusOf(input.active);
      if (input.externalId !== membership.external_id) await this.assertExternalIdFree(organizationId, input.externalId, userId, transaction);
      const wasStatus = membership.status;
      const membershipChanged =
        input.role !== membership.role || status !== wasStatus || input.externalId !== membership.external_id || input.title !== membership.title;
      if (membershipChanged || changed) {
        // The instance gets the user fields the bulk update above gave its row, for the event below.
        const sortFields = { user_email: user.email, user_name: user.name };
        await membership.update({ role: input.role, status, external_id: input.externalId, title: input.title, updated_at: now, ...sortFields }, { transaction });
        change.wrote('organization_memberships');
        if (status !== wasStatus) await this.setTeamStatus(change, organizationId, userId, status);
        if (input.role !== membership.role || status !== wasStatus) change.accessChanged(userId);
        const item = toOrganizationMember(membership);
        if (status === 'suspended' && wasStatus !== 'suspended') change.emit(organizationId, 'membership.deactivated', item);
        else change.emit(organizationId, 'user.updated', item);
      }
      return { user, membership };
    });
  }

  /** Ends the membership and the organization's team memberships of the user; the user and their history stay. */
  remove(organizationId: string, userId: string): Promise<void> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const member = await this.find(organizationId, userId, transaction);
      if (!member) throw notFound(`No member ${userId} in this organization`);
      const teamIds = await this.teamIdsIn(organizationId, userId, transaction);
      if (teamIds.length) await TeamMembership.destroy({ where: { user_id: userId, team_id: { [Op.in]: teamIds } }, transaction });
      await member.membership.destroy({ transaction });
      change.wrote('organization_memberships', 'team_memberships');
      change.accessChanged(userId);
      change.emit(organizationId, 'membership.removed', toOrganizationMember(member.membership));
    });
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
  private async setTeamStatus(change: Change, organizationId: string, userId: string, status: MembershipStatus): Promise<void> {
    const teamIds = await this.teamIdsIn(organizationId, userId, change.transaction);
    if (teamIds.length === 0) return;
    await TeamMembership.update({ status }, { where: { user_id: userId, team_id: { [Op.in]: teamIds } }, transaction: change.transaction });
    change.wrote('team_memberships');
  }
}

