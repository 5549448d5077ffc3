import { literal, Op } from 'sequelize';
import { DomainError, forbidden, invalid, resourceNotFound } from '../errors';
import { DashboardView, GitApp, Organization, PullRequest, Repository, Team } from '../../db/models';
import type { Principal } from './principal';
import { rules } from './rules';
import { activeTeamIdsOf, userTarget, UserTarget } from './userTargets';

export type { UserTarget };

/** The `pull_request` row a query reads belongs to a repository in sight (not deleted at its provider: docs/ingest.md#a-deleted-repository). */
const IN_SIGHT_REPOSITORY = literal('EXISTS (SELECT 1 FROM repositories r WHERE r.id = `pull_request`.repository_id AND r.deleted_at IS NULL)');

/**
 * Loads an addressed resource and applies the rules in the order of docs/api.md#wire-rules: existence (404) before
 * access (403). Procedures call these; they never look up a parent and decide access themselves.
 */
export const guard = {
  async user(p: Principal, userId: string): Promise<UserTarget> {
    const target = await userTarget(userId);
    if (!target) throw resourceNotFound('user');
    if (!rules.canAccessUser(p, userId, target.organizationIds)) throw forbidden('user');
    return target;
  },

  async organization(p: Principal, organizationId: string): Promise<Organization> {
    const organization = await Organization.findByPk(organizationId);
    if (!organization) throw resourceNotFound('organization');
    if (!rules.canAccessOrganization(p, organizationId)) throw forbidden('organization');
    return organization;
  },

  /** The Metrics API's organization scope (docs/metrics.md): as the organization, and no team-scoped token. */
  async organizationMetrics(p: Principal, organizationId: string): Promise<Organization> {
    const organization = await guard.organization(p, organizationId);
    if (!rules.canReadOrganizationMetrics(p, organizationId)) throw forbidden('organization');
    return organization;
  },

  /** Settings and audit log of an organization: 404 when it does not exist, 403 for anyone but its admins. */
  async organizationAdministration(p: Principal, organizationId: string): Promise<Organization> {
    const organization = await guard.organization(p, organizationId);
    if (!rules.canAdministerOrganization(p, organizationId)) throw forbidden('organization');
    return organization;
  },

  /** Money: after the scope's own 404 and 403, for the organization's admins only. */
  financialMetrics(p: Principal, organizationId: string): void {
    if (!rules.canReadFinancialMetrics(p, organizationId)) throw new DomainError('forbidden', "Financial metrics are for the organization's admins");
  },

  async organizationTelemetry(p: Principal, organizationId: string): Promise<Organization> {
    const organization = await guard.organization(p, organizationId);
    if (!rules.canReadOrganizationTelemetry(p, organizationId)) throw forbidden('organization');
    return organization;
  },

  async team(p: Principal, teamId: string): Promise<Team> {
    const team = await Team.findByPk(teamId);
    if (!team) throw resourceNotFound('team');
    if (!rules.canAccessTeam(p, team)) throw forbidden('team');
    return team;
  },

  /** Team interactions are for the organization's admins and the team's managers. */
  async teamInteractions(p: Principal, teamId: string): Promise<Team> {
    const team = await guard.team(p, teamId);
    if (!rules.canReadTeamInteractions(p, team)) throw forbidden('team');
    return team;
  },

  async gitApp(p: Principal, gitAppId: string): Promise<GitApp> {
    const gitApp = await GitApp.findByPk(gitAppId);
    if (!gitApp) throw resourceNotFound('gitApp');
    if (!rules.canAccessOrganization(p, gitApp.organization_id)) throw forbidden('gitApp');
    return gitApp;
  },

  /** A repository addressed under its git app: one of another git app is not found here. */
  async repository(p: Principal, gitAppId: string, repositoryId: string): Promise<Repository> {
    await guard.gitApp(p, gitAppId);
    // One its provider reported deleted is hidden until erased or restored (docs/ingest.md#a-deleted-repository).
    const repository = await Repository.findOne({ where: { id: repositoryId, git_app_id: gitAppId, deleted_at: null } });
    if (!repository) throw resourceNotFound('repository');
    return repository;
  },

  /** A pull request addressed under its git app and repository (`all`: any repository of the git app). */
  async pullRequest(p: Principal, gitAppId: string, repositoryId: string, pullRequestId: string): Promise<PullRequest> {
    await guard.gitApp(p, gitAppId);
    const where = repositoryId === 'all' ? { id: pullRequestId, git_app_id: gitAppId } : { id: pullRequestId, git_app_id: gitAppId, repository_id: repositoryId };
    // A hidden repository's pull requests are hidden with it: asked in the same statement.
    const pullRequest = await PullRequest.findOne({ where: { ...where, [Op.and]: [IN_SIGHT_REPOSITORY] }, attributes: ['id', 'repository_id'] });
    if (!pullRequest) throw resourceNotFound('pullRequest');
    return pullRequest;
  },

  async dashboardView(p: Principal, viewId: string): Promise<DashboardView> {
    const view = await DashboardView.findByPk(viewId);
    if (!view) throw resourceNotFound('dashboardView');
    if (!rules.canSeeDashboardView(p, view)) throw forbidden('dashboardView');
    return view;
  },

  /** A view its owner changes: 404/403 as for reading it, then 403 for anyone but its owner. */
  async ownDashboardView(p: Principal, viewId: string): Promise<DashboardView> {
    const view = await guard.dashboardView(p, viewId);
    if (!rules.canChangeDashboardView(p, view)) throw new DomainError('forbidden', 'Only the owner of a dashboard view can change it');
    return view;
  },

  /** Where a new or re-shared view goes: an organization the caller reads, and a team of it they are in (or administer). */
  async dashboardViewPlace(p: Principal, place: { organizationId: string; teamId: string | null; forAdmins: boolean }): Promise<void> {
    await guard.organizationMetrics(p, place.organizationId);
    if (place.forAdmins) guard.financialMetrics(p, place.organizationId);
    if (place.teamId === null) return;
    const team = await guard.team(p, place.teamId);
    if (team.organization_id !== place.organizationId) throw invalid(`Team ${team.id} is not a team of organization ${place.organizationId}`);
    if (!rules.canShareDashboardViewWithTeam(p, team)) throw new DomainError('forbidden', `A view can be shared with a team you are in; you are not in ${team.name}`);
  },

  /** Personal data of a user: 403 unless the caller is the user, an admin over them, or (interactions) their manager. */
  async personalData(
    p: Principal,
    userId: string,
    kind: Parameters<typeof rules.personalDataScope>[2],
  ): Promise<UserTarget & { scope: ReturnType<typeof rules.personalDataScope> }> {
    const target = await guard.user(p, userId);
    const teamIds = kind === 'interactions' && userId !== p.userId ? await activeTeamIdsOf(userId) : [];
    const scope = rules.personalDataScope(p, { userId, organizationIds: target.organizationIds, teamIds }, kind);
    if (userId !== p.userId && scope.organizationIds.length === 0 && scope.managedTeamIds.length === 0) {
      throw forbidden('user');
    }
    return { ...target, scope };
  },
};
