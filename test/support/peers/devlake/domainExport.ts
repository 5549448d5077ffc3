import { Commit, Deployment, Incident, PullRequest, Repository } from '../../../../db/models';
import type {
  BoardIssueRow,
  CommitParentRow,
  CommitsDiffRow,
  DeploymentCommitRow,
  DomainRows,
  IncidentDeploymentRow,
  IncidentRow,
  IssueRow,
  PrMetricRow,
  ProjectMapping,
  PullRequestCommitRow,
  PullRequestRow,
} from './domainTables';

/**
 * An organization's git history, deployments and incidents as Apache DevLake's domain layer would hold them
 * (apache/incubator-devlake@420e494b), for its DORA dashboard to read (test/metrics/devlakeDora.test.ts).
 *
 * Converted as DevLake's GitHub plugins convert what GitHub says: a repository is the project's repo, its CI/CD
 * scope and its board at once, under one id; a deployment is one cicd_deployment_commits row, its own
 * cicd_deployment_id (github_graphql/tasks/deployment_convertor.go), PRODUCTION when the organization counts its
 * environment as production (DevLake's production pattern does the same to the name); an incident is an issue of type
 * INCIDENT on the repository's board, its lead_time_minutes the whole minutes from opened to closed
 * (github/tasks/issue_extractor.go). Incidents and deployments of no repository are left out: DevLake has no project
 * to place them in.
 *
 * Two things DevLake reads are not kept here and come from the history's author: each pull request's commits (DevLake's
 * collector lists them from the API; we keep a pull request's head and merge commits only) and the commits' parents,
 * the history being one linear branch (each commit's parent is the repository's commit before it).
 *
 * The columns DevLake derives are derived here by the same steps as its tasks, each function naming the file it
 * follows: the previous successful deployment (dora/tasks/prev_deployment_commit_enricher.go), the commits each
 * deployment adds (refdiff/tasks/deployment_commit_diff_calculator.go), each pull request's cycle time and deployment
 * (dora/tasks/change_lead_time_calculator.go), incidents from issues (dora/tasks/incident_from_issue_generator.go) and
 * the deployment an incident is blamed on (dora/tasks/incident_deploy_connector.go).
 */
export interface ExportInput {
  organizationId: string;
  project: string;
  /** Each pull request's commits by its number, as its provider lists them. */
  pullRequestCommits: Record<number, string[]>;
  /** Whether the organization counts an environment as production. */
  production: (environment: string) => boolean;
}

const PRODUCTION = 'PRODUCTION';
const repoId = (id: string) => `github:GithubRepo:1:${id}`;

