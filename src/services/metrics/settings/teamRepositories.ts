import { z } from 'zod';
import { col, FindOptions, fn, Op, Transaction, where } from 'sequelize';
import { MetricSetting, Repository, Team, TeamRepository } from '../../../../db/models';
import type { Change, ChangeRunner } from '../../../persistence/changes/change';
import type { Actor } from '../../../persistence/changes/auditRecord';
import { invalid, notFound } from '../../../errors';
import { authoredRepositoryIds, ownedRepositoryIds, teamMemberIds } from '../reading/scope';
import { newSettingsVersion } from './metricSettings';

/** Each id is a value in `scope_repository_ids`: well under SQLite's 32,766 variables, more than a team works in. */
export const MAX_TEAM_REPOSITORIES = 1000;

export const REPOSITORIES_EXPECTED = 'repositories must be a list of repository ids or full names, or null for the repositories its members authored commits in';

/**
 * What an admin sends: the repositories the team owns, ids or full names (`owner/name`, without regard to case), set
 * whole; null gives the team back its fallback, the repositories its members authored commits in.
 */
export const TeamRepositoriesInput = z
  .array(
    z
      .string({ error: 'each repository must be an id or a full name (owner/name)' })
      .trim()
      .min(1, { error: 'a repository must not be empty' })
      .max(200, { error: 'a repository must be at most 200 characters' }),
    { error: REPOSITORIES_EXPECTED },
  )
  .min(1, { error: 'repositories must name at least one repository, or be null for the repositories its members authored commits in' })
  .max(MAX_TEAM_REPOSITORIES, { error: `repositories takes at most ${MAX_TEAM_REPOSITORIES} repositories` })
  .nullable();

export interface RepositoryName {
  id: string;
  full_name: string;
}

/** A team's repositories as the settings page, tRPC `settings.metrics.teamRepositories` and the CLI show them. */
export interface TeamRepositoriesView {
  organization_id: string;
  team_id: string;
  /** The organization's settings version: every metric answer names the one it was computed under. */
  version: number;
  /** The repositories the team owns, by full name; null: it owns none, and covers `authored`. */
  owned: RepositoryName[] | null;
  /** The repositories its current members authored commits in: what the team covers while it owns none. */
  authored: RepositoryName[];
}

/**
 * The repositories a team owns (docs/metrics.md#what-a-team-covers), set by its organization's admins (tRPC
 * `settings.metrics.setTeamRepositories`) or an operator (`npm run metrics-settings -- team-repos`). Owned, they are
 * exactly what the team's git figures cover; without, the team covers the repositories its members authored commits
 * in. It is a setting of what counts: each change is a new version of the organization's settings, audited as
 * `metric_settings.updated` with the team and its repositories before and after, in one change with the rows
 * (newSettingsVersion), so the figures' cache, keyed by the settings' version, computes the next answer anew.
 */
export class TeamRepositories {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(organizationId: string, teamId: string): Promise<TeamRepositoriesView> {
    const team = await teamIn(organizationId, teamId);
    const settings = await MetricSetting.findByPk(organizationId, { attributes: ['version'] });
    return viewOf(team, settings?.version ?? 0);
  }

  /** Async so that a refused input, checked before any transaction opens, rejects like the rest. */
  async set(organizationId: string, teamId: string, input: unknown, actor: Actor): Promise<TeamRepositoriesView> {
    const parsed = TeamRepositoriesInput.safeParse(input);
    if (!parsed.success) throw invalid(parsed.error.issues.map((issue) => issue.message).join('; '));
    const requested = parsed.data;
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const at = this.now();
      const { applied } = await newSettingsVersion(change, organizationId, actor, at, async (before) => {
        // Locked after the organization: the team's deletion, which takes its rows, comes before or after this change.
        const team = await teamIn(organizationId, teamId, transaction, transaction.LOCK.UPDATE);
        const from = await ownedRepositoryIds(team.id, transaction);
        const to = requested ? await resolve(organizationId, requested, transaction) : [];
        if (sameList(from, to)) return null;
        await own(change, team, from, to, at);
        return { settings: before.settings, details: { team_id: team.id, changed: { repositories: { from: from.length ? from : null, to: to.length ? to : null } } } };
      });
      return viewOf(await teamIn(organizationId, teamId, transaction), applied.version, transaction);
    });
  }
}

