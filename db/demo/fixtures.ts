/**
 * The well-known demo records. Every scale (`tiny`, `demo`, `large`) contains exactly these rows, with
 * these ids and these timestamps, so tests, docs and the README can name them.
 *
 * Guarantees the generator adds on top of this file (see generator.ts):
 * - Generated records never reference a fixture user: every row whose user_id / author_id / assignee_id /
 *   owner_id / counterpart_id is a fixture user is listed here. (Generated users do join the fixture teams
 *   and write commits and pull requests in the fixture repositories, and generated tasks are filed in the
 *   fixture teams.)
 * - No generated record has a `created_at` on a UTC day that a fixture record's `created_at` uses
 *   (`FIXTURE_DAYS`), so a `created_at[eq]=<fixture day>` filter returns fixture records only.
 *   E.g. `GET /v1/users?created_at[eq]=2024-03-15` as ada returns linus only.
 * - Deliberate `created_at` ties, for the id tie-break (`TIES` below lists them all).
 * - All timestamps lie in [DEMO_START, DEMO_END), millisecond precision.
 *
 * The dates here are written for a demo that ends on DEMO_END. A seed that ends on another day (by default the
 * day it runs: see `seedDemo`'s `endDay`) moves every timestamp, these and the generated ones, by the whole days
 * between the two, so the demo's rhythm always leads up to its end day. Tests that name these dates seed with
 * `endDay: DEMO_END_DAY`.
 *
 * Memberships at a glance:
 *   Acme Corp (org_acme):  ada admin, grace manager, barbara manager, linus collaborator,
 *                          margaret collaborator, inactive collaborator (is_active=false)
 *   Globex (org_globex):   outsider collaborator, hedy manager, margaret admin
 *   team_platform (Acme):  grace manager "Engineering Manager", linus member "Backend Engineer"
 *   team_mobile (Acme):    barbara manager "Engineering Manager", ada member "Staff Engineer" (grace is NOT in it)
 *   team_globex_core:      hedy manager "Engineering Manager", outsider member "Software Engineer"
 *   margaret and inactive are in no team. Generated users join these teams too (members only).
 */

/** The end day the dates of this file are written for (YYYY-MM-DD, UTC). */
export const DEMO_END_DAY = '2026-10-31';
export const DEMO_START_ISO = '2024-01-01T00:00:00.000Z';
export const DEMO_END_ISO = `${DEMO_END_DAY}T00:00:00.000Z`;
/** Inclusive lower bound of every generated and fixture timestamp, as written (seeded to end on DEMO_END_DAY). */
export const DEMO_START = new Date(DEMO_START_ISO);
/** Exclusive upper bound of every generated and fixture timestamp, as written: 00:00 UTC of DEMO_END_DAY. */
export const DEMO_END = new Date(DEMO_END_ISO);

export const DEMO = {
  orgs: { acme: 'org_acme', globex: 'org_globex' },
  users: {
    ada: 'usr_ada',
    grace: 'usr_grace',
    linus: 'usr_linus',
    outsider: 'usr_outsider',
    margaret: 'usr_margaret',
    inactive: 'usr_inactive',
    barbara: 'usr_barbara',
    hedy: 'usr_hedy',
  },
  emails: {
    ada: 'ada@demo.test',
    grace: 'grace@demo.test',
    linus: 'linus@demo.test',
    outsider: 'outsider@demo.test',
    margaret: 'margaret@demo.test',
    inactive: 'inactive@demo.test',
    barbara: 'barbara@demo.test',
    hedy: 'hedy@demo.test',
  },
  teams: { platform: 'team_platform', mobile: 'team_mobile', globexCore: 'team_globex_core' },
  apps: { acmeJira: 'app_acme_jira', acmeLinear: 'app_acme_linear', acmeSlack: 'app_acme_slack', globexSlack: 'app_globex_slack', acmePagerduty: 'app_acme_pagerduty', acmeCopilot: 'app_acme_copilot' },
  gitApps: { acmeGithub: 'gapp_acme_github', globexGitlab: 'gapp_globex_gitlab' },
  repos: { acmeApi: 'repo_acme_api', acmeWeb: 'repo_acme_web', globexCore: 'repo_globex_core' },
  commits: {
    acmeApi1: 'cmt_acme_api_1',
    acmeApi2: 'cmt_acme_api_2',
    acmeApi3: 'cmt_acme_api_3',
    acmeWeb1: 'cmt_acme_web_1',
    globexCore1: 'cmt_globex_core_1',
  },
  pullRequests: {
    acmeApi1: 'pr_acme_api_1',
    acmeApi2: 'pr_acme_api_2',
    acmeApi3: 'pr_acme_api_3',
    globexCore1: 'pr_globex_core_1',
  },
  pullRequestActivity: {
    acmeApi1Comment: 'pra_acme_api_1_comment',
    acmeApi1Approval: 'pra_acme_api_1_approval',
    globexCore1Approval: 'pra_globex_core_1_approval',
  },
  deployments: {
    acmeApi1: 'dep_acme_api_1',
    acmeApi2: 'dep_acme_api_2',
    acmeApi3: 'dep_acme_api_3',
    globexCore1: 'dep_globex_core_1',
  },
  incidents: {
    acmeApi1: 'inc_acme_api_1',
    globexCore1: 'inc_globex_core_1',
  },
  tasks: {
    platformEpic: 'task_platform_epic',
    platformStory: 'task_platform_story',
    platformBug: 'task_platform_bug',
    platformChore: 'task_platform_chore',
    platformPaused: 'task_platform_paused',
    coreEpic: 'task_core_epic',
    coreStory: 'task_core_story',
  },
  interactions: {
    ada1: 'int_ada_1',
    ada2: 'int_ada_2',
    grace1: 'int_grace_1',
    grace2: 'int_grace_2',
    linus1: 'int_linus_1',
    linus2: 'int_linus_2',
    linus3: 'int_linus_3',
    linus4: 'int_linus_4',
    outsider1: 'int_outsider_1',
    outsider2: 'int_outsider_2',
    margaretAcme: 'int_margaret_acme',
    margaretGlobex: 'int_margaret_globex',
  },
  views: {
    acmeOrg: 'view_acme_org',
    platformTeam: 'view_platform_team',
    mobileTeam: 'view_mobile_team',
    adaPrivate: 'view_ada_private',
    linusPrivate: 'view_linus_private',
    globexOrg: 'view_globex_org',
    outsiderPrivate: 'view_outsider_private',
  },
} as const;