export async function exportToDevlake(input: ExportInput): Promise<DomainRows> {
  const where = { where: { organization_id: input.organizationId } };
  const [repositories, commits, pullRequests, deployments, incidents] = await Promise.all([
    Repository.findAll(where),
    Commit.findAll({ ...where, order: [['created_at', 'ASC']] }),
    PullRequest.findAll(where),
    Deployment.findAll(where),
    Incident.findAll(where),
  ]);
  const urls = new Map(repositories.map((r) => [r.id, `https://github.com/${r.full_name}`]));
  const project_mapping: ProjectMapping[] = repositories.flatMap((r) =>
    (['repos', 'cicd_scopes', 'boards'] as const).map((table) => ({ project_name: input.project, table, row_id: repoId(r.id) })),
  );

  const commit_parents: CommitParentRow[] = [];
  for (const repository of repositories) {
    const line = commits.filter((c) => c.repository_id === repository.id);
    for (let i = 1; i < line.length; i++) commit_parents.push({ commit_sha: line[i].sha, parent_commit_sha: line[i - 1].sha });
  }

  const authored = new Map(commits.map((c) => [c.sha, c]));
  const pull_requests: PullRequestRow[] = pullRequests.map((p) => ({
    id: `github:GithubPullRequest:1:${p.id}`,
    base_repo_id: repoId(p.repository_id),
    head_repo_id: repoId(p.repository_id),
    status: p.state === 'merged' ? 'MERGED' : p.state === 'closed' ? 'CLOSED' : 'OPEN',
    original_status: p.state,
    title: p.title,
    pull_request_key: p.number,
    created_date: p.created_at,
    merged_date: p.merged_at,
    closed_date: p.closed_at,
    merge_commit_sha: p.merge_commit_sha ?? '',
    head_commit_sha: p.head_sha ?? '',
    author_id: p.author_id ?? '',
  }));
  const pull_request_commits: PullRequestCommitRow[] = pullRequests.flatMap((p) =>
    (input.pullRequestCommits[p.number] ?? []).map((sha) => {
      const commit = authored.get(sha);
      if (!commit) throw new Error(`pull request #${p.number} lists ${sha}, a commit the organization does not have`);
      return { commit_sha: sha, pull_request_id: `github:GithubPullRequest:1:${p.id}`, commit_author_name: commit.author_name, commit_authored_date: commit.created_at };
    }),
  );

  const cicd_deployment_commits: DeploymentCommitRow[] = deployments.flatMap((d) => {
    if (!d.repository_id) return [];
    const id = `github:GithubDeployment:1:${d.id}`;
    return [
      {
        id,
        cicd_scope_id: repoId(d.repository_id),
        cicd_deployment_id: id,
        name: d.sha,
        result: d.status === 'success' ? 'SUCCESS' : 'FAILURE',
        status: 'DONE',
        original_status: d.status,
        environment: input.production(d.environment) ? PRODUCTION : d.environment,
        original_environment: d.environment,
        created_date: d.created_at,
        started_date: d.created_at,
        finished_date: d.finished_at,
        commit_sha: d.sha,
        repo_id: repoId(d.repository_id),
        repo_url: urls.get(d.repository_id)!,
        prev_success_deployment_commit_id: '',
      },
    ];
  });

  const issues: IssueRow[] = [];
  const board_issues: BoardIssueRow[] = [];
  for (const i of incidents) {
    if (!i.repository_id) continue;
    const id = `github:GithubIssue:1:${i.id}`;
    issues.push({
      id,
      issue_key: i.external_id,
      title: i.title,
      type: 'INCIDENT',
      status: i.resolved_at ? 'DONE' : 'TODO',
      original_status: i.resolved_at ? 'closed' : 'open',
      created_date: i.created_at,
      resolution_date: i.resolved_at,
      updated_date: i.resolved_at ?? i.created_at,
      // uint(ClosedAt.Sub(CreatedAt).Minutes()): whole minutes, the rest dropped.
      lead_time_minutes: i.resolved_at ? Math.trunc((i.resolved_at.getTime() - i.created_at.getTime()) / 60_000) : null,
    });
    board_issues.push({ board_id: repoId(i.repository_id), issue_id: id });
  }

  enrichPrevSuccessDeployments(cicd_deployment_commits, project_mapping, input.project);
  const commits_diffs = deploymentCommitsDiffs(cicd_deployment_commits, commit_parents, project_mapping, input.project);
  const project_pr_metrics = changeLeadTimes({ pull_requests, pull_request_commits, cicd_deployment_commits, commits_diffs, project_mapping }, input.project);
  const incidentRows = incidentsFromIssues(issues, board_issues, project_mapping, input.project);
  const project_incident_deployment_relationships = incidentDeployments(incidentRows, cicd_deployment_commits, project_mapping, input.project);
  return {
    project_mapping,
    pull_requests,
    pull_request_commits,
    commit_parents,
    commits_diffs,
    cicd_deployment_commits,
    project_pr_metrics,
    issues,
    board_issues,
    incidents: incidentRows,
    project_incident_deployment_relationships,
  };
}

const mapped = (mapping: ProjectMapping[], project: string, table: ProjectMapping['table']) =>
  new Set(mapping.filter((m) => m.project_name === project && m.table === table).map((m) => m.row_id));

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * dora/tasks/prev_deployment_commit_enricher.go: the project's successful deployment commits with a finish, an
 * environment and a repository url, ordered by scope, repository url, environment and finish; each takes the one
 * before it in the same scope, repository and environment as its previous success ('' for the first).
 */
export function enrichPrevSuccessDeployments(rows: DeploymentCommitRow[], mapping: ProjectMapping[], project: string): void {
  const scopes = mapped(mapping, project, 'cicd_scopes');
  const successful = rows
    .filter((dc) => dc.finished_date && dc.environment && dc.repo_url && dc.result === 'SUCCESS' && scopes.has(dc.cicd_scope_id))
    .sort(
      (a, b) =>
        compare(a.cicd_scope_id, b.cicd_scope_id) ||
        compare(a.repo_url, b.repo_url) ||
        compare(a.environment, b.environment) ||
        compare(a.finished_date.getTime(), b.finished_date.getTime()),
    );
  let previous: DeploymentCommitRow | null = null;
  for (const dc of successful) {
    const sameSet = previous && previous.cicd_scope_id === dc.cicd_scope_id && previous.repo_url === dc.repo_url && previous.environment === dc.environment;
    dc.prev_success_deployment_commit_id = sameSet ? previous!.id : '';
    previous = dc;
  }
}

