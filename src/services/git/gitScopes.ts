import { literal, Op, WhereOptions } from 'sequelize';
import { Commit, Deployment, GitApp, Incident, IncidentRepository, PullRequest, PullRequestActivity, Repository } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { conditions } from '../../access/conditions';
import { toGitApp } from '../../resources/integrations';
import { toCommit, toDeployment, toIncident, toPullRequest, toPullRequestActivity, toRepository } from '../../resources/git';
import type { ListSource } from '../../persistence/query/listSource';
import { hiddenRepositoryIds } from './repositories/deletedRepositories';

/** Commits, pull requests, deployments and incidents carry their git app and organization, so each scope below is one index range. */
export type GitScope = { repositoryId: string } | { gitAppId: string } | { organizationIds: string[] };

/**
 * A list of a git app's or of organizations' rows leaves out those of their hidden repositories (deleted at the
 * provider and in their grace: docs/ingest.md#a-deleted-repository), named in its condition so the count cache tells
 * the two lists apart. They are read once per version of the repositories table (hiddenRepositoryIds); most of the
 * time there are none, and the list is read as it always was. A repository's own list needs no such condition: the guard refused a hidden one.
 */
async function scopeOf(scope: GitScope): Promise<Pick<ListSource<unknown>, 'where' | 'partition'>> {
  if ('repositoryId' in scope) return { where: { repository_id: scope.repositoryId } };
  const owner = 'gitAppId' in scope ? { git_app_id: scope.gitAppId } : { organization_id: scope.organizationIds };
  const hidden = await hiddenRepositoryIds(owner);
  // Deployments and incidents an app brought may name no repository: those stay.
  const visible: WhereOptions = hidden.length ? { [Op.or]: [{ repository_id: null }, { repository_id: { [Op.notIn]: hidden } }] } : {};
  if ('gitAppId' in scope) return { where: { git_app_id: scope.gitAppId, ...visible } };
  return { partition: { column: 'organization_id', values: [...scope.organizationIds].sort() }, ...(hidden.length ? { where: visible } : {}) };
}

export function accessibleGitApps(p: Principal): ListSource<ReturnType<typeof toGitApp>, GitApp> {
  return {
    model: GitApp,
    where: conditions.accessibleOrganizations(p),
    toItem: toGitApp,
  };
}

export function gitAppRepositories(gitAppId: string): ListSource<ReturnType<typeof toRepository>, Repository> {
  return {
    model: Repository,
    where: { git_app_id: gitAppId, deleted_at: null },
    toItem: toRepository,
  };
}

export async function commits(scope: GitScope): Promise<ListSource<ReturnType<typeof toCommit>, Commit>> {
  const selection = await scopeOf(scope);
  return { model: Commit, ...selection, toItem: toCommit };
}

export async function pullRequests(scope: GitScope): Promise<ListSource<ReturnType<typeof toPullRequest>, PullRequest>> {
  const selection = await scopeOf(scope);
  return { model: PullRequest, ...selection, toItem: toPullRequest };
}

/** A pull request's activity, in one range of its (pull request, created_at, id) index. */
export function pullRequestActivity(pullRequestId: string): ListSource<ReturnType<typeof toPullRequestActivity>, PullRequestActivity> {
  return { model: PullRequestActivity, where: { pull_request_id: pullRequestId }, toItem: toPullRequestActivity };
}

export async function deployments(scope: GitScope): Promise<ListSource<ReturnType<typeof toDeployment>, Deployment>> {
  const selection = await scopeOf(scope);
  return { model: Deployment, ...selection, toItem: toDeployment };
}

/**
 * A repository's incidents are every one that belongs to it (incident_repositories): an incident of a service mapped
 * to several repositories is listed under each, as each one's figures count it, not only under the first its
 * `repository_id` names. A repository has few incidents, so sorting them is a short read.
 */
export async function incidents(scope: GitScope): Promise<ListSource<ReturnType<typeof toIncident>, Incident>> {
  if ('repositoryId' in scope) {
    return {
      model: Incident,
      where: { id: { [Op.in]: literal('(SELECT ir.incident_id FROM incident_repositories ir WHERE ir.repository_id = :repositoryId)') } },
      replacements: { repositoryId: scope.repositoryId },
      alsoReads: [IncidentRepository],
      toItem: toIncident,
    };
  }
  const selection = await scopeOf(scope);
  return { model: Incident, ...selection, toItem: toIncident };
}