export type DemoUserKey = keyof typeof DEMO.users;

const { orgs: O, users: U, teams: T, apps: A, gitApps: G, repos: R } = DEMO;

// ---------------------------------------------------------------------------------------------------
// Row shapes (column names as in the migration). Timestamps are ISO strings here; the generator turns
// them into Date objects.

export interface OrganizationFixture { id: string; name: string; created_at: string }
export interface UserFixture { id: string; name: string; email: string; is_active: boolean; created_at: string }
export interface OrganizationMembershipFixture {
  organization_id: string;
  user_id: string;
  role: 'admin' | 'manager' | 'collaborator';
  created_at: string;
}
export interface TeamFixture { id: string; organization_id: string; name: string; created_at: string }
export interface TeamMembershipFixture {
  team_id: string;
  user_id: string;
  title: string;
  role: 'member' | 'manager';
  created_at: string;
}
export interface AppFixture {
  id: string;
  organization_id: string;
  provider: string;
  category: 'issues' | 'chat' | 'git' | 'calendar';
  name: string;
  is_active: boolean;
  created_at: string;
}
export interface AppBoardFixture {
  app_id: string;
  board_key: string;
  organization_id: string;
  team_id: string | null;
  repository_id: string | null;
  created_at: string;
}
export interface StatusOverrideFixture { app_id: string; status_name: string; category: 'backlog' | 'active' | 'paused' | 'done' | 'canceled'; created_at: string }
export interface UserAppFixture { user_id: string; app_id: string; external_user_id: string; created_at: string }
export interface GitAppFixture {
  id: string;
  organization_id: string;
  provider: 'github' | 'gitlab' | 'bitbucket' | 'git';
  name: string;
  is_active: boolean;
  created_at: string;
}
export interface UserGitAppFixture { user_id: string; git_app_id: string; username: string; created_at: string }
export interface RepositoryFixture {
  id: string;
  git_app_id: string;
  organization_id: string;
  name: string;
  full_name: string;
  default_branch: string;
  is_private: boolean;
  created_at: string;
}
export interface CommitFixture {
  id: string;
  repository_id: string;
  git_app_id: string;
  organization_id: string;
  sha: string;
  message: string;
  author_id: string | null;
  author_name: string;
  additions: number;
  deletions: number;
  created_at: string;
}
export interface PullRequestFixture {
  id: string;
  repository_id: string;
  git_app_id: string;
  organization_id: string;
  number: number;
  title: string;
  state: 'open' | 'closed' | 'merged';
  author_id: string | null;
  created_at: string;
  merged_at: string | null;
  closed_at: string | null;
}
export interface PullRequestActivityFixture {
  id: string;
  pull_request_id: string;
  repository_id: string;
  git_app_id: string;
  organization_id: string;
  kind: 'comment' | 'approved' | 'changes_requested' | 'commit';
  actor_id: string | null;
  external_id: string;
  created_at: string;
}
export interface DeploymentFixture {
  id: string;
  repository_id: string;
  git_app_id: string;
  organization_id: string;
  external_id: string;
  environment: string;
  status: 'success' | 'failure';
  sha: string;
  created_at: string;
  finished_at: string;
}
export interface IncidentFixture {
  id: string;
  repository_id: string;
  git_app_id: string;
  organization_id: string;
  external_id: string;
  title: string;
  cause_sha: string | null;
  created_at: string;
  resolved_at: string | null;
}
export interface TaskFixture {
  id: string;
  team_id: string;
  organization_id: string;
  title: string;
  type: 'story' | 'bug' | 'task' | 'epic';
  status: 'backlog' | 'active' | 'paused' | 'done';
  assignee_id: string | null;
  parent_id: string | null;
  story_points: number | null;
  created_at: string;
  completed_at: string | null;
}
export interface InteractionFixture {
  id: string;
  organization_id: string;
  type: 'code_review' | 'communication' | 'task_assignment' | 'meeting';
  source: string;
  user_id: string;
  counterpart_id: string | null;
  team_id: string | null;
  created_at: string;
}
export interface DashboardViewFixture {
  id: string;
  name: string;
  type: DashboardCatalogKey;
  visibility: 'private' | 'team' | 'organization';
  organization_id: string;
  team_id: string | null;
  owner_id: string;
  created_at: string;
}
export interface DashboardCatalogFixture { key: string; name: string }

