import { Op, Transaction } from 'sequelize';
import { OrganizationMembership, Team, TeamMembership } from '../../../db/models';
import { toTeam } from '../../resources/people';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { conflict, invalid, notFound } from '../../errors';
import { newId } from '../../persistence/changes/ids';

export interface TeamInput {
  name: string;
  externalId: string | null;
}

/** How a change names the team's members: all of them, or some to add or remove. */
export type MemberChange = { set: string[] } | { add: string[]; remove: string[] };

/**
 * Changes to an organization's teams (SCIM Groups, docs/scim.md). Members must be members of the organization;
 * a team membership carries its member's organization state and sort fields (db/models/people.ts).
 */
export class TeamWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  create(organizationId: string, input: TeamInput, memberIds: string[] = []): Promise<Team> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      await this.assertExternalIdFree(organizationId, input.externalId, undefined, transaction);
      const now = this.now();
      const team = await Team.create(
        { id: newId('team'), organization_id: organizationId, name: input.name, external_id: input.externalId, created_at: now, updated_at: now },
        { transaction },
      );
      change.wrote('teams');
      await this.applyMembers(change, team, { set: memberIds });
      change.emit(organizationId, 'team.created', toTeam(team));
      return team;
    });
  }

  /** Renames and re-identifies the team and changes its members, as one change (SCIM PUT or PATCH). */
  update(organizationId: string, teamId: string, input: TeamInput, members?: MemberChange): Promise<Team> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const team = await this.findIn(organizationId, teamId, transaction);
      if (input.externalId !== team.external_id) await this.assertExternalIdFree(organizationId, input.externalId, teamId, transaction);
      let changed = false;
      if (input.name !== team.name || input.externalId !== team.external_id) {
        await team.update({ name: input.name, external_id: input.externalId }, { transaction });
        change.wrote('teams');
        changed = true;
      }
      if (members && (await this.applyMembers(change, team, members))) changed = true;
      if (changed) {
        await team.update({ updated_at: this.now() }, { transaction });
        change.wrote('teams');
        change.emit(organizationId, 'team.updated', toTeam(team));
      }
      return team;
    });
  }

  delete(organizationId: string, teamId: string): Promise<void> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const team = await this.findIn(organizationId, teamId, transaction);
      const members = await TeamMembership.findAll({ where: { team_id: teamId }, attributes: ['user_id'], transaction });
      await TeamMembership.destroy({ where: { team_id: teamId }, transaction });
      await team.destroy({ transaction });
      change.wrote('teams', 'team_memberships');
      // A member's access includes their teams (managers read team interactions): their tokens are re-read.
      for (const m of members) change.accessChanged(m.user_id);
      change.emit(organizationId, 'team.deleted', toTeam(team));
    });
  }

  /** The team, when it belongs to the organization; a team of another organization is not found. */
  async findIn(organizationId: string, teamId: string, transaction?: Transaction): Promise<Team> {
    const team = await Team.findOne({ where: { id: teamId, organization_id: organizationId }, transaction });
    if (!team) throw notFound(`No team ${teamId} in this organization`);
    return team;
  }

  /** Returns whether the membership changed. */
  private async applyMembers(change: Change, team: Team, members: MemberChange): Promise<boolean> {
    const { transaction } = change;
    const current = new Set(
      (await TeamMembership.findAll({ where: { team_id: team.id }, attributes: ['user_id'], transaction })).map((m) => m.user_id),
    );
    const wanted = 'set' in members ? new Set(members.set) : new Set([...current, ...members.add].filter((u) => !members.remove.includes(u)));
    const added = [...wanted].filter((u) => !current.has(u));
    const removed = [...current].filter((u) => !wanted.has(u));
    if (added.length === 0 && removed.length === 0) return false;

    if (added.length) {
      const memberships = await OrganizationMembership.findAll({
        where: { organization_id: team.organization_id, user_id: { [Op.in]: added } },
        transaction,
      });
      const found = new Set(memberships.map((m) => m.user_id));
      const strangers = added.filter((u) => !found.has(u));
      if (strangers.length) throw invalid(`Not members of this organization: ${strangers.slice(0, 5).join(', ')}${strangers.length > 5 ? ', …' : ''}`);
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
    return true;
  }

  private async assertExternalIdFree(organizationId: string, externalId: string | null, teamId: string | undefined, transaction: Transaction) {
    if (externalId === null) return;
    const holder = await Team.findOne({ where: { organization_id: organizationId, external_id: externalId }, transaction });
    if (holder && holder.id !== teamId) throw conflict(`Another team of this organization already has externalId '${externalId}'`);
  }
}
