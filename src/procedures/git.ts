import { guard } from '../access/guard';
import { rules } from '../access/rules';
import { router } from './init';
import * as scopes from '../services/git/gitScopes';
import { GitAppResource } from '../resources/integrations';
import { CommitResource, DeploymentResource, IncidentResource, PullRequestActivityResource, PullRequestResource, RepositoryResource } from '../resources/git';
import { idParam } from '../wire/query';
import { listEndpoint } from './endpoint';

const tag = 'Git';
const gitAppParams = { id: idParam('id', 'git app') };
const repositoryParams = { ...gitAppParams, repo: idParam('repo', 'repository') };

export const gitRouter = router({
  apps: listEndpoint({
    path: '/git/apps',
    operationId: 'listGitApps',
    tag,
    summary: 'List git apps',
    description: 'Git integrations of every organization the caller can access.',
    resource: GitAppResource,
    source: async (ctx) => scopes.accessibleGitApps(ctx.principal),
  }),

  repositories: listEndpoint({
    path: '/git/apps/{id}/repositories',
    operationId: 'listGitAppRepositories',
    tag,
    summary: 'List repositories of a git app',
    description: 'Repositories of the git app.',
    resource: RepositoryResource,
    params: gitAppParams,
    source: async (ctx, { id }) => {
      await guard.gitApp(ctx.principal, id);
      return scopes.gitAppRepositories(id);
    },
  }),

  // `all` is a literal path segment: these two are registered before their `{repo}` siblings.
  allCommits: listEndpoint({
    path: '/git/apps/{id}/repositories/all/commits',
    operationId: 'listGitAppCommits',
    tag,
    summary: 'List commits of every repository of a git app',
    description: 'Commits across all repositories of the git app.',
    resource: CommitResource,
    params: gitAppParams,
    source: async (ctx, { id }) => {
      await guard.gitApp(ctx.principal, id);
      return scopes.commits({ gitAppId: id });
    },
  }),

  allPullRequests: listEndpoint({
    path: '/git/apps/{id}/repositories/all/pull-requests',
    operationId: 'listGitAppPullRequests',
    tag,
    summary: 'List pull requests of every repository of a git app',
    description: 'Pull requests across all repositories of the git app.',
    resource: PullRequestResource,
    params: gitAppParams,
    source: async (ctx, { id }) => {
      await guard.gitApp(ctx.principal, id);
      return scopes.pullRequests({ gitAppId: id });
    },
  }),

  allDeployments: listEndpoint({
    path: '/git/apps/{id}/repositories/all/deployments',
    operationId: 'listGitAppDeployments',
    tag,
    summary: 'List deployments of every repository of a git app',
    description: 'Deployments across all repositories of the git app, as GitHub deployment statuses and GitLab deployment events reported them.',
    resource: DeploymentResource,
    params: gitAppParams,
    source: async (ctx, { id }) => {
      await guard.gitApp(ctx.principal, id);
      return scopes.deployments({ gitAppId: id });
    },
  }),

  allIncidents: listEndpoint({
    path: '/git/apps/{id}/repositories/all/incidents',
    operationId: 'listGitAppIncidents',
    tag,
    summary: 'List incidents of every repository of a git app',
    description: "Incidents across all repositories of the git app: issues labelled 'incident'.",
    resource: IncidentResource,
    params: gitAppParams,
    source: async (ctx, { id }) => {
      await guard.gitApp(ctx.principal, id);
      return scopes.incidents({ gitAppId: id });
    },
  }),

  commits: listEndpoint({
    path: '/git/apps/{id}/repositories/{repo}/commits',
    operationId: 'listRepositoryCommits',
    tag,
    summary: 'List commits of a repository',
    description: 'Commits of one repository of the git app. `all` in place of the repository id lists every repository.',
    resource: CommitResource,
    params: repositoryParams,
    source: async (ctx, { id, repo }) => {
      await guard.repository(ctx.principal, id, repo);
      return scopes.commits({ repositoryId: repo });
    },
  }),

  pullRequests: listEndpoint({
    path: '/git/apps/{id}/repositories/{repo}/pull-requests',
    operationId: 'listRepositoryPullRequests',
    tag,
    summary: 'List pull requests of a repository',
    description: 'Pull requests of one repository of the git app. `all` in place of the repository id lists every repository.',
    resource: PullRequestResource,
    params: repositoryParams,
    source: async (ctx, { id, repo }) => {
      await guard.repository(ctx.principal, id, repo);
      return scopes.pullRequests({ repositoryId: repo });
    },
  }),

  pullRequestActivity: listEndpoint({
    path: '/git/apps/{id}/repositories/{repo}/pull-requests/{pr}/activity',
    operationId: 'listPullRequestActivity',
    tag,
    summary: 'List the activity of a pull request',
    description:
      'Reviews, approvals, comments and pushed commits on one pull request, as GitHub and GitLab reported them. `all` in place of the repository id finds the pull request in any repository of the git app.',
    resource: PullRequestActivityResource,
    params: { ...repositoryParams, pr: idParam('pr', 'pull request') },
    source: async (ctx, { id, repo, pr }) => {
      await guard.pullRequest(ctx.principal, id, repo, pr);
      return scopes.pullRequestActivity(pr);
    },
  }),

  deployments: listEndpoint({
    path: '/git/apps/{id}/repositories/{repo}/deployments',
    operationId: 'listRepositoryDeployments',
    tag,
    summary: 'List deployments of a repository',
    description:
      'Deployments of one repository: a success or failure per provider deployment, of `sha` to `environment`. `all` in place of the repository id lists every repository.',
    resource: DeploymentResource,
    params: repositoryParams,
    source: async (ctx, { id, repo }) => {
      await guard.repository(ctx.principal, id, repo);
      return scopes.deployments({ repositoryId: repo });
    },
  }),

  incidents: listEndpoint({
    path: '/git/apps/{id}/repositories/{repo}/incidents',
    operationId: 'listRepositoryIncidents',
    tag,
    summary: 'List incidents of a repository',
    description:
      "Incidents of one repository: its issues labelled 'incident' (resolved when closed) and those of every incident tool's service or deployments board mapped to it. An incident of a service mapped to several repositories is listed under each; its `repository_id` names the first. `all` in place of the repository id lists every repository, each incident once.",
    resource: IncidentResource,
    params: repositoryParams,
    source: async (ctx, { id, repo }) => {
      await guard.repository(ctx.principal, id, repo);
      return scopes.incidents({ repositoryId: repo });
    },
  }),
});

export const commitsEndpoint = listEndpoint({
  path: '/commits',
  operationId: 'listCommits',
  tag,
  summary: 'List commits',
  description: 'Commits across every repository of every organization the caller can access. Filter by created_at.',
  resource: CommitResource,
  source: async (ctx) => scopes.commits({ organizationIds: rules.accessibleOrganizationIds(ctx.principal) }),
});
