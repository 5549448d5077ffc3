import { fn, col, where, Op, Transaction } from 'sequelize';
import { OrganizationMembership, ScimToken, Team, TeamMembership, TeamRepository, TeamRole } from '../../../db/models';
import { toTeam } from '../../resources/people';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import type { Actor, AuditAction } from '../../persistence/changes/auditRecord';
import { conflict, invalid, notFound } from '../../errors';
import { newId } from '../../persistence/changes/ids';
import { membersByEmail } from './memberEmails';

export interface TeamInput {
  name: string;
  externalId: string | null;
}

/** How a change names the team's members: all of them, or some to add or remove. */
export type MemberChange = { set: string[] } | { add: string[]; remove: string[] };

/**
 * Who changes a team: the organization's identity provider (SCIM Groups, docs/scim.md), whose teams it then owns, or
 * an admin on the settings page, under the rules of docs/settings.md#teams and in the audit log.
 */
export type TeamEditor = { kind: 'identity_provider' } | { kind: 'admin'; actor: Actor };

export const IDENTITY_PROVIDER: TeamEditor = { kind: 'identity_provider' };

/** Whether an identity provider may still provision the organization: a revoked token changes nothing any more. */
export const hasActiveScimToken = async (organizationId: string, transaction?: Transaction): Promise<boolean> =>
  (await ScimToken.count({ where: { organization_id: organizationId, is_active: true }, transaction })) > 0;

/**
 * Changes to an organization's teams, by its identity provider or its admins. Members must be members of the
 * organization (active ones, for an admin); a team membership carries its member's organization state and sort
 * fields (db/models/people.ts).
 */