// ---------------------------------------------------------------------------------------------------
// The dashboard types the demo's views are made from, by the names the catalog gives them (migration 0037 writes
// the catalog itself, in every database). Fixed and identical in every scale: the demo picks among these eight.

export const DASHBOARD_CATALOG = [
  { key: 'dora', name: 'DORA metrics' },
  { key: 'flow', name: 'Flow metrics' },
  { key: 'pull_requests', name: 'Pull request insights' },
  { key: 'sprint', name: 'Sprint health' },
  { key: 'collaboration', name: 'Collaboration' },
  { key: 'wellbeing', name: 'Developer wellbeing' },
  { key: 'investment', name: 'Investment profile' },
  { key: 'cost', name: 'Engineering cost' },
] as const satisfies readonly DashboardCatalogFixture[];

export type DashboardCatalogKey = (typeof DASHBOARD_CATALOG)[number]['key'];
export const DASHBOARD_CATALOG_KEYS: readonly DashboardCatalogKey[] = DASHBOARD_CATALOG.map((e) => e.key);

// ---------------------------------------------------------------------------------------------------
// People

export const FIXTURE_ORGANIZATIONS: readonly OrganizationFixture[] = [
  { id: O.acme, name: 'Acme Corp', created_at: '2024-01-01T08:00:00.000Z' },
  { id: O.globex, name: 'Globex', created_at: '2024-02-01T08:00:00.000Z' },
];

export const FIXTURE_USERS: readonly UserFixture[] = [
  { id: U.ada, name: 'Ada Lovelace', email: DEMO.emails.ada, is_active: true, created_at: '2024-01-02T09:00:00.000Z' },
  { id: U.grace, name: 'Grace Hopper', email: DEMO.emails.grace, is_active: true, created_at: '2024-01-03T09:00:00.000Z' },
  { id: U.barbara, name: 'Barbara Liskov', email: DEMO.emails.barbara, is_active: true, created_at: '2024-01-04T09:00:00.000Z' },
  { id: U.outsider, name: 'Olive Outsider', email: DEMO.emails.outsider, is_active: true, created_at: '2024-02-02T09:00:00.000Z' },
  { id: U.hedy, name: 'Hedy Lamarr', email: DEMO.emails.hedy, is_active: true, created_at: '2024-02-03T09:00:00.000Z' },
  { id: U.linus, name: 'Linus Torvalds', email: DEMO.emails.linus, is_active: true, created_at: '2024-03-15T12:00:00.000Z' },
  // margaret and inactive share created_at on purpose (tie; Acme members list).
  { id: U.margaret, name: 'Margaret Hamilton', email: DEMO.emails.margaret, is_active: true, created_at: '2024-04-01T10:00:00.000Z' },
  { id: U.inactive, name: 'Ivan Inactive', email: DEMO.emails.inactive, is_active: false, created_at: '2024-04-01T10:00:00.000Z' },
];

export const FIXTURE_ORGANIZATION_MEMBERSHIPS: readonly OrganizationMembershipFixture[] = [
  { organization_id: O.acme, user_id: U.ada, role: 'admin', created_at: '2024-01-02T09:00:00.000Z' },
  { organization_id: O.acme, user_id: U.grace, role: 'manager', created_at: '2024-01-03T09:00:00.000Z' },
  { organization_id: O.acme, user_id: U.barbara, role: 'manager', created_at: '2024-01-04T09:00:00.000Z' },
  { organization_id: O.acme, user_id: U.linus, role: 'collaborator', created_at: '2024-03-15T12:00:00.000Z' },
  { organization_id: O.acme, user_id: U.margaret, role: 'collaborator', created_at: '2024-04-01T10:00:00.000Z' },
  { organization_id: O.acme, user_id: U.inactive, role: 'collaborator', created_at: '2024-04-01T10:00:00.000Z' },
  { organization_id: O.globex, user_id: U.outsider, role: 'collaborator', created_at: '2024-02-02T09:00:00.000Z' },
  { organization_id: O.globex, user_id: U.hedy, role: 'manager', created_at: '2024-02-03T09:00:00.000Z' },
  { organization_id: O.globex, user_id: U.margaret, role: 'admin', created_at: '2024-04-01T10:00:00.000Z' },
];