/** The team, when it belongs to the organization; a team of another organization is not found. */
async function teamIn(organizationId: string, teamId: string, transaction?: Transaction, lock?: FindOptions['lock']): Promise<Team> {
  const team = await Team.findOne({ where: { id: teamId, organization_id: organizationId }, transaction, lock });
  if (!team) throw notFound(`No team ${teamId} in organization ${organizationId}`);
  return team;
}

async function viewOf(team: Team, version: number, transaction?: Transaction): Promise<TeamRepositoriesView> {
  const [owned, authored] = await Promise.all([
    ownedRepositoryIds(team.id, transaction),
    teamMemberIds(team.id, transaction).then((members) => authoredRepositoryIds(team.organization_id, members, transaction)),
  ]);
  return { organization_id: team.organization_id, team_id: team.id, version, owned: owned.length ? await namesOf(owned, transaction) : null, authored: await namesOf(authored, transaction) };
}

/** The repositories by full name (then id: two connections may hold the same name). */
async function namesOf(ids: string[], transaction?: Transaction): Promise<RepositoryName[]> {
  if (!ids.length) return [];
  const rows = await Repository.findAll({ where: { id: ids }, attributes: ['id', 'full_name'], order: [['full_name', 'ASC'], ['id', 'ASC']], transaction });
  return rows.map((r) => ({ id: r.id, full_name: r.full_name }));
}

/**
 * The organization's repositories the entries name, by id or by full name without regard to case, sorted by id. One
 * hidden after its provider reported it deleted still counts in the figures until erased, so it can be owned; of two
 * of one name, the one in sight is meant, and two in sight (two connections) need their ids. Whatever names no
 * repository of this organization, another organization's included, is refused with what to fix.
 */
export async function resolve(organizationId: string, entries: string[], transaction: Transaction): Promise<string[]> {
  const names = [...new Set(entries.map((e) => e.toLowerCase()))];
  const rows = await Repository.findAll({
    where: { organization_id: organizationId, [Op.or]: [{ id: entries }, where(fn('LOWER', col('full_name')), { [Op.in]: names })] },
    attributes: ['id', 'full_name', 'deleted_at'],
    transaction,
  });
  const ids = new Set<string>();
  const unknown: string[] = [];
  const ambiguous: string[] = [];
  for (const entry of new Set(entries)) {
    const byId = rows.find((r) => r.id === entry);
    const byName = rows.filter((r) => r.full_name.toLowerCase() === entry.toLowerCase());
    const inSight = byName.filter((r) => r.deleted_at === null);
    const meant = byId ? [byId] : byName.length > 1 && inSight.length ? inSight : byName;
    if (meant.length === 1) ids.add(meant[0].id);
    else if (meant.length === 0) unknown.push(entry);
    else ambiguous.push(`${entry} (${meant.map((r) => r.id).join(', ')})`);
  }
  const mistakes = [
    unknown.length ? `No repository ${unknown.join(', ')} in organization ${organizationId}: name its repositories by id or full name (owner/name)` : '',
    ambiguous.length ? `More than one repository is named ${ambiguous.join('; ')}: give the id of the one meant` : '',
  ].filter(Boolean);
  if (mistakes.length) throw invalid(mistakes.join('; '));
  return [...ids].sort();
}

/** The team's rows made those of `to` (none: back to its fallback); a repository it keeps keeps its row. */
async function own(change: Change, team: Team, from: string[], to: string[], at: Date): Promise<void> {
  const { transaction } = change;
  const gone = from.filter((id) => !to.includes(id));
  const added = to.filter((id) => !from.includes(id));
  if (gone.length) await TeamRepository.destroy({ where: { team_id: team.id, repository_id: gone }, transaction });
  if (added.length) {
    await TeamRepository.bulkCreate(
      added.map((repository_id) => ({ team_id: team.id, repository_id, organization_id: team.organization_id, created_at: at })),
      { transaction },
    );
  }
  change.wrote('team_repositories');
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((id, i) => id === b[i]);
