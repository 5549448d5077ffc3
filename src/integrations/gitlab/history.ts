/**
 * GitLab's history from its REST API (README.md#history, docs/history.md): the projects the token reads, and each
 * one's merge requests with their notes and approvals, deployments, and issues (tasks, or incidents), read newest
 * first down to the window's start and translated as the hooks' deliveries are.
 */
import { ProviderFailure } from '../../outbound/providerHttp';
import type { HistoryKind, HistoryPage, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from '../../services/history/historySource';
import { GITLAB_API, GitlabApi, gitlabApi, GitlabNotFound, PER_PAGE } from './historyApi';
import { deploymentActivity, issueItem, projectRepository, read } from './historyItems';
import { updatedListing } from './historyListing';
import { mergeRequestPages } from './historyMergeRequests';
import { z } from 'zod';

const listedProject = z.looseObject({ id: z.number().int(), path_with_namespace: z.string() });

export const gitlabHistory: HistorySource = {
  defaultBaseUrl: GITLAB_API,
  scopeNoun: 'projects',
  kinds: ['pull_requests', 'deployments', 'issues'],

  async scopes(reading: HistoryReading, only?: readonly string[]): Promise<HistoryScope[]> {
    const api = await gitlabApi(reading, 'projects');
    if (only?.length) return namedProjects(api, only);
    const scopes: HistoryScope[] = [];
    // By id after the last one seen: never a deep offset, which GitLab caps (50,000 projects).
    for (let after = 0, more = true; more; ) {
      const answer = await api.projects.all({ membership: true, simple: true, orderBy: 'id', sort: 'asc', idAfter: after, pagination: 'offset', page: 1, perPage: PER_PAGE, showExpanded: true });
      for (const item of answer.data) {
        const p = read(listedProject, item, 'GitLab projects: a project');
        scopes.push({ key: String(p.id), name: p.path_with_namespace });
        after = p.id;
      }
      more = answer.paginationInfo.next !== null && answer.data.length > 0;
    }
    return scopes;
  },

  async *pages(reading: HistoryReading, scope: HistoryScope, kind: HistoryKind, window: HistoryWindow, cursor: string | null): AsyncGenerator<HistoryPage> {
    const api = await gitlabApi(reading, scope.name);
    const project = await readProject(api, scope);
    switch (kind) {
      case 'pull_requests':
        yield* mergeRequestPages(api, project, window, cursor);
        return;
      case 'deployments': {
        const listing = updatedListing((query) => api.deployments.all(project.id, query), window, cursor, `GitLab ${scope.name}: deployments`);
        for await (const page of listing) {
          const activities = page.items.flatMap((item) => deploymentActivity(item, project.hookProject, `GitLab ${scope.name}: a deployment`) ?? []);
          yield { read: page.read, activities, next: page.next };
        }
        return;
      }
      case 'issues': {
        const listing = updatedListing((query) => api.issues.all({ projectId: project.id, ...query }), window, cursor, `GitLab ${scope.name}: issues`);
        for await (const page of listing) {
          const items = page.items.map((item) => issueItem(item, project.hookProject, `GitLab ${scope.name}: an issue`));
          yield { read: page.read, activities: items.flatMap((i) => ('activity' in i ? [i.activity] : [])), tasks: items.flatMap((i) => ('tasks' in i ? i.tasks : [])), next: page.next };
        }
        return;
      }
      default:
        throw new ProviderFailure(`GitLab ${scope.name}: GitLab has no ${kind} history`);
    }
  },
};

/** The projects named (`--repos`: a path such as `group/project`, or an id), each once, in the order given. */
async function namedProjects(api: GitlabApi, names: readonly string[]): Promise<HistoryScope[]> {
  const scopes: HistoryScope[] = [];
  for (const name of names) {
    let found: unknown;
    try {
      found = await api.projects.show(name);
    } catch (err) {
      if (err instanceof GitlabNotFound) throw new ProviderFailure(`GitLab: no project ${name} that the token can read`);
      throw err;
    }
    const p = read(listedProject, found, `GitLab project ${name}`);
    if (!scopes.some((s) => s.key === String(p.id))) scopes.push({ key: String(p.id), name: p.path_with_namespace });
  }
  return scopes;
}

/** The scope's project, as its hooks name it (its visibility, its default branch). */
async function readProject(api: GitlabApi, scope: HistoryScope) {
  let found: unknown;
  try {
    found = await api.projects.show(scope.key);
  } catch (err) {
    if (err instanceof GitlabNotFound) throw new ProviderFailure(`GitLab ${scope.name}: the token no longer reads this project (or it is gone)`);
    throw err;
  }
  const { ref, hookProject } = projectRepository(found, `GitLab ${scope.name}`);
  return { id: Number(scope.key), name: scope.name, repository: ref, hookProject };
}