export const FIXTURE_TEAMS: readonly TeamFixture[] = [
  // platform and mobile share created_at on purpose (tie; Acme teams list).
  { id: T.platform, organization_id: O.acme, name: 'Platform', created_at: '2024-01-05T09:00:00.000Z' },
  { id: T.mobile, organization_id: O.acme, name: 'Mobile', created_at: '2024-01-05T09:00:00.000Z' },
  { id: T.globexCore, organization_id: O.globex, name: 'Core', created_at: '2024-02-05T09:00:00.000Z' },
];

export const FIXTURE_TEAM_MEMBERSHIPS: readonly TeamMembershipFixture[] = [
  { team_id: T.platform, user_id: U.grace, title: 'Engineering Manager', role: 'manager', created_at: '2024-01-05T09:00:00.000Z' },
  { team_id: T.platform, user_id: U.linus, title: 'Backend Engineer', role: 'member', created_at: '2024-03-16T09:00:00.000Z' },
  { team_id: T.mobile, user_id: U.barbara, title: 'Engineering Manager', role: 'manager', created_at: '2024-01-05T09:00:00.000Z' },
  { team_id: T.mobile, user_id: U.ada, title: 'Staff Engineer', role: 'member', created_at: '2024-01-06T09:00:00.000Z' },
  { team_id: T.globexCore, user_id: U.hedy, title: 'Engineering Manager', role: 'manager', created_at: '2024-02-05T09:00:00.000Z' },
  { team_id: T.globexCore, user_id: U.outsider, title: 'Software Engineer', role: 'member', created_at: '2024-02-06T09:00:00.000Z' },
];

// ---------------------------------------------------------------------------------------------------
// Integrations

export const FIXTURE_APPS: readonly AppFixture[] = [
  // jira and slack share created_at on purpose (tie; Acme apps list).
  { id: A.acmeJira, organization_id: O.acme, provider: 'jira', category: 'issues', name: 'Jira', is_active: true, created_at: '2024-01-10T09:00:00.000Z' },
  { id: A.acmeSlack, organization_id: O.acme, provider: 'slack', category: 'chat', name: 'Slack', is_active: true, created_at: '2024-01-10T09:00:00.000Z' },
  { id: A.globexSlack, organization_id: O.globex, provider: 'slack', category: 'chat', name: 'Slack', is_active: true, created_at: '2024-02-10T09:00:00.000Z' },
  { id: A.acmeLinear, organization_id: O.acme, provider: 'linear', category: 'issues', name: 'Linear', is_active: true, created_at: '2024-01-12T10:00:00.000Z' },
];

/**
 * Acme's Jira projects, each mapped to its team (Acme's Linear team is mapped to a generated team: steps/apps.ts).
 * Their tasks come from those apps, with the status history they gave (steps/tasks.ts).
 */
export const FIXTURE_APP_BOARDS: readonly AppBoardFixture[] = [
  { app_id: A.acmeJira, board_key: 'PLAT', organization_id: O.acme, team_id: T.platform, repository_id: null, created_at: '2024-01-10T09:30:00.000Z' },
  { app_id: A.acmeJira, board_key: 'MOB', organization_id: O.acme, team_id: T.mobile, repository_id: null, created_at: '2024-01-10T09:30:00.000Z' },
];

/** Jira's "Blocked" sits in its "In Progress" category and "Won't Do" in its "Done" one; Linear's "Blocked" is a started state. */
export const FIXTURE_STATUS_OVERRIDES: readonly StatusOverrideFixture[] = [
  { app_id: A.acmeJira, status_name: 'blocked', category: 'paused', created_at: '2024-01-10T09:30:00.000Z' },
  { app_id: A.acmeJira, status_name: "won't do", category: 'canceled', created_at: '2024-01-10T09:30:00.000Z' },
  { app_id: A.acmeLinear, status_name: 'blocked', category: 'paused', created_at: '2024-01-12T10:30:00.000Z' },
];

export const FIXTURE_USER_APPS: readonly UserAppFixture[] = [
  // ada's two bindings share created_at on purpose (tie; /users/usr_ada/apps).
  { user_id: U.ada, app_id: A.acmeJira, external_user_id: 'acme-ada.lovelace', created_at: '2024-01-11T09:00:00.000Z' },
  { user_id: U.ada, app_id: A.acmeSlack, external_user_id: 'UACME00ADA', created_at: '2024-01-11T09:00:00.000Z' },
  { user_id: U.grace, app_id: A.acmeJira, external_user_id: 'acme-grace.hopper', created_at: '2024-01-12T09:00:00.000Z' },
  { user_id: U.grace, app_id: A.acmeSlack, external_user_id: 'UACME0GRACE', created_at: '2024-01-12T09:05:00.000Z' },
  { user_id: U.linus, app_id: A.acmeJira, external_user_id: 'acme-linus.torvalds', created_at: '2024-03-16T10:00:00.000Z' },
  { user_id: U.linus, app_id: A.acmeSlack, external_user_id: 'UACME0LINUS', created_at: '2024-03-16T10:30:00.000Z' },
  { user_id: U.outsider, app_id: A.globexSlack, external_user_id: 'UGLOBEX0OLIVE', created_at: '2024-02-11T09:00:00.000Z' },
  { user_id: U.margaret, app_id: A.acmeSlack, external_user_id: 'UACME0MARGARET', created_at: '2024-04-02T09:00:00.000Z' },
  { user_id: U.margaret, app_id: A.globexSlack, external_user_id: 'UGLOBEX0MARGARET', created_at: '2024-04-02T09:30:00.000Z' },
];

