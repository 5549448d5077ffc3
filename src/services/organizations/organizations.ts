import { Op, Transaction } from 'sequelize';
import { Organization, OrganizationMembership } from '../../../db/models';
import type { ChangeRunner } from '../../persistence/changes/change';
import { OPERATOR } from '../../persistence/changes/auditRecord';
import { newId } from '../../persistence/changes/ids';
import { conflict, invalid, notFound } from '../../errors';
import { MemberWriter, normalizeEmail } from '../people/members';
import { removeOwnedRows, RemovedRows } from './ownedRows';

/** What an organization's name may be: what lists show, and what the database keeps of it. */
export const ORGANIZATION_NAME_MAX = 200;

export interface OrganizationSummary {
  id: string;
  name: string;
  created_at: string;
  /** Active members, and the e-mails of its active admins (who can sign in to its settings). */
  members: number;
  admins: string[];
}

export interface CreatedOrganization {
  id: string;
  name: string;
  admin: { id: string; email: string };
}

/**
 * The organizations themselves (docs/organizations.md): an operator makes one with its first admin, renames it, or
 * deletes it with everything it owns. Each is one change, audited in the organization's log; the deletion's entry
 * outlives it. Members, teams and connections are the other writers' (SCIM, the settings, the apps).
 */
export class OrganizationWriter {
  private readonly members: MemberWriter;

  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {
    this.members = new MemberWriter(changes, now);
  }

  create(input: { name: string; adminEmail: string; adminName?: string }): Promise<CreatedOrganization> {
    const name = nameOf(input.name);
    const email = normalizeEmail(input.adminEmail);
    return this.changes.run(async (change) => {
      await this.assertNameFree(name, undefined, change.transaction);
      const organization = await Organization.create({ id: newId('org'), name, created_at: this.now() }, { transaction: change.transaction });
      change.wrote('organizations');
      const admin = await this.members.provisionIn(change, organization.id, {
        email,
        name: input.adminName?.trim() || email.split('@')[0],
        role: 'admin',
        active: true,
        externalId: null,
        title: null,
      });
      change.audit({
        organizationId: organization.id,
        actor: OPERATOR,
        action: 'organization.created',
        target: { type: 'organization', id: organization.id },
        details: { name, admin_user_id: admin.user.id },
      });
      return { id: organization.id, name, admin: { id: admin.user.id, email: admin.user.email } };
    });
  }

  rename(organizationId: string, newName: string): Promise<OrganizationSummary> {
    const name = nameOf(newName);
    return this.changes.run(async (change) => {
      const organization = await this.find(organizationId, change.transaction);
      await this.assertNameFree(name, organizationId, change.transaction);
      const before = organization.name;
      if (before !== name) {
        await organization.update({ name }, { transaction: change.transaction });
        change.wrote('organizations');
        change.audit({ organizationId, actor: OPERATOR, action: 'organization.renamed', target: { type: 'organization', id: organizationId }, details: { from: before, to: name } });
      }
      return (await listOrganizations({ ids: [organizationId], transaction: change.transaction }))[0];
    });
  }

  /** Deletes the organization and every row it owns; `confirm` must repeat its id, so that no slip of a flag deletes one. */
  delete(organizationId: string, confirm: string): Promise<{ id: string; name: string; removed: RemovedRows }> {
    if (confirm !== organizationId) throw invalid(`To delete ${organizationId}, confirm it by giving its id again (--confirm ${organizationId})`);
    return this.changes.run(async (change) => {
      const organization = await this.find(organizationId, change.transaction);
      const removed = await removeOwnedRows(change, organizationId);
      change.audit({
        organizationId: null,
        actor: OPERATOR,
        action: 'organization.deleted',
        target: { type: 'organization', id: organizationId },
        details: { name: organization.name, members: removed.members, users_removed: removed.usersRemoved },
      });
      return { id: organizationId, name: organization.name, removed };
    });
  }

  private async find(organizationId: string, transaction: Transaction): Promise<Organization> {
    const organization = await Organization.findByPk(organizationId, { transaction });
    if (!organization) throw notFound(`No organization ${organizationId} (see "npm run orgs -- list")`);
    return organization;
  }

  /** Two organizations of one name would be told apart by their ids alone, on every page and in every list. */
  private async assertNameFree(name: string, except: string | undefined, transaction: Transaction): Promise<void> {
    const others = await Organization.findAll({ attributes: ['id', 'name'], where: except ? { id: { [Op.ne]: except } } : {}, transaction });
    const taken = others.find((o) => o.name.toLowerCase() === name.toLowerCase());
    if (taken) throw conflict(`An organization named '${taken.name}' exists already (${taken.id}); choose another name`);
  }
}

function nameOf(raw: string): string {
  const name = raw.trim();
  if (name === '') throw invalid('An organization needs a name');
  if (name.length > ORGANIZATION_NAME_MAX) throw invalid(`An organization's name has at most ${ORGANIZATION_NAME_MAX} characters`);
  return name;
}

/** Every organization (or those named), oldest first, with its active members and admins: a few organizations, one query each. */
export async function listOrganizations(options: { ids?: string[]; transaction?: Transaction } = {}): Promise<OrganizationSummary[]> {
  const { transaction } = options;
  const organizations = await Organization.findAll({ where: options.ids ? { id: options.ids } : {}, order: [['created_at', 'ASC'], ['id', 'ASC']], transaction });
  if (organizations.length === 0) return [];
  const ids = organizations.map((o) => o.id);
  const active = { organization_id: ids, status: 'active' as const };
  const counts = await OrganizationMembership.count({ where: active, group: ['organization_id'], transaction });
  const admins = await OrganizationMembership.findAll({ where: { ...active, role: 'admin' }, attributes: ['organization_id', 'user_email'], order: [['user_email', 'ASC']], transaction });
  return organizations.map((o) => ({
    id: o.id,
    name: o.name,
    created_at: o.created_at.toISOString(),
    members: Number(counts.find((c) => c.organization_id === o.id)?.count ?? 0),
    admins: admins.filter((a) => a.organization_id === o.id).map((a) => a.user_email),
  }));
}