/**
 * refdiff/tasks/deployment_commit_diff_calculator.go: for each deployment commit of the project, paired with its
 * previous success's commit ('' without one), the commits reachable from the new one and not from the old one
 * (refdiff/utils/commit_node_graph.go, CalculateLostSha: a depth-first walk of the parents), each pair once.
 */
export function deploymentCommitsDiffs(rows: DeploymentCommitRow[], parents: CommitParentRow[], mapping: ProjectMapping[], project: string): CommitsDiffRow[] {
  const scopes = mapped(mapping, project, 'cicd_scopes');
  const byId = new Map(rows.map((dc) => [dc.id, dc]));
  const graph = new Map<string, string[]>();
  for (const p of parents) graph.set(p.commit_sha, [...(graph.get(p.commit_sha) ?? []), p.parent_commit_sha]);
  const pairs = rows
    .filter((dc) => scopes.has(dc.cicd_scope_id))
    .sort(
      (a, b) =>
        compare(a.cicd_scope_id, b.cicd_scope_id) ||
        compare(a.repo_url, b.repo_url) ||
        compare(a.environment, b.environment) ||
        compare(a.started_date.getTime(), b.started_date.getTime()),
    )
    .map((dc) => ({ newSha: dc.commit_sha, oldSha: byId.get(dc.prev_success_deployment_commit_id)?.commit_sha ?? '' }));
  const done = new Set<string>();
  const diffs: CommitsDiffRow[] = [];
  for (const { newSha, oldSha } of pairs) {
    const key = `${newSha} ${oldSha}`;
    if (done.has(key)) continue;
    done.add(key);
    lostShas(graph, oldSha, newSha).forEach((sha, i) => diffs.push({ new_commit_sha: newSha, old_commit_sha: oldSha, commit_sha: sha, sorting_index: i + 1 }));
  }
  return diffs;
}

function lostShas(graph: Map<string, string[]>, oldSha: string, newSha: string): string[] {
  const old = new Set<string>();
  const reachOld = (sha: string) => {
    if (old.has(sha)) return;
    old.add(sha);
    for (const parent of graph.get(sha) ?? []) reachOld(parent);
  };
  reachOld(oldSha);
  const found = new Set<string>();
  const lost: string[] = [];
  const reachNew = (sha: string) => {
    if (old.has(sha) || found.has(sha)) return;
    found.add(sha);
    lost.push(sha);
    for (const parent of graph.get(sha) ?? []) reachNew(parent);
  };
  reachNew(newSha);
  return lost;
}

/** computeTimeSpan: whole minutes rounded up; null before the start. */
function timeSpan(start: Date | null, end: Date | null): number | null {
  if (!start || !end) return null;
  const minutes = Math.ceil((end.getTime() - start.getTime()) / 60_000);
  return minutes < 0 ? null : minutes;
}

/**
 * dora/tasks/change_lead_time_calculator.go, for each merged pull request of the project: its first commit (the
 * earliest authored), the first successful production deployment that added its merge commit (batchFetchDeployments:
 * only a deployment with a previous success, its commits_diffs against that success, the earliest started), and its
 * cycle time, the sum of coding (first commit → opened), open (opened → merged) and deploy (merged → deployment
 * finished) times, each in minutes rounded up and left out when unknown or negative. Reviews are not exported: they
 * split the open time into pickup and review, which the cycle time does not read.
 */