export const FIXTURE_GIT_APPS: readonly GitAppFixture[] = [
  { id: G.acmeGithub, organization_id: O.acme, provider: 'github', name: 'Acme GitHub', is_active: true, created_at: '2024-01-10T10:00:00.000Z' },
  { id: G.globexGitlab, organization_id: O.globex, provider: 'gitlab', name: 'Globex GitLab', is_active: true, created_at: '2024-02-10T10:00:00.000Z' },
];

export const FIXTURE_USER_GIT_APPS: readonly UserGitAppFixture[] = [
  { user_id: U.ada, git_app_id: G.acmeGithub, username: 'ada-lovelace', created_at: '2024-01-11T10:00:00.000Z' },
  { user_id: U.grace, git_app_id: G.acmeGithub, username: 'ghopper', created_at: '2024-01-12T10:00:00.000Z' },
  { user_id: U.linus, git_app_id: G.acmeGithub, username: 'torvalds', created_at: '2024-03-16T11:00:00.000Z' },
  { user_id: U.outsider, git_app_id: G.globexGitlab, username: 'olive-outsider', created_at: '2024-02-11T10:00:00.000Z' },
  { user_id: U.margaret, git_app_id: G.globexGitlab, username: 'mhamilton', created_at: '2024-04-02T10:00:00.000Z' },
];

// ---------------------------------------------------------------------------------------------------
// Git

export const FIXTURE_REPOSITORIES: readonly RepositoryFixture[] = [
  // api and web share created_at on purpose (tie; repositories of gapp_acme_github).
  { id: R.acmeApi, git_app_id: G.acmeGithub, organization_id: O.acme, name: 'api', full_name: 'acme/api', default_branch: 'main', is_private: true, created_at: '2024-01-15T09:00:00.000Z' },
  { id: R.acmeWeb, git_app_id: G.acmeGithub, organization_id: O.acme, name: 'web', full_name: 'acme/web', default_branch: 'main', is_private: false, created_at: '2024-01-15T09:00:00.000Z' },
  { id: R.globexCore, git_app_id: G.globexGitlab, organization_id: O.globex, name: 'core', full_name: 'globex/core', default_branch: 'main', is_private: true, created_at: '2024-02-15T09:00:00.000Z' },
];

const acmeApi = { repository_id: R.acmeApi, git_app_id: G.acmeGithub, organization_id: O.acme } as const;
const acmeWeb = { repository_id: R.acmeWeb, git_app_id: G.acmeGithub, organization_id: O.acme } as const;
const globexCore = { repository_id: R.globexCore, git_app_id: G.globexGitlab, organization_id: O.globex } as const;

export const FIXTURE_COMMITS: readonly CommitFixture[] = [
  { id: DEMO.commits.acmeApi1, ...acmeApi, sha: 'a1d4c0de0000000000000000000000000000a001', message: 'Initial commit', author_id: U.ada, author_name: 'Ada Lovelace', additions: 412, deletions: 0, created_at: '2024-01-15T10:00:00.000Z' },
  // cmt_acme_api_2 and cmt_acme_api_3 share created_at on purpose (tie; commits of repo_acme_api).
  { id: DEMO.commits.acmeApi2, ...acmeApi, sha: 'a1d4c0de0000000000000000000000000000a002', message: 'Add health check endpoint', author_id: U.linus, author_name: 'Linus Torvalds', additions: 57, deletions: 3, created_at: '2024-03-20T14:00:00.000Z' },
  { id: DEMO.commits.acmeApi3, ...acmeApi, sha: 'a1d4c0de0000000000000000000000000000a003', message: 'Bump express from 4.18.2 to 4.19.2', author_id: null, author_name: 'dependabot[bot]', additions: 12, deletions: 12, created_at: '2024-03-20T14:00:00.000Z' },
  { id: DEMO.commits.acmeWeb1, ...acmeWeb, sha: 'a1d4c0de0000000000000000000000000000b001', message: 'Initial commit', author_id: U.grace, author_name: 'Grace Hopper', additions: 230, deletions: 0, created_at: '2024-01-16T10:00:00.000Z' },
  { id: DEMO.commits.globexCore1, ...globexCore, sha: 'a1d4c0de0000000000000000000000000000c001', message: 'Initial commit', author_id: U.outsider, author_name: 'Olive Outsider', additions: 188, deletions: 0, created_at: '2024-02-16T10:00:00.000Z' },
];

