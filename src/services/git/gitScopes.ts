import { Commit, Deployment, GitApp, Incident, PullRequest, Repository } from '../../../db/models';
import type { Principal } from '../../access/principal';
import { rules } from '../../access/rules';
import { conditions } from '../../access/conditions';
import { toGitApp } from '../../resources/integrations';
import { toCommit, toDeployment, toIncident, toPullRequest, toRepository } from '../../resources/git';
import type { ListSource } from '../query/listing';

/** Commits, pull requests, deployments and incidents carry their git app and organization, so each scope below is one index range. */
export type GitScope = { repositoryId: string } | { gitAppId: string } | { organizationIds: string[] };

function scopeOf(scope: GitScope): Pick<ListSource<unknown>, 'where' | 'partition'> & { key: string } {
  if ('repositoryId' in scope) return { where: { repository_id: scope.repositoryId }, key: `repo:${scope.repositoryId}` };
  if ('gitAppId' in scope) return { where: { git_app_id: scope.gitAppId }, key: `gapp:${scope.gitAppId}` };
  const ids = [...scope.organizationIds].sort();
  return { partition: { column: 'organization_id', values: ids }, key: `orgs:${ids.join(',')}` };
}

export function accessibleGitApps(p: Principal): ListSource<ReturnType<typeof toGitApp>> {
  const ids = rules.accessibleOrganizationIds(p);
  return {
    model: GitApp,
    where: conditions.accessibleOrganizations(p),
    toItem: (row) => toGitApp(row as GitApp),
    countKey: `git-apps|${[...ids].sort().join(',')}`,
  };
}

export function gitAppRepositories(gitAppId: string): ListSource<ReturnType<typeof toRepository>> {
  return {
    model: Repository,
    where: { git_app_id: gitAppId },
    toItem: (row) => toRepository(row as Repository),
    countKey: `repositories|${gitAppId}`,
  };
}

export function commits(scope: GitScope): ListSource<ReturnType<typeof toCommit>> {
  const { key, ...selection } = scopeOf(scope);
  return { model: Commit, ...selection, toItem: (row) => toCommit(row as Commit), countKey: `commits|${key}` };
}

export function pullRequests(scope: GitScope): ListSource<ReturnType<typeof toPullRequest>> {
  const { key, ...selection } = scopeOf(scope);
  return { model: PullRequest, ...selection, toItem: (row) => toPullRequest(row as PullRequest), countKey: `pull-requests|${key}` };
}

export function deployments(scope: GitScope): ListSource<ReturnType<typeof toDeployment>> {
  const { key, ...selection } = scopeOf(scope);
  return { model: Deployment, ...selection, toItem: (row) => toDeployment(row as Deployment), countKey: `deployments|${key}` };
}

export function incidents(scope: GitScope): ListSource<ReturnType<typeof toIncident>> {
  const { key, ...selection } = scopeOf(scope);
  return { model: Incident, ...selection, toItem: (row) => toIncident(row as Incident), countKey: `incidents|${key}` };
}
