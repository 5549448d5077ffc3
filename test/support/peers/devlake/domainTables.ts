/**
 * The tables of Apache DevLake's domain layer that its DORA dashboard and the tasks filling them read
 * (apache/incubator-devlake@420e494b, backend/core/models/domainlayer: devops/cicd_deployment_commit.go,
 * code/pull_request.go, code/pull_request_commit.go, code/commit_parent.go, code/commits_diff.go,
 * ticket/issue.go, ticket/board_issue.go, ticket/incident.go, crossdomain/project_mapping.go,
 * crossdomain/project_pr_metric.go, crossdomain/project_incident_deployment_relationship.go), each with the columns
 * those read, named and typed as the models declare them (a Go string without a declared type as varchar(255), a
 * time as datetime(3), lead_time_minutes as the bigint migration 20220929 made it) and the models' primary keys.
 */
export const DOMAIN_TABLES: Record<string, string> = {
  project_mapping: `project_name varchar(255) NOT NULL, \`table\` varchar(255) NOT NULL, row_id varchar(255) NOT NULL,
    PRIMARY KEY (project_name, \`table\`, row_id)`,
  pull_requests: `id varchar(255) NOT NULL, base_repo_id varchar(255), head_repo_id varchar(255), status varchar(100),
    original_status varchar(100), title varchar(255), pull_request_key bigint, created_date datetime(3), merged_date datetime(3) NULL,
    closed_date datetime(3) NULL, merge_commit_sha varchar(40), head_commit_sha varchar(40), author_id varchar(100),
    PRIMARY KEY (id)`,
  pull_request_commits: `commit_sha varchar(40) NOT NULL, pull_request_id varchar(255) NOT NULL, commit_author_name varchar(255),
    commit_authored_date datetime(3), PRIMARY KEY (commit_sha, pull_request_id)`,
  commit_parents: `commit_sha varchar(40) NOT NULL, parent_commit_sha varchar(40) NOT NULL, PRIMARY KEY (commit_sha, parent_commit_sha)`,
  commits_diffs: `new_commit_sha varchar(40) NOT NULL, old_commit_sha varchar(40) NOT NULL, commit_sha varchar(40) NOT NULL,
    sorting_index bigint, PRIMARY KEY (new_commit_sha, old_commit_sha, commit_sha)`,
  cicd_deployment_commits: `id varchar(255) NOT NULL, cicd_scope_id varchar(255), cicd_deployment_id varchar(255), name varchar(255),
    result varchar(100), status varchar(100), original_status varchar(100), environment varchar(255), original_environment varchar(255),
    created_date datetime(3), started_date datetime(3) NULL, finished_date datetime(3) NULL, commit_sha varchar(255) NOT NULL,
    repo_id varchar(255), repo_url varchar(255) NOT NULL, prev_success_deployment_commit_id varchar(255),
    PRIMARY KEY (id, commit_sha)`,
  project_pr_metrics: `id varchar(255) NOT NULL, project_name varchar(100) NOT NULL, first_commit_sha varchar(255),
    pr_coding_time bigint NULL, deployment_commit_id varchar(255), pr_deploy_time bigint NULL, pr_cycle_time bigint NULL,
    first_commit_authored_date datetime(3) NULL, pr_created_date datetime(3) NULL, pr_merged_date datetime(3) NULL,
    pr_deployed_date datetime(3) NULL, PRIMARY KEY (id, project_name)`,
  issues: `id varchar(255) NOT NULL, issue_key varchar(255), title varchar(255), type varchar(100), status varchar(100),
    original_status varchar(100), created_date datetime(3) NULL, resolution_date datetime(3) NULL, updated_date datetime(3) NULL,
    lead_time_minutes bigint NULL, PRIMARY KEY (id)`,
  board_issues: `board_id varchar(255) NOT NULL, issue_id varchar(255) NOT NULL, PRIMARY KEY (board_id, issue_id)`,
  incidents: `id varchar(255) NOT NULL, incident_key varchar(255), title varchar(255), status varchar(100), original_status varchar(100),
    created_date datetime(3) NULL, resolution_date datetime(3) NULL, updated_date datetime(3) NULL, lead_time_minutes bigint NULL,
    \`table\` varchar(255), scope_id varchar(255), PRIMARY KEY (id), KEY idx_table_scope_id (\`table\`, scope_id)`,
  project_incident_deployment_relationships: `id varchar(255) NOT NULL, project_name varchar(100) NOT NULL, deployment_id varchar(255),
    PRIMARY KEY (id, project_name)`,
};

export interface ProjectMapping {
  project_name: string;
  table: 'repos' | 'cicd_scopes' | 'boards';
  row_id: string;
}

export interface PullRequestRow {
  id: string;
  base_repo_id: string;
  head_repo_id: string;
  status: 'OPEN' | 'CLOSED' | 'MERGED';
  original_status: string;
  title: string;
  pull_request_key: number;
  created_date: Date;
  merged_date: Date | null;
  closed_date: Date | null;
  merge_commit_sha: string;
  head_commit_sha: string;
  author_id: string;
}

export interface PullRequestCommitRow {
  commit_sha: string;
  pull_request_id: string;
  commit_author_name: string;
  commit_authored_date: Date;
}

export interface CommitParentRow {
  commit_sha: string;
  parent_commit_sha: string;
}

export interface CommitsDiffRow {
  new_commit_sha: string;
  old_commit_sha: string;
  commit_sha: string;
  sorting_index: number;
}

export interface DeploymentCommitRow {
  id: string;
  cicd_scope_id: string;
  cicd_deployment_id: string;
  name: string;
  result: 'SUCCESS' | 'FAILURE';
  status: 'DONE';
  original_status: string;
  environment: string;
  original_environment: string;
  created_date: Date;
  started_date: Date;
  finished_date: Date;
  commit_sha: string;
  repo_id: string;
  repo_url: string;
  prev_success_deployment_commit_id: string;
}

export interface PrMetricRow {
  id: string;
  project_name: string;
  first_commit_sha: string;
  pr_coding_time: number | null;
  deployment_commit_id: string;
  pr_deploy_time: number | null;
  pr_cycle_time: number;
  first_commit_authored_date: Date | null;
  pr_created_date: Date;
  pr_merged_date: Date | null;
  pr_deployed_date: Date | null;
}

export interface IssueRow {
  id: string;
  issue_key: string;
  title: string;
  type: 'INCIDENT';
  status: 'TODO' | 'DONE';
  original_status: string;
  created_date: Date;
  resolution_date: Date | null;
  updated_date: Date;
  lead_time_minutes: number | null;
}

export interface BoardIssueRow {
  board_id: string;
  issue_id: string;
}

export interface IncidentRow {
  id: string;
  incident_key: string;
  title: string;
  status: string;
  original_status: string;
  created_date: Date;
  resolution_date: Date | null;
  updated_date: Date;
  lead_time_minutes: number | null;
  table: 'boards';
  scope_id: string;
}

export interface IncidentDeploymentRow {
  id: string;
  project_name: string;
  deployment_id: string;
}

/** Every table's rows, as the export leaves them. */
export interface DomainRows {
  project_mapping: ProjectMapping[];
  pull_requests: PullRequestRow[];
  pull_request_commits: PullRequestCommitRow[];
  commit_parents: CommitParentRow[];
  commits_diffs: CommitsDiffRow[];
  cicd_deployment_commits: DeploymentCommitRow[];
  project_pr_metrics: PrMetricRow[];
  issues: IssueRow[];
  board_issues: BoardIssueRow[];
  incidents: IncidentRow[];
  project_incident_deployment_relationships: IncidentDeploymentRow[];
}