/** Generated pull requests of a fixture repository are numbered after these. */
export const FIXTURE_PULL_REQUESTS: readonly PullRequestFixture[] = [
  { id: DEMO.pullRequests.acmeApi1, ...acmeApi, number: 1, title: 'Add health check endpoint', state: 'merged', author_id: U.linus, created_at: '2024-03-19T10:00:00.000Z', merged_at: '2024-03-20T14:00:00.000Z', closed_at: '2024-03-20T14:00:00.000Z' },
  // pr_acme_api_2 and pr_acme_api_3 share created_at on purpose (tie; pull requests of repo_acme_api).
  { id: DEMO.pullRequests.acmeApi2, ...acmeApi, number: 2, title: 'Rate-limit the public endpoints', state: 'open', author_id: U.grace, created_at: '2024-03-21T10:00:00.000Z', merged_at: null, closed_at: null },
  { id: DEMO.pullRequests.acmeApi3, ...acmeApi, number: 3, title: 'Experimental GraphQL gateway', state: 'closed', author_id: null, created_at: '2024-03-21T10:00:00.000Z', merged_at: null, closed_at: '2024-03-22T16:00:00.000Z' },
  { id: DEMO.pullRequests.globexCore1, ...globexCore, number: 1, title: 'Bootstrap the service', state: 'merged', author_id: U.outsider, created_at: '2024-02-16T09:00:00.000Z', merged_at: '2024-02-16T15:30:00.000Z', closed_at: '2024-02-16T15:30:00.000Z' },
];

/** Review activity, on days that already hold fixtures (the generated data stays as it was). */
export const FIXTURE_PULL_REQUEST_ACTIVITY: readonly PullRequestActivityFixture[] = [
  { id: DEMO.pullRequestActivity.acmeApi1Comment, pull_request_id: DEMO.pullRequests.acmeApi1, ...acmeApi, kind: 'comment', actor_id: U.ada, external_id: 'comment:1001', created_at: '2024-03-20T11:00:00.000Z' },
  { id: DEMO.pullRequestActivity.acmeApi1Approval, pull_request_id: DEMO.pullRequests.acmeApi1, ...acmeApi, kind: 'approved', actor_id: U.grace, external_id: 'review:1002', created_at: '2024-03-20T12:00:00.000Z' },
  { id: DEMO.pullRequestActivity.globexCore1Approval, pull_request_id: DEMO.pullRequests.globexCore1, ...globexCore, kind: 'approved', actor_id: null, external_id: 'note:2001', created_at: '2024-02-16T12:00:00.000Z' },
];

/** Acme's api went out twice on 2024-03-21: the first failed, and the release before it caused an incident. */
export const FIXTURE_DEPLOYMENTS: readonly DeploymentFixture[] = [
  { id: DEMO.deployments.acmeApi1, ...acmeApi, external_id: '1001', environment: 'production', status: 'success', sha: 'a1d4c0de0000000000000000000000000000a002', created_at: '2024-03-20T15:00:00.000Z', finished_at: '2024-03-20T15:12:00.000Z' },
  // dep_acme_api_2 and dep_acme_api_3 share created_at on purpose (tie; deployments of repo_acme_api).
  { id: DEMO.deployments.acmeApi2, ...acmeApi, external_id: '1002', environment: 'production', status: 'failure', sha: 'a1d4c0de0000000000000000000000000000a003', created_at: '2024-03-21T09:00:00.000Z', finished_at: '2024-03-21T09:06:00.000Z' },
  { id: DEMO.deployments.acmeApi3, ...acmeApi, external_id: '1003', environment: 'staging', status: 'success', sha: 'a1d4c0de0000000000000000000000000000a003', created_at: '2024-03-21T09:00:00.000Z', finished_at: '2024-03-21T09:04:00.000Z' },
  { id: DEMO.deployments.globexCore1, ...globexCore, external_id: '15', environment: 'production', status: 'success', sha: 'a1d4c0de0000000000000000000000000000c001', created_at: '2024-02-16T16:00:00.000Z', finished_at: '2024-02-16T16:08:00.000Z' },
];

export const FIXTURE_INCIDENTS: readonly IncidentFixture[] = [
  { id: DEMO.incidents.acmeApi1, ...acmeApi, external_id: '2001', title: 'Health check flaps after the 2024-03-20 release', cause_sha: 'a1d4c0de0000000000000000000000000000a002', created_at: '2024-03-20T18:00:00.000Z', resolved_at: '2024-03-21T09:30:00.000Z' },
  { id: DEMO.incidents.globexCore1, ...globexCore, external_id: '301', title: 'Nightly export stuck', cause_sha: null, created_at: '2024-02-16T20:00:00.000Z', resolved_at: null },
];

// ---------------------------------------------------------------------------------------------------
// Work

