import { Commit, Deployment, GitApp, Incident, PullRequest, PullRequestActivity, Repository } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { conditions } from '../../access/conditions';
import { toGitApp } from '../../resources/integrations';
import { toCommit, toDeployment, toIncident, toPullRequest, toPullRequestActivity, toRepository } from '../../resources/git';
import type { ListSource } from '../../persistence/query/listSource';

/** Commits, pull requests, deployments and incidents carry their git app and organization, so each scope below is one index range. */
export type GitScope = { repositoryId: string } | { gitAppId: string } | { organizationIds: string[] };

function scopeOf(scope: GitScope): Pick<ListSource<unknown>, 'where' | 'partition'> {
  if ('repositoryId' in scope) return { where: { repository_id: scope.repositoryId } };
  if ('gitAppId' in scope) return { where: { git_app_id: scope.gitAppId } };
  return { partition: { column: 'organization_id', values: [...scope.organizationIds].sort() } };
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
    where: { git_app_id: gitAppId },
    toItem: toRepository,
  };
}

export function commits(scope: GitScope): ListSource<ReturnType<typeof toCommit>, Commit> {
  const selection = scopeOf(scope);
  return { model: Commit, ...selection, toItem: toCommit };
}

export function pullRequests(scope: GitScope): ListSource<ReturnType<typeof toPullRequest>, PullRequest> {
  const selection = scopeOf(scope);
  return { model: PullRequest, ...selection, toItem: toPullRequest };
}

/** A pull request's activity, in one range of its (pull request, created_at, id) index. */
export function pullRequestActivity(pullRequestId: string): ListSource<ReturnType<typeof toPullRequestActivity>, PullRequestActivity> {
  return { model: PullRequestActivity, where: { pull_request_id: pullRequestId }, toItem: toPullRequestActivity };
}

export function deployments(scope: GitScope): ListSource<ReturnType<typeof toDeployment>, Deployment> {
  const selection = scopeOf(scope);
  return { model: Deployment, ...selection, toItem: toDeployment };
}

export function incidents(scope: GitScope): ListSource<ReturnType<typeof toIncident>, Incident> {
  const selection = scopeOf(scope);
  return { model: Incident, ...selection, toItem: toIncident };
}
