import { Op, Transaction } from 'sequelize';
import { Organization, OrganizationMembership, User, UserEmail } from '../../../db/models';
import { conflict, notFound } from '../../errors';
import { Actor, OPERATOR } from '../../persistence/changes/auditRecord';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import type { RejectedLine } from './accountCsv';
import { chunks, membersByEmail } from './memberEmails';
import { Member, MemberWriter, normalizeEmail, OrganizationRole } from './members';
import type { MemberFile, MemberLine } from './memberCsv';
import { hasActiveScimToken } from './teams';

/** A member added by hand: what the settings page and a members file give. */
export interface HandMemberInput {
  email: string;
  name: string;
  role: OrganizationRole;
}

/** A line of a members file that was added (or, on a dry run, would be). */
export interface AddedLine {
  line: number;
  user_id: string | null;
  email: string;
  role: OrganizationRole;
}

/** What `orgs add-members` did with each line of its file, by line number. */
export interface AddReport {
  organization_id: string;
  added: AddedLine[];
  rejected: RejectedLine[];
  dry_run: boolean;
}

/**
 * An organization's members changed by hand (docs/settings.md#members), for an organization its identity provider
 * does not provision: through the writer SCIM's Users use (MemberWriter: the same events, access changes and users
 * shared between organizations), each change audited in its own transaction. Who may ask is the caller's to check;
 * `actor` is who the audit log names. While the organization has an active SCIM token the provider owns the members
 * and every change here is refused; an organization keeps at least one active admin.
 */
export class MemberAdministration {
  constructor(private readonly changes: ChangeRunner, private readonly members: MemberWriter) {}

  add(organizationId: string, input: HandMemberInput, actor: Actor): Promise<Member> {
    return this.changes.run(async (change) => {
      await this.editable(organizationId, actor, change.transaction);
      const email = normalizeEmail(input.email);
      if ((await membersByEmail(organizationId, [email], change.transaction)).size) throw conflict(`${email} is already a member of this organization`);
      return this.provision(change, organizationId, { ...input, email }, actor);
    });
  }

  setRole(organizationId: string, userId: string, role: OrganizationRole, actor: Actor): Promise<Member> {
    return this.changes.run(async (change) => {
      await this.editable(organizationId, actor, change.transaction);
      const before = await this.membershipOf(organizationId, userId, change.transaction);
      const changed = before.role !== role;
      if (changed && before.role === 'admin') await this.assertAnotherAdmin(organizationId, before, 'demote', change.transaction);
      const member = await this.members.setRoleIn(change, organizationId, userId, role);
      if (changed) this.audit(change, organizationId, actor, 'member.role_set', userId, { email: member.user.email, from: before.role, to: role });
      return member;
    });
  }

  remove(organizationId: string, userId: string, actor: Actor): Promise<Member> {
    return this.changes.run(async (change) => {
      await this.editable(organizationId, actor, change.transaction);
      const membership = await this.membershipOf(organizationId, userId, change.transaction);
      if (membership.role === 'admin') await this.assertAnotherAdmin(organizationId, membership, 'remove', change.transaction);
      const member = await this.members.removeIn(change, organizationId, userId);
      this.audit(change, organizationId, actor, 'member.removed', userId, { email: member.user.email, role: membership.role });
      return member;
    });
  }