export const FIXTURE_TASKS: readonly TaskFixture[] = [
  { id: DEMO.tasks.platformEpic, team_id: T.platform, organization_id: O.acme, title: 'Platform reliability', type: 'epic', status: 'active', assignee_id: U.grace, parent_id: null, story_points: null, created_at: '2024-02-01T09:00:00.000Z', completed_at: null },
  // story and bug share created_at on purpose (tie; tasks of team_platform).
  { id: DEMO.tasks.platformStory, team_id: T.platform, organization_id: O.acme, title: 'Health checks for every service', type: 'story', status: 'done', assignee_id: U.linus, parent_id: DEMO.tasks.platformEpic, story_points: 5, created_at: '2024-03-18T09:00:00.000Z', completed_at: '2024-03-20T15:00:00.000Z' },
  { id: DEMO.tasks.platformBug, team_id: T.platform, organization_id: O.acme, title: 'Pager fires twice for one incident', type: 'bug', status: 'active', assignee_id: U.linus, parent_id: null, story_points: 2, created_at: '2024-03-18T09:00:00.000Z', completed_at: null },
  { id: DEMO.tasks.platformChore, team_id: T.platform, organization_id: O.acme, title: 'Rotate CI credentials', type: 'task', status: 'backlog', assignee_id: null, parent_id: DEMO.tasks.platformEpic, story_points: 1, created_at: '2024-03-19T09:00:00.000Z', completed_at: null },
  { id: DEMO.tasks.platformPaused, team_id: T.platform, organization_id: O.acme, title: 'Migrate the build cache', type: 'story', status: 'paused', assignee_id: U.grace, parent_id: DEMO.tasks.platformEpic, story_points: 8, created_at: '2024-03-22T09:00:00.000Z', completed_at: null },
  { id: DEMO.tasks.coreEpic, team_id: T.globexCore, organization_id: O.globex, title: 'Core service launch', type: 'epic', status: 'active', assignee_id: U.hedy, parent_id: null, story_points: null, created_at: '2024-02-15T11:00:00.000Z', completed_at: null },
  { id: DEMO.tasks.coreStory, team_id: T.globexCore, organization_id: O.globex, title: 'Bootstrap the service', type: 'story', status: 'done', assignee_id: U.outsider, parent_id: DEMO.tasks.coreEpic, story_points: 3, created_at: '2024-02-16T08:00:00.000Z', completed_at: '2024-02-16T16:00:00.000Z' },
];

/**
 * linus: 4 interactions in Acme, 2 with team_platform (int_linus_1, int_linus_2) and 2 with no team
 * (int_linus_3, int_linus_4); int_linus_2 and int_linus_3 share created_at on purpose (tie).
 * margaret: one in Acme, one in Globex (both without team).
 */
export const FIXTURE_INTERACTIONS: readonly InteractionFixture[] = [
  { id: DEMO.interactions.ada1, organization_id: O.acme, type: 'communication', source: 'slack', user_id: U.ada, counterpart_id: U.grace, team_id: null, created_at: '2024-02-05T10:00:00.000Z' },
  { id: DEMO.interactions.ada2, organization_id: O.acme, type: 'meeting', source: 'google_calendar', user_id: U.ada, counterpart_id: U.barbara, team_id: T.mobile, created_at: '2024-02-06T10:00:00.000Z' },
  { id: DEMO.interactions.grace1, organization_id: O.acme, type: 'code_review', source: 'github', user_id: U.grace, counterpart_id: U.linus, team_id: T.platform, created_at: '2024-03-20T13:00:00.000Z' },
  { id: DEMO.interactions.grace2, organization_id: O.acme, type: 'task_assignment', source: 'jira', user_id: U.grace, counterpart_id: U.linus, team_id: T.platform, created_at: '2024-03-18T09:00:00.000Z' },
  { id: DEMO.interactions.linus1, organization_id: O.acme, type: 'code_review', source: 'github', user_id: U.linus, counterpart_id: U.grace, team_id: T.platform, created_at: '2024-03-19T11:00:00.000Z' },
  { id: DEMO.interactions.linus2, organization_id: O.acme, type: 'communication', source: 'slack', user_id: U.linus, counterpart_id: U.grace, team_id: T.platform, created_at: '2024-03-21T11:00:00.000Z' },
  { id: DEMO.interactions.linus3, organization_id: O.acme, type: 'communication', source: 'slack', user_id: U.linus, counterpart_id: U.ada, team_id: null, created_at: '2024-03-21T11:00:00.000Z' },
  { id: DEMO.interactions.linus4, organization_id: O.acme, type: 'meeting', source: 'google_calendar', user_id: U.linus, counterpart_id: null, team_id: null, created_at: '2024-03-25T15:00:00.000Z' },
  { id: DEMO.interactions.outsider1, organization_id: O.globex, type: 'code_review', source: 'gitlab', user_id: U.outsider, counterpart_id: U.hedy, team_id: T.globexCore, created_at: '2024-02-16T11:00:00.000Z' },
  { id: DEMO.interactions.outsider2, organization_id: O.globex, type: 'communication', source: 'slack', user_id: U.outsider, counterpart_id: U.margaret, team_id: null, created_at: '2024-04-03T09:00:00.000Z' },
  { id: DEMO.interactions.margaretAcme, organization_id: O.acme, type: 'communication', source: 'slack', user_id: U.margaret, counterpart_id: U.ada, team_id: null, created_at: '2024-04-03T09:00:00.000Z' },
  { id: DEMO.interactions.margaretGlobex, organization_id: O.globex, type: 'meeting', source: 'google_calendar', user_id: U.margaret, counterpart_id: U.outsider, team_id: null, created_at: '2024-04-04T09:00:00.000Z' },
];

