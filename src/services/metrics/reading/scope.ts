import type { Transaction } from 'sequelize';
import { AuthorRepository, Team, TeamMembership, TeamRepository } from '../../../../db/models';
import { conditions } from '../../../access/conditions';

/**
 * Which repositories a scope's git figures cover (docs/metrics.md#what-a-team-covers): an organization's are all of
 * them; a team's are those its admins made it own, or without any, those its members authored commits in.
 */
export type RepositoryCoverage = 'all' | 'owned' | 'authored';

/**
 * What a metric covers (docs/metrics.md): an organization's repositories, tasks and interactions; or a team's: its
 * tasks and interactions, and its repositories (`repositories` says which rule chose them).
 */
export interface MetricScope {
  organizationId: string;
  teamId: string | null;
  /** A team's repositories; null for an organization (all of them). */
  repositoryIds: string[] | null;
  /** A team's members today; null for an organization. */
  memberIds: string[] | null;
  repositories: RepositoryCoverage;
}

export const organizationScope = (organizationId: string): MetricScope => ({ organizationId, teamId: null, repositoryIds: null, memberIds: null, repositories: 'all' });

/** Its members today, and the repositories it owns (team_repositories), or without any, those its members authored commits in. */
export async function teamScope(team: Team): Promise<MetricScope> {
  const [members, owned] = await Promise.all([teamMemberIds(team.id), ownedRepositoryIds(team.id)]);
  const base = { organizationId: team.organization_id, teamId: team.id, memberIds: members };
  if (owned.length) return { ...base, repositoryIds: owned, repositories: 'owned' };
  return { ...base, repositoryIds: await authoredRepositoryIds(team.organization_id, members), repositories: 'authored' };
}

export async function teamMemberIds(teamId: string, transaction?: Transaction): Promise<string[]> {
  return (await TeamMembership.findAll({ where: { team_id: teamId, ...conditions.activeMembership }, attributes: ['user_id'], transaction })).map((m) => m.user_id).sort();
}

/** The repositories a team owns, as its organization's admins set them; none: it covers those its members authored commits in. */
export async function ownedRepositoryIds(teamId: string, transaction?: Transaction): Promise<string[]> {
  return (await TeamRepository.findAll({ where: { team_id: teamId }, attributes: ['repository_id'], transaction })).map((r) => r.repository_id).sort();
}

/** The repositories these members authored commits in (kept by the commit writer: author_repositories). */
export async function authoredRepositoryIds(organizationId: string, memberIds: string[], transaction?: Transaction): Promise<string[]> {
  if (!memberIds.length) return [];
  const rows = await AuthorRepository.findAll({ where: { organization_id: organizationId, user_id: memberIds }, attributes: ['repository_id'], group: ['repository_id'], transaction });
  return rows.map((r) => r.repository_id).sort();
}

/**
 * The repositories of groups of the organization's teams (adoptionTiers.ts groups them by tier), each team's by the
 * same rule as `teamScope`: a team with rows in team_repositories has those; another, those its current members
 * authored commits in. `groups` maps each group's number to the placeholder of a bound list of its teams' ids
 * (`:tier_0`), never the ids themselves. Distinct rows (grp, repository_id).
 *
 * The authored ones are asked per repository and group: does any current member of the group's teams without
 * repositories of their own author commits in it? The first such author answers (`LIMIT 1`), so a repository a
 * group works in costs a few lookups, where joining every member's repositories read each of them (at the large
 * organization, 81k (group, member) pairs and 275k of their repositories: 0.75 s, against 0.07 s so). It is a
 * scalar subquery, not `EXISTS`: MariaDB turns an `EXISTS` into a semi-join and materializes the whole join first.
 */
export function groupRepositoriesSql(groups: ReadonlyMap<number, string>): string {
  const active = conditions.activeMembershipSql('m');
  const authored = [...groups].map(
    ([grp, teams]) => `SELECT ${grp} AS grp, r.id AS repository_id FROM repositories r WHERE r.organization_id = :scope_organization_id AND (
        SELECT 1 FROM author_repositories ar JOIN team_memberships m ON m.user_id = ar.user_id AND ${active}
        WHERE ar.repository_id = r.id AND m.team_id IN (${teams}) AND NOT EXISTS (SELECT 1 FROM team_repositories o WHERE o.team_id = m.team_id) LIMIT 1) IS NOT NULL`,
  );
  const owned = [...groups].map(([grp, teams]) => `SELECT ${grp}, o.repository_id FROM team_repositories o WHERE o.organization_id = :scope_organization_id AND o.team_id IN (${teams})`);
  return [...authored, ...owned].join('\n    UNION ');
}

export type ScopedBy = 'repository' | 'incident' | 'task' | 'member' | 'rollup' | 'team_rollup';

/**
 * The scope's rows of a table, by what it belongs to: its repository, or its team (tasks: the team's, or the
 * organization's);
 * or, for rows of one member (`user_key`: AI usage), the organization's, or those of the team's members today.
 */
export function scopeCondition(scope: MetricScope, alias: string, by: ScopedBy): string {
  if (by === 'member') {
    const organization = `${alias}.organization_id = :scope_organization_id`;
    if (!scope.memberIds) return organization;
    // Named, not a subquery: MariaDB then counts each member's rows in the (organization_id, user_key, …) index
    // itself; joined, it trusts a sampled cardinality that, once off (as after a bulk load), made it read the
    // organization's whole year (3 s for the large data's year, against 5 ms).
    return scope.memberIds.length ? `${organization} AND ${alias}.user_key IN (:scope_member_ids)` : '1 = 0';
  }
  // A rollup kept per team and per organization under one key (`scope_id`: interaction_days).
  if (by === 'team_rollup') return scope.teamId ? `${alias}.scope_id = :scope_team_id` : `${alias}.scope_id = :scope_organization_id`;
  // A rollup kept per repository and per organization under one key (`scope_id`: commit_days).
  if (by === 'rollup') return scope.repositoryIds ? (scope.repositoryIds.length ? `${alias}.scope_id IN (:scope_repository_ids)` : '1 = 0') : `${alias}.scope_id = :scope_organization_id`;
  if (by === 'task') return scope.teamId ? `${alias}.team_id = :scope_team_id` : `${alias}.organization_id = :scope_organization_id`;
  // An incident belongs to each repository its board is mapped to (incident_repositories): a team's or a repository's
  // counts it once when it belongs to any of theirs; the organization's, once.
  if (by === 'incident' && scope.repositoryIds) {
    return scope.repositoryIds.length ? `${alias}.id IN (SELECT ir.incident_id FROM incident_repositories ir WHERE ir.repository_id IN (:scope_repository_ids))` : '1 = 0';
  }
  const organization = `${alias}.organization_id = :scope_organization_id`;
  if (!scope.repositoryIds) return organization;
  // The team's repositories are its organization's: the repository alone picks the (repository, …) indexes.
  return scope.repositoryIds.length ? `${alias}.repository_id IN (:scope_repository_ids)` : '1 = 0';
}

export function scopeReplacements(scope: MetricScope): Record<string, unknown> {
  return {
    scope_organization_id: scope.organizationId,
    scope_team_id: scope.teamId,
    scope_repository_ids: scope.repositoryIds?.length ? scope.repositoryIds : null,
    scope_member_ids: scope.memberIds?.length ? scope.memberIds : null,
  };
}