  /**
   * Adds the good lines of a members file in one change. A line is refused, with its reason, when its e-mail came on
   * an earlier line, is a member's here already (by any address the organization knows for them), or is another
   * person's second address. A dry run reads all the same and writes nothing.
   */
  addFile(organizationId: string, file: MemberFile, options: { dryRun: boolean }, actor: Actor = OPERATOR): Promise<AddReport> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      await this.editable(organizationId, actor, transaction);
      const report: AddReport = { organization_id: organizationId, added: [], rejected: [...file.rejected], dry_run: options.dryRun };
      const lines = firstOfEach(file.lines, report.rejected);
      const members = await membersByEmail(organizationId, lines.map((l) => l.email), transaction);
      const secondary = await secondAddresses(lines.flatMap((l) => (members.has(l.email) ? [] : [l.email])), transaction);
      for (const l of lines) {
        if (members.has(l.email)) report.rejected.push({ line: l.line, reason: `${l.email} is already a member of this organization (${members.get(l.email)})` });
        else if (secondary.has(l.email)) report.rejected.push({ line: l.line, reason: `${l.email} is another address of ${secondary.get(l.email)}: give their main e-mail` });
        else if (options.dryRun) report.added.push({ line: l.line, user_id: null, email: l.email, role: l.role });
        else report.added.push({ line: l.line, user_id: (await this.provision(change, organizationId, l, actor)).user.id, email: l.email, role: l.role });
      }
      report.rejected.sort((a, b) => a.line - b.line);
      return report;
    });
  }

  private async provision(change: Change, organizationId: string, input: HandMemberInput, actor: Actor): Promise<Member> {
    const member = await this.members.provisionIn(change, organizationId, { email: input.email, name: input.name, role: input.role, active: true, externalId: null, title: null });
    this.audit(change, organizationId, actor, 'member.added', member.user.id, { email: member.user.email, name: input.name, role: input.role });
    return member;
  }

  /**
   * The organization, locked for the change so that two admins' changes of its members run one after the other (each
   * then counts the admins the other left), when its members are changed here: not while its identity provider
   * provisions them, which would change them back.
   */
  private async editable(organizationId: string, actor: Actor, transaction: Transaction): Promise<void> {
    const organization = await Organization.findByPk(organizationId, { attributes: ['id'], transaction, lock: transaction.LOCK.UPDATE });
    if (!organization) throw notFound(actor.type === 'operator' ? `No organization ${organizationId} (see "npm run orgs -- list")` : `No organization ${organizationId}`);
    if (await hasActiveScimToken(organizationId, transaction)) {
      throw conflict('The members of this organization are provisioned by your identity provider (SCIM): add, change and remove them there, where a change made here would be changed back');
    }
  }

  private async membershipOf(organizationId: string, userId: string, transaction: Transaction): Promise<OrganizationMembership> {
    const membership = await OrganizationMembership.findOne({ where: { organization_id: organizationId, user_id: userId }, transaction });
    if (!membership) throw notFound(`No member ${userId} in this organization`);
    return membership;
  }

  /** An active admin is demoted or removed only while another active admin stays: someone must be able to sign in to change things. */
  private async assertAnotherAdmin(organizationId: string, admin: OrganizationMembership, move: 'demote' | 'remove', transaction: Transaction): Promise<void> {
    if (admin.status !== 'active') return;
    const others = await OrganizationMembership.count({ where: { organization_id: organizationId, role: 'admin', status: 'active', user_id: { [Op.ne]: admin.user_id } }, transaction });
    if (others === 0) {
      throw conflict(`${admin.user_email} is the organization's last active admin, and an organization keeps at least one: make another member admin before you ${move === 'demote' ? 'change their role' : 'remove them'}`);
    }
  }

  private audit(change: Change, organizationId: string, actor: Actor, action: 'member.added' | 'member.role_set' | 'member.removed', userId: string, details: Record<string, unknown>): void {
    change.audit({ organizationId, actor, action, target: { type: 'user', id: userId }, details });
  }
}

/** The lines left once those whose e-mail an earlier line gave are refused, each saying which. */
function firstOfEach(lines: MemberLine[], rejected: RejectedLine[]): MemberLine[] {
  const seen = new Map<string, number>();
  return lines.filter((l) => {
    const first = seen.get(l.email);
    if (first !== undefined) rejected.push({ line: l.line, reason: `duplicate e-mail: ${l.email} is on line ${first} already` });
    else seen.set(l.email, l.line);
    return first === undefined;
  });
}

/**
 * Of these addresses, those that are a user's second address (no one's userName), with that user's main e-mail:
 * provisioning one would make a second user of the same person, and is refused.
 */
async function secondAddresses(emails: string[], transaction: Transaction): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const chunk of chunks([...new Set(emails)])) {
    const primary = new Set((await User.findAll({ where: { email: { [Op.in]: chunk } }, attributes: ['email'], transaction })).map((u) => u.email));
    const rows = await UserEmail.findAll({ where: { email: { [Op.in]: chunk.filter((e) => !primary.has(e)) } }, attributes: ['user_id', 'email'], transaction });
    const owners = new Map((await User.findAll({ where: { id: { [Op.in]: [...new Set(rows.map((r) => r.user_id))] } }, attributes: ['id', 'email'], transaction })).map((u) => [u.id, u.email]));
    for (const r of rows) found.set(r.email, owners.get(r.user_id) ?? r.user_id);
  }
  return found;
}