export const FIXTURE_DASHBOARD_VIEWS: readonly DashboardViewFixture[] = [
  { id: DEMO.views.acmeOrg, name: 'Acme delivery overview', type: 'dora', visibility: 'organization', organization_id: O.acme, team_id: null, owner_id: U.ada, created_at: '2024-02-01T12:00:00.000Z' },
  // platform and mobile team views share created_at on purpose (tie; Acme dashboard views).
  { id: DEMO.views.platformTeam, name: 'Platform flow', type: 'flow', visibility: 'team', organization_id: O.acme, team_id: T.platform, owner_id: U.grace, created_at: '2024-02-02T12:00:00.000Z' },
  { id: DEMO.views.mobileTeam, name: 'Mobile sprint health', type: 'sprint', visibility: 'team', organization_id: O.acme, team_id: T.mobile, owner_id: U.ada, created_at: '2024-02-02T12:00:00.000Z' },
  { id: DEMO.views.adaPrivate, name: "Ada's investment notes", type: 'investment', visibility: 'private', organization_id: O.acme, team_id: null, owner_id: U.ada, created_at: '2024-02-03T12:00:00.000Z' },
  { id: DEMO.views.linusPrivate, name: 'My review load', type: 'collaboration', visibility: 'private', organization_id: O.acme, team_id: null, owner_id: U.linus, created_at: '2024-03-20T12:00:00.000Z' },
  // globex org view and outsider's private view share created_at on purpose (tie; Globex dashboard views).
  { id: DEMO.views.globexOrg, name: 'Globex DORA', type: 'dora', visibility: 'organization', organization_id: O.globex, team_id: null, owner_id: U.outsider, created_at: '2024-02-20T12:00:00.000Z' },
  { id: DEMO.views.outsiderPrivate, name: 'Scratchpad', type: 'pull_requests', visibility: 'private', organization_id: O.globex, team_id: null, owner_id: U.outsider, created_at: '2024-02-20T12:00:00.000Z' },
];

/** The deliberate created_at ties among fixture records: [table, created_at, ids in ascending id order]. */
export const TIES: ReadonlyArray<readonly [table: string, createdAt: string, ids: readonly string[]]> = [
  ['users', '2024-04-01T10:00:00.000Z', [U.inactive, U.margaret]],
  ['teams', '2024-01-05T09:00:00.000Z', [T.mobile, T.platform]],
  ['apps', '2024-01-10T09:00:00.000Z', [A.acmeJira, A.acmeSlack]],
  ['user_apps', '2024-01-11T09:00:00.000Z', [A.acmeJira, A.acmeSlack]],
  ['repositories', '2024-01-15T09:00:00.000Z', [R.acmeApi, R.acmeWeb]],
  ['commits', '2024-03-20T14:00:00.000Z', [DEMO.commits.acmeApi2, DEMO.commits.acmeApi3]],
  ['pull_requests', '2024-03-21T10:00:00.000Z', [DEMO.pullRequests.acmeApi2, DEMO.pullRequests.acmeApi3]],
  ['deployments', '2024-03-21T09:00:00.000Z', [DEMO.deployments.acmeApi2, DEMO.deployments.acmeApi3]],
  ['tasks', '2024-03-18T09:00:00.000Z', [DEMO.tasks.platformBug, DEMO.tasks.platformStory]],
  ['interactions', '2024-03-21T11:00:00.000Z', [DEMO.interactions.linus2, DEMO.interactions.linus3]],
  ['dashboard_views', '2024-02-02T12:00:00.000Z', [DEMO.views.mobileTeam, DEMO.views.platformTeam]],
  ['dashboard_views', '2024-02-20T12:00:00.000Z', [DEMO.views.globexOrg, DEMO.views.outsiderPrivate]],
];

const ALL_CREATED_AT: readonly string[] = [
  ...FIXTURE_ORGANIZATIONS,
  ...FIXTURE_USERS,
  ...FIXTURE_ORGANIZATION_MEMBERSHIPS,
  ...FIXTURE_TEAMS,
  ...FIXTURE_TEAM_MEMBERSHIPS,
  ...FIXTURE_APPS,
  ...FIXTURE_USER_APPS,
  ...FIXTURE_GIT_APPS,
  ...FIXTURE_USER_GIT_APPS,
  ...FIXTURE_REPOSITORIES,
  ...FIXTURE_COMMITS,
  ...FIXTURE_PULL_REQUESTS,
  ...FIXTURE_PULL_REQUEST_ACTIVITY,
  ...FIXTURE_DEPLOYMENTS,
  ...FIXTURE_INCIDENTS,
  ...FIXTURE_TASKS,
  ...FIXTURE_INTERACTIONS,
  ...FIXTURE_DASHBOARD_VIEWS,
].map((r) => r.created_at);

/** The UTC days (YYYY-MM-DD) of every fixture created_at; generated records never fall on them. */
export const FIXTURE_DAYS: readonly string[] = [...new Set(ALL_CREATED_AT.map((iso) => iso.slice(0, 10)))].sort();