export function changeLeadTimes(
  rows: Pick<DomainRows, 'pull_requests' | 'pull_request_commits' | 'cicd_deployment_commits' | 'commits_diffs' | 'project_mapping'>,
  project: string,
): PrMetricRow[] {
  const repos = mapped(rows.project_mapping, project, 'repos');
  const scopes = mapped(rows.project_mapping, project, 'cicd_scopes');
  const firstCommits = new Map<string, PullRequestCommitRow>();
  for (const c of [...rows.pull_request_commits].sort((a, b) => compare(a.commit_authored_date.getTime(), b.commit_authored_date.getTime()))) {
    if (!firstCommits.has(c.pull_request_id)) firstCommits.set(c.pull_request_id, c);
  }
  const byId = new Map(rows.cicd_deployment_commits.map((dc) => [dc.id, dc]));
  const deployed = rows.cicd_deployment_commits
    .filter((dc) => dc.prev_success_deployment_commit_id !== '' && dc.environment === PRODUCTION && dc.result === 'SUCCESS' && scopes.has(dc.cicd_scope_id))
    .flatMap((dc) => {
      const previousSha = byId.get(dc.prev_success_deployment_commit_id)?.commit_sha ?? '';
      return rows.commits_diffs.filter((cd) => cd.new_commit_sha === dc.commit_sha && cd.old_commit_sha === previousSha).map((cd) => ({ mergeSha: cd.commit_sha, dc }));
    })
    .sort((a, b) => compare(a.mergeSha, b.mergeSha) || compare(a.dc.started_date.getTime(), b.dc.started_date.getTime()) || compare(a.dc.id, b.dc.id));
  const deployments = new Map<string, DeploymentCommitRow>();
  for (const { mergeSha, dc } of deployed) if (!deployments.has(mergeSha)) deployments.set(mergeSha, dc);

  return rows.pull_requests
    .filter((pr) => pr.merged_date && repos.has(pr.base_repo_id))
    .map((pr) => {
      const first = firstCommits.get(pr.id);
      const coding = first ? timeSpan(first.commit_authored_date, pr.created_date) : null;
      const open = timeSpan(pr.created_date, pr.merged_date);
      const deployment = deployments.get(pr.merge_commit_sha);
      const deploy = deployment ? timeSpan(pr.merged_date, deployment.finished_date) : null;
      return {
        id: pr.id,
        project_name: project,
        first_commit_sha: first?.commit_sha ?? '',
        pr_coding_time: coding,
        deployment_commit_id: deployment?.id ?? '',
        pr_deploy_time: deploy,
        pr_cycle_time: (coding ?? 0) + (open ?? 0) + (deploy ?? 0),
        first_commit_authored_date: first?.commit_authored_date ?? null,
        pr_created_date: pr.created_date,
        pr_merged_date: pr.merged_date,
        pr_deployed_date: deployment?.finished_date ?? null,
      };
    });
}

/** dora/tasks/incident_from_issue_generator.go with ticket/issue.go's ToIncident: the INCIDENT issues of the project's boards, as they are. */
export function incidentsFromIssues(issues: IssueRow[], boardIssues: BoardIssueRow[], mapping: ProjectMapping[], project: string): IncidentRow[] {
  const boards = mapped(mapping, project, 'boards');
  return boardIssues.flatMap(({ board_id, issue_id }) => {
    const issue = issues.find((i) => i.id === issue_id);
    if (!issue || issue.type !== 'INCIDENT' || !boards.has(board_id)) return [];
    const { id, issue_key, title, status, original_status, created_date, resolution_date, updated_date, lead_time_minutes } = issue;
    return [{ id, incident_key: issue_key, title, status, original_status, created_date, resolution_date, updated_date, lead_time_minutes, table: 'boards' as const, scope_id: board_id }];
  });
}

/**
 * dora/tasks/incident_deploy_connector.go: each incident of the project is blamed on the project's last successful
 * production deployment that finished before it was opened, if any, whatever the incident says of its cause.
 */
export function incidentDeployments(incidents: IncidentRow[], rows: DeploymentCommitRow[], mapping: ProjectMapping[], project: string): IncidentDeploymentRow[] {
  const boards = mapped(mapping, project, 'boards');
  const scopes = mapped(mapping, project, 'cicd_scopes');
  return incidents.flatMap((incident) => {
    if (!boards.has(incident.scope_id)) return [];
    const before = rows
      .filter((dc) => dc.finished_date < incident.created_date && dc.result === 'SUCCESS' && dc.environment === PRODUCTION && scopes.has(dc.cicd_scope_id))
      .sort((a, b) => b.finished_date.getTime() - a.finished_date.getTime());
    return before.length ? [{ id: incident.id, project_name: project, deployment_id: before[0].cicd_deployment_id }] : [];
  });
}
