import { QueryTypes } from 'sequelize';
import { AuthorRepository, Team } from '../../../db/models';
import { conditions } from '../../access/conditions';

/**
 * What a metric covers (DESIGN §14): an organization's repositories, tasks and interactions; or a team's: its
 * tasks and interactions, and the repositories its members authored commits in.
 */
export interface MetricScope {
  organizationId: string;
  teamId: string | null;
  /** A team's repositories; null for an organization (all of them). */
  repositoryIds: string[] | null;
}

export const organizationScope = (organizationId: string): MetricScope => ({ organizationId, teamId: null, repositoryIds: null });

/** The repositories its active members authored commits in (kept by the commit writer: author_repositories). */
export async function teamScope(team: Team): Promise<MetricScope> {
  const rows = await AuthorRepository.sequelize!.query<{ repository_id: string }>(
    `SELECT DISTINCT ar.repository_id FROM team_memberships tm JOIN author_repositories ar ON ar.user_id = tm.user_id
     WHERE tm.team_id = :team_id AND ${conditions.activeMembershipSql('tm')} AND ar.organization_id = :organization_id`,
    { type: QueryTypes.SELECT, replacements: { team_id: team.id, organization_id: team.organization_id } },
  );
  return { organizationId: team.organization_id, teamId: team.id, repositoryIds: rows.map((r) => r.repository_id).sort() };
}

/**
 * The scope's rows of a table, by what it belongs to: its repository, its team (tasks), or both (interactions);
 * or, for rows of one member (`user_key`: AI usage), the organization's, or those of the team's members today.
 */
export function scopeCondition(scope: MetricScope, alias: string, by: 'repository' | 'task' | 'interaction' | 'member'): string {
  if (by === 'member') {
    const organization = `${alias}.organization_id = :scope_organization_id`;
    if (!scope.teamId) return organization;
    return `${organization} AND ${alias}.user_key IN (SELECT tm.user_id FROM team_memberships tm WHERE tm.team_id = :scope_team_id AND ${conditions.activeMembershipSql('tm')})`;
  }
  if (by === 'task') {
    return scope.teamId ? `${alias}.team_id = :scope_team_id` : `${alias}.team_id IN (SELECT id FROM teams WHERE organization_id = :scope_organization_id)`;
  }
  const organization = `${alias}.organization_id = :scope_organization_id`;
  if (by === 'interaction') return scope.teamId ? `${organization} AND ${alias}.team_id = :scope_team_id` : organization;
  if (!scope.repositoryIds) return organization;
  // The team's repositories are its organization's: the repository alone picks the (repository, …) indexes.
  return scope.repositoryIds.length ? `${alias}.repository_id IN (:scope_repository_ids)` : '1 = 0';
}

export function scopeReplacements(scope: MetricScope): Record<string, unknown> {
  return {
    scope_organization_id: scope.organizationId,
    scope_team_id: scope.teamId,
    scope_repository_ids: scope.repositoryIds?.length ? scope.repositoryIds : null,
  };
}
