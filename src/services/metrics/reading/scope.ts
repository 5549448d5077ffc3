import { AuthorRepository, Team, TeamMembership } from '../../../../db/models';
import { conditions } from '../../../access/conditions';

/**
 * What a metric covers (docs/metrics.md): an organization's repositories, tasks and interactions; or a team's: its
 * tasks and interactions, and the repositories its members authored commits in.
 */
export interface MetricScope {
  organizationId: string;
  teamId: string | null;
  /** A team's repositories; null for an organization (all of them). */
  repositoryIds: string[] | null;
  /** A team's members today; null for an organization. */
  memberIds: string[] | null;
}

export const organizationScope = (organizationId: string): MetricScope => ({ organizationId, teamId: null, repositoryIds: null, memberIds: null });

/** Its members today, and the repositories they authored commits in (kept by the commit writer: author_repositories). */
export async function teamScope(team: Team): Promise<MetricScope> {
  const members = (await TeamMembership.findAll({ where: { team_id: team.id, ...conditions.activeMembership }, attributes: ['user_id'] })).map((m) => m.user_id).sort();
  const rows = members.length
    ? await AuthorRepository.findAll({ where: { organization_id: team.organization_id, user_id: members }, attributes: ['repository_id'], group: ['repository_id'] })
    : [];
  return { organizationId: team.organization_id, teamId: team.id, repositoryIds: rows.map((r) => r.repository_id).sort(), memberIds: members };
}

export type ScopedBy = 'repository' | 'task' | 'member' | 'rollup' | 'team_rollup';

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