export class TeamWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  create(organizationId: string, input: TeamInput, memberIds: string[] = [], by: TeamEditor = IDENTITY_PROVIDER): Promise<Team> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      await this.assertExternalIdFree(organizationId, input.externalId, undefined, transaction);
      if (by.kind === 'admin') await this.assertNameFree(organizationId, input.name, undefined, transaction);
      const now = this.now();
      const team = await Team.create(
        {
          id: newId('team'),
          organization_id: organizationId,
          name: input.name,
          external_id: input.externalId,
          scim_managed: by.kind === 'identity_provider',
          created_at: now,
          updated_at: now,
        },
        { transaction },
      );
      change.wrote('teams');
      await this.applyMembers(change, team, { set: memberIds }, by);
      change.emit(organizationId, 'team.created', toTeam(team));
      this.audit(change, team, by, 'team.created', { name: team.name });
      return team;
    });
  }

  /** Renames and re-identifies the team and changes its members, as one change (SCIM PUT or PATCH). */
  update(organizationId: string, teamId: string, input: TeamInput, members?: MemberChange, by: TeamEditor = IDENTITY_PROVIDER): Promise<Team> {
    return this.changes.run(async (change) => this.updateIn(change, await this.editable(organizationId, teamId, by, change.transaction), input, members, by));
  }

  rename(organizationId: string, teamId: string, name: string, actor: Actor): Promise<Team> {
    const by: TeamEditor = { kind: 'admin', actor };
    return this.changes.run(async (change) => {
      const team = await this.editable(organizationId, teamId, by, change.transaction);
      return this.updateIn(change, team, { name, externalId: team.external_id ?? null }, undefined, by);
    });
  }

  /**
   * Adds or removes one member, named by user id or e-mail address (any of theirs the organization knows). Someone
   * who is no active member here is not found, whoever they are elsewhere; removing someone not on the team too.
   */
  changeMember(organizationId: string, teamId: string, user: string, move: 'add' | 'remove', actor: Actor): Promise<{ team: Team; userId: string }> {
    const by: TeamEditor = { kind: 'admin', actor };
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const team = await this.editable(organizationId, teamId, by, transaction);
      const userId = await this.memberNamed(organizationId, user, move === 'add', transaction);
      const onTeam = await TeamMembership.count({ where: { team_id: team.id, user_id: userId }, transaction });
      if (move === 'remove' && !onTeam) throw notFound(`${user} is not on team ${team.name}`);
      const members = move === 'add' ? { add: [userId], remove: [] } : { add: [], remove: [userId] };
      return { team: await this.updateIn(change, team, { name: team.name, externalId: team.external_id ?? null }, members, by), userId };
    });
  }

  /** Makes a team member its manager (who reads the team’s interactions: docs/api.md#who-sees-what) or a plain member again. */
  setMemberRole(organizationId: string, teamId: string, userId: string, role: TeamRole, actor: Actor): Promise<TeamMembership> {
    const by: TeamEditor = { kind: 'admin', actor };
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const team = await this.editable(organizationId, teamId, by, transaction);
      const membership = await TeamMembership.findOne({ where: { team_id: team.id, user_id: userId }, transaction });
      if (!membership) throw notFound(`${userId} is not on team ${team.name}`);
      if (membership.role === role) return membership;
      await membership.update({ role }, { transaction });
      await team.update({ updated_at: this.now() }, { transaction });
      change.wrote('teams', 'team_memberships');
      change.accessChanged(userId);
      change.emit(organizationId, 'team.updated', toTeam(team));
      this.audit(change, team, by, 'team.member_role_set', { user_id: userId, role });
      return membership;
    });
  }

  delete(organizationId: string, teamId: string, by: TeamEditor = IDENTITY_PROVIDER): Promise<Team> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const team = await this.editable(organizationId, teamId, by, transaction);
      const members = await TeamMembership.findAll({ where: { team_id: teamId }, attributes: ['user_id'], transaction });
      await TeamMembership.destroy({ where: { team_id: teamId }, transaction });
      await TeamRepository.destroy({ where: { team_id: teamId }, transaction });
      await team.destroy({ transaction });
      change.wrote('teams', 'team_memberships', 'team_repositories');
      // A member's access includes their teams (managers read team interactions): their tokens are re-read.
      for (const m of members) change.accessChanged(m.user_id);
      change.emit(organizationId, 'team.deleted', toTeam(team));
      this.audit(change, team, by, 'team.deleted', { name: team.name, members: members.length });
      return team;
    });
  }

  /** The team, when it belongs to the organization; a team of another organization is not found. */
  async findIn(organizationId: string, teamId: string, transaction?: Transaction): Promise<Team> {
    const team = await Team.findOne({ where: { id: teamId, organization_id: organizationId }, transaction });
    if (!team) throw notFound(`No team ${teamId} in this organization`);
    return team;
  }

  /**
   * Whether the identity provider owns the team: it made or changed it, and still has an active SCIM token. When
   * every token is revoked nothing can provision the team any more, and it is the admins' to change.
   */
  async ownedByIdentityProvider(team: Team, transaction?: Transaction): Promise<boolean> {
    return Boolean(team.scim_managed) && (await hasActiveScimToken(team.organization_id, transaction));
  }

  /** The team, when `by` may change it; the identity provider's change makes it the provider's. */
  private async editable(organizationId: string, teamId: string, by: TeamEditor, transaction: Transaction): Promise<Team> {
    const team = await this.findIn(organizationId, teamId, transaction);
    if (by.kind === 'admin' && (await this.ownedByIdentityProvider(team, transaction))) {
      throw conflict(`Team ${team.name} is provisioned by your identity provider (SCIM): change it there, where it would otherwise be changed back`);
    }
    return team;
  }

  private async updateIn(change: Change, team: Team, input: TeamInput, members: MemberChange | undefined, by: TeamEditor): Promise<Team> {
    const { transaction } = change;
    const organizationId = team.organization_id;
    if (input.externalId !== team.external_id) await this.assertExternalIdFree(organizationId, input.externalId, team.id, transaction);
    if (by.kind === 'admin' && input.name !== team.name) await this.assertNameFree(organizationId, input.name, team.id, transaction);
    const before = team.name;
    let changed = false;
    if (input.name !== team.name || input.externalId !== team.external_id) {
      await team.update({ name: input.name, external_id: input.externalId }, { transaction });
      change.wrote('teams');
      changed = true;
    }
    // An identity provider may take over a team an admin made (Okta links a pushed group to one of the same name).
    if (by.kind === 'identity_provider' && !team.scim_managed) {
      await team.update({ scim_managed: true }, { transaction });
      change.wrote('teams');
    }
    const moved = members ? await this.applyMembers(change, team, members, by) : { added: [], removed: [] };
    if (moved.added.length || moved.removed.length) changed = true;
    if (changed) {
      await team.update({ updated_at: this.now() }, { transaction });
      change.wrote('teams');
      change.emit(organizationId, 'team.updated', toTeam(team));
    }
    if (before !== team.name) this.audit(change, team, by, 'team.renamed', { from: before, to: team.name });
    for (const userId of moved.added) this.audit(change, team, by, 'team.member_added', { user_id: userId });
    for (const userId of moved.removed) this.audit(change, team, by, 'team.member_removed', { user_id: userId });
    return team;
  }

  private async applyMembers(change: Change, team: Team, members: MemberChange, by: TeamEditor): Promise<{ added: string[]; removed: string[] }> {
    const { transaction } = change;
    const current = new Set(
      (await TeamMembership.findAll({ where: { team_id: team.id }, attributes: ['user_id'], transaction })).map((m) => m.user_id),
    );
    const wanted = 'set' in members ? new Set(members.set) : new Set([...current, ...members.add].filter((u) => !members.remove.includes(u)));
    const added = [...wanted].filter((u) => !current.has(u));
    const removed = [...current].filter((u) => !wanted.has(u));
    if (added.length === 0 && removed.length === 0) return { added, removed };

    if (added.length) {
      const memberships = await OrganizationMembership.findAll({
        // An identity provider may list a suspended member in its group; an admin adds only people who count.
        where: { organization_id: team.organization_id, user_id: { [Op.in]: added }, ...(by.kind === 'admin' ? { status: 'active' } : {}) },
        transaction,
      });
      const found = new Set(memberships.map((m) => m.user_id));
      const strangers = added.filter((u) => !found.has(u));
      if (strangers.length) throw invalid(`Not ${by.kind === 'admin' ? 'active ' : ''}members of this organization: ${strangers.slice(0, 5).join(', ')}${strangers.length > 5 ? ', …' : ''}`);
      const now = this.now();
      await TeamMembership.bulkCreate(
        memberships.map((m) => ({
          team_id: team.id,
          user_id: m.user_id,
          title: '',
          role: 'member' as const,
          status: m.status,
          suspended_at: m.suspended_at,
          created_at: now,
          user_name: m.user_name,
          user_email: m.user_email,
          user_created_at: m.user_created_at,
        })),
        { transaction },
      );
    }
    if (removed.length) await TeamMembership.destroy({ where: { team_id: team.id, user_id: { [Op.in]: removed } }, transaction });
    change.wrote('team_memberships');
    for (const u of [...added, ...removed]) change.accessChanged(u);
    return { added, removed };
  }

  /** An active member's user id, by id or by any address of theirs the organization knows; else not found. */
  private async memberNamed(organizationId: string, user: string, activeOnly: boolean, transaction: Transaction): Promise<string> {
    const userId = user.includes('@') ? (await membersByEmail(organizationId, [user], transaction)).values().next().value : user;
    const membership = userId
      ? await OrganizationMembership.findOne({ where: { organization_id: organizationId, user_id: userId }, attributes: ['user_id', 'status'], transaction })
      : null;
    if (!membership || (activeOnly && membership.status !== 'active')) throw notFound(`No ${activeOnly ? 'active ' : ''}member ${user} in this organization`);
    return membership.user_id;
  }

  private async assertExternalIdFree(organizationId: string, externalId: string | null, teamId: string | undefined, transaction: Transaction) {
    if (externalId === null) return;
    const holder = await Team.findOne({ where: { organization_id: organizationId, external_id: externalId }, transaction });
    if (holder && holder.id !== teamId) throw conflict(`Another team of this organization already has externalId '${externalId}'`);
  }

  /**
   * Admins' teams have names of their own, whatever their case; an identity provider's groups need not (RFC 7643
   * §4.2 gives displayName no uniqueness), so its changes are not checked.
   */
  private async assertNameFree(organizationId: string, name: string, teamId: string | undefined, transaction: Transaction) {
    const holder = await Team.findOne({
      where: { [Op.and]: [{ organization_id: organizationId }, where(fn('lower', col('name')), name.toLowerCase())] },
      attributes: ['id'],
      transaction,
    });
    if (holder && holder.id !== teamId) throw conflict(`This organization already has a team named ${name}: choose another name`);
  }

  private audit(change: Change, team: Team, by: TeamEditor, action: AuditAction, details: Record<string, unknown>): void {
    if (by.kind !== 'admin') return;
    change.audit({ organizationId: team.organization_id, actor: by.actor, action, target: { type: 'team', id: team.id }, details });
  }
}
