/**
 * The access matrix: DATA, checked by test/api/accessMatrix.test.ts, meant to be read against docs/api.md#who-sees-what (access
 * model) and docs/api.md#wire-rules (404 before 403, messages naming the kind) in one sitting.
 *
 * ACTORS (memberships from db/demo/fixtures/organizations.ts and teams.ts; "reach" = the user's memberships ∩ the token's scope, docs/api.md#who-sees-what)
 *   ada          unscoped token of usr_ada.      Acme admin; member of team_mobile (not of team_platform).
 *   grace        unscoped token of usr_grace.    Acme manager; manager of team_platform.
 *   linus        unscoped token of usr_linus.    Acme collaborator; member of team_platform.
 *   outsider     unscoped token of usr_outsider. Globex collaborator (Globex only); member of team_globex_core.
 *   org-scoped   token of usr_margaret scoped to org_acme. margaret is an Acme collaborator AND a Globex admin,
 *                in no team; the scope cuts Globex away, so she reaches Acme only, as a collaborator.
 *   team-scoped  token of usr_ada scoped to team_platform. Reaches Acme (the organization of the named team) as
 *                its admin, but of Acme's teams only team_platform; her own team_mobile is outside the scope.
 *
 * Other fixture people named below: barbara (Acme manager, manager of team_mobile), hedy (Globex manager,
 * manager of team_globex_core), inactive (Acme collaborator, deactivated). margaret is in Acme and Globex.
 *
 * TARGETS
 *   Acme:   usr_ada usr_grace usr_linus org_acme team_platform team_mobile app_acme_jira app_acme_slack
 *           gapp_acme_github repo_acme_api view_acme_org view_platform_team view_mobile_team view_ada_private
 *           view_linus_private
 *   Globex: usr_outsider org_globex team_globex_core app_globex_slack gapp_globex_gitlab repo_globex_core
 *           view_globex_org view_outsider_private
 *   Both:   usr_margaret (member of both organizations)
 *   Nonexistent, one per kind: usr_nope org_nope team_nope app_nope gapp_nope repo_nope view_nope.
 *
 * CELLS (columns in the order ada, grace, linus, outsider, org-scoped, team-scoped)
 *   OK                 get-one: 200, and the record is the addressed one
 *   exact(ids)         list: 200, and the item ids are exactly these (fixture-only lists: generated records never
 *                      reference a fixture user, so e.g. a fixture user's apps, teams and interactions are all fixtures)
 *   has(inc, exc)      list: 200, every id of `inc` is present and no id of `exc` is (lists that also hold
 *                      generated records)
 *   F.user … F.view    403 FORBIDDEN "You do not have permission to access this user|organization|team|git app|
 *                      dashboard view"
 *   N.user … N.member  404 NOT_FOUND "User not found", "Organization not found", …, "Team member not found"
 *
 * Reading of the order of docs/api.md#wire-rules used for nested paths: the segments are resolved left to right, each with 404 before
 * 403. A nonexistent id is 404 for every actor when nothing to its left is forbidden (usr_nope, org_nope,
 * team_nope, gapp_nope, view_nope, and team_nope under usr_margaret, whom every actor may see); under a parent the
 * actor may not access, the parent's 403 comes first, so a child id never leaks its existence.
 *
 * On top of the cells, the test checks that no item of a 200 list (or get-one) belongs to an organization, or a
 * team outside the token's team scope, that the actor cannot reach; and that every dashboard view returned is one
 * the actor may see by docs/api.md#who-sees-what.
 */

export const ACTOR_NAMES = ['ada', 'grace', 'linus', 'outsider', 'org-scoped', 'team-scoped'] as const;
export type ActorName = (typeof ACTOR_NAMES)[number];

type OrgRole = 'admin' | 'manager' | 'collaborator';
type TeamRole = 'member' | 'manager';

export interface Actor {
  /** What t.token() is given. */
  token: { user: string; organizationIds?: string[]; teamIds?: string[] };
  /** The user the token acts for. */
  userId: string;
  /** Effective access (docs/api.md#who-sees-what): reachable organizations with the caller's role in each … */
  organizations: Readonly<Record<string, OrgRole>>;
  /** … the caller's own memberships in reachable teams … */
  teams: Readonly<Record<string, TeamRole>>;
  /** … and, when the token names teams, the only teams reachable at all (null: every team of a reachable org). */
  teamScope: readonly string[] | null;
}

export const ACTORS: Readonly<Record<ActorName, Actor>> = {
  ada: { token: { user: 'usr_ada' }, userId: 'usr_ada', organizations: { org_acme: 'admin' }, teams: { team_mobile: 'member' }, teamScope: null },
  grace: { token: { user: 'usr_grace' }, userId: 'usr_grace', organizations: { org_acme: 'manager' }, teams: { team_platform: 'manager' }, teamScope: null },
  linus: { token: { user: 'usr_linus' }, userId: 'usr_linus', organizations: { org_acme: 'collaborator' }, teams: { team_platform: 'member' }, teamScope: null },
  outsider: { token: { user: 'usr_outsider' }, userId: 'usr_outsider', organizations: { org_globex: 'collaborator' }, teams: { team_globex_core: 'member' }, teamScope: null },
  'org-scoped': { token: { user: 'usr_margaret', organizationIds: ['org_acme'] }, userId: 'usr_margaret', organizations: { org_acme: 'collaborator' }, teams: {}, teamScope: null },
  'team-scoped': { token: { user: 'usr_ada', teamIds: ['team_platform'] }, userId: 'usr_ada', organizations: { org_acme: 'admin' }, teams: {}, teamScope: ['team_platform'] },
};

/** First path ids that count as an Acme / a Globex target (the coverage check asks for one of each per path). */
export const TARGETS = {
  acme: ['usr_ada', 'usr_grace', 'usr_linus', 'usr_margaret', 'org_acme', 'team_platform', 'team_mobile', 'gapp_acme_github', 'view_acme_org', 'view_platform_team', 'view_mobile_team', 'view_ada_private', 'view_linus_private'],
  globex: ['usr_outsider', 'usr_margaret', 'org_globex', 'team_globex_core', 'gapp_globex_gitlab', 'view_globex_org', 'view_outsider_private'],
} as const;

// ---------------------------------------------------------------------------------------------------
// Cell notation

export type Cell =
  | { status: 200; one: true }
  | { status: 200; exact: readonly string[] }
  | { status: 200; figures: true }
  | { status: 200; includes: readonly string[]; excludes: readonly string[] }
  | { status: 403 | 404; code: 'FORBIDDEN' | 'NOT_FOUND'; message: string };

const OK: Cell = { status: 200, one: true };
/** A metric: 200 with the figures of exactly the scope asked for. */
const FIGURES: Cell = { status: 200, figures: true };
const exact = (...ids: string[]): Cell => ({ status: 200, exact: ids });
const has = (includes: readonly string[], excludes: readonly string[]): Cell => ({ status: 200, includes, excludes });
const forbidden = (kind: string): Cell => ({ status: 403, code: 'FORBIDDEN', message: `You do not have permission to access this ${kind}` });
const notFound = (kind: string): Cell => ({ status: 404, code: 'NOT_FOUND', message: `${kind} not found` });

const F = {
  user: forbidden('user'),
  org: forbidden('organization'),
  team: forbidden('team'),
  gitApp: forbidden('git app'),
  view: forbidden('dashboard view'),
};
const N = {
  user: notFound('User'),
  org: notFound('Organization'),
  team: notFound('Team'),
  gitApp: notFound('Git app'),
  repo: notFound('Repository'),
  pr: notFound('Pull request'),
  app: notFound('App'),
  view: notFound('Dashboard view'),
  member: notFound('Team member'),
};
const all = (cell: Cell): Cells => [cell, cell, cell, cell, cell, cell];

/** What the items of a row are: drives the id field and the no-leak check. */
export type ItemKind =
  | 'user'
  | 'organization'
  | 'team'
  | 'userTeam'
  | 'app'
  | 'userApp'
  | 'gitApp'
  | 'userGitApp'
  | 'repository'
  | 'commit'
  | 'pullRequest'
  | 'pullRequestActivity'
  | 'deployment'
  | 'incident'
  | 'task'
  | 'interaction'
  | 'dashboardView'
  | 'catalogEntry'
  | 'telemetryEvent'
  | 'auditEntry'
  | 'metric';

/** ada, grace, linus, outsider, org-scoped, team-scoped */
type Cells = readonly [Cell, Cell, Cell, Cell, Cell, Cell];

export interface Row {
  path: string;
  shape: 'list' | 'one' | 'metric';
  kind: ItemKind;
  cells: Readonly<Record<ActorName, Cell>>;
}

const toRecord = (cells: Cells): Record<ActorName, Cell> =>
  Object.fromEntries(ACTOR_NAMES.map((a, i) => [a, cells[i]])) as Record<ActorName, Cell>;
const list = (path: string, kind: ItemKind, cells: Cells): Row => ({ path, shape: 'list', kind, cells: toRecord(cells) });
const one = (path: string, kind: ItemKind, cells: Cells): Row => ({ path, shape: 'one', kind, cells: toRecord(cells) });
/** The metrics (docs/metrics.md, and docs/metrics.md#ai-review-and-cost-figures's ai-usage) of one scope, `organization_id=…` or `team_id=…`, with the same cells. */
const metrics = (scope: string, cells: Cells): Row[] =>
  ['dora', 'pull-requests', 'flow', 'activity', 'ai-usage', 'ai-impact', 'collaboration'].map((m) => ({ path: `/v1/metrics/${m}?${scope}`, shape: 'metric', kind: 'metric', cells: toRecord(cells) }));
const M = FIGURES;
/** The financial figures (docs/metrics.md#financial-metrics-for-a-finance-partner), of one scope: for the organization's admins only, after the scope's own 404 and 403. */
const financial = (scope: string, cells: Cells): Row => ({ path: `/v1/metrics/financial?${scope}`, shape: 'metric', kind: 'metric', cells: toRecord(cells) });
const $ = { status: 403, code: 'FORBIDDEN', message: "Financial metrics are for the organization's admins" } as const satisfies Cell;

// ---------------------------------------------------------------------------------------------------
// Fixed ids, grouped

const ACME_USERS = ['usr_ada', 'usr_grace', 'usr_barbara', 'usr_linus', 'usr_margaret', 'usr_inactive'];
const ACME_ONLY_USERS = ['usr_ada', 'usr_grace', 'usr_barbara', 'usr_linus', 'usr_inactive'];
const GLOBEX_USERS = ['usr_outsider', 'usr_hedy', 'usr_margaret'];
const GLOBEX_ONLY_USERS = ['usr_outsider', 'usr_hedy'];
const ACME_TEAMS = ['team_platform', 'team_mobile'];
const GLOBEX_TEAMS = ['team_globex_core'];
const ACME_APPS = ['app_acme_jira', 'app_acme_slack'];
const GLOBEX_APPS = ['app_globex_slack'];
const ACME_API_COMMITS = ['cmt_acme_api_1', 'cmt_acme_api_2', 'cmt_acme_api_3'];
const ACME_COMMITS = [...ACME_API_COMMITS, 'cmt_acme_web_1'];
const GLOBEX_COMMITS = ['cmt_globex_core_1'];
const ACME_PRS = ['pr_acme_api_1', 'pr_acme_api_2', 'pr_acme_api_3'];
const GLOBEX_PRS = ['pr_globex_core_1'];
const ACME_PR_ACTIVITY = ['pra_acme_api_1_comment', 'pra_acme_api_1_approval'];
const GLOBEX_PR_ACTIVITY = ['pra_globex_core_1_approval'];
const ACME_DEPLOYMENTS = ['dep_acme_api_1', 'dep_acme_api_2', 'dep_acme_api_3'];
const GLOBEX_DEPLOYMENTS = ['dep_globex_core_1'];
const ACME_INCIDENTS = ['inc_acme_api_1'];
const GLOBEX_INCIDENTS = ['inc_globex_core_1'];
const PLATFORM_TASKS = ['task_platform_epic', 'task_platform_story', 'task_platform_bug', 'task_platform_chore', 'task_platform_paused'];
const CORE_TASKS = ['task_core_epic', 'task_core_story'];
const ALL_INTERACTIONS = [
  'int_ada_1', 'int_ada_2', 'int_grace_1', 'int_grace_2', 'int_linus_1', 'int_linus_2', 'int_linus_3', 'int_linus_4',
  'int_outsider_1', 'int_outsider_2', 'int_margaret_acme', 'int_margaret_globex',
];
const ACME_VIEWS = ['view_acme_org', 'view_platform_team', 'view_mobile_team', 'view_ada_private', 'view_linus_private'];
const GLOBEX_VIEWS = ['view_globex_org', 'view_outsider_private'];
const ALL_VIEWS = [...ACME_VIEWS, ...GLOBEX_VIEWS];
const CATALOG = ['dora', 'flow', 'pull_requests', 'sprint', 'collaboration', 'wellbeing', 'activity', 'ai_usage', 'ai_impact', 'investment', 'cost'];

const except = (ids: readonly string[], ...keep: string[]) => ids.filter((id) => !keep.includes(id));

// List expectations used by several cells
const USERS_OF_ACME = has(ACME_USERS, GLOBEX_ONLY_USERS);
const USERS_OF_GLOBEX = has(GLOBEX_USERS, ACME_ONLY_USERS);
const TEAMS_OF_ACME = has(ACME_TEAMS, GLOBEX_TEAMS);
const TEAMS_OF_GLOBEX = has(GLOBEX_TEAMS, ACME_TEAMS);
const ONLY_PLATFORM = exact('team_platform');
const APPS_OF_ACME = has(ACME_APPS, GLOBEX_APPS);
const APPS_OF_GLOBEX = has(GLOBEX_APPS, ACME_APPS);
const GIT_APPS_OF_ACME = has(['gapp_acme_github'], ['gapp_globex_gitlab']);
const GIT_APPS_OF_GLOBEX = has(['gapp_globex_gitlab'], ['gapp_acme_github']);
const REPOS_OF_ACME_GITHUB = has(['repo_acme_api', 'repo_acme_web'], ['repo_globex_core']);
const REPOS_OF_GLOBEX_GITLAB = has(['repo_globex_core'], ['repo_acme_api', 'repo_acme_web']);
const COMMITS_OF_ACME_API = has(ACME_API_COMMITS, ['cmt_acme_web_1', ...GLOBEX_COMMITS]);
const COMMITS_OF_ACME = has(ACME_COMMITS, GLOBEX_COMMITS);
const COMMITS_OF_GLOBEX = has(GLOBEX_COMMITS, ACME_COMMITS);
const PRS_OF_ACME = has(ACME_PRS, GLOBEX_PRS);
const ACTIVITY_OF_ACME = has(ACME_PR_ACTIVITY, GLOBEX_PR_ACTIVITY);
const ACTIVITY_OF_GLOBEX = has(GLOBEX_PR_ACTIVITY, ACME_PR_ACTIVITY);
const PRS_OF_GLOBEX = has(GLOBEX_PRS, ACME_PRS);
const DEPLOYMENTS_OF_ACME = has(ACME_DEPLOYMENTS, GLOBEX_DEPLOYMENTS);
const DEPLOYMENTS_OF_GLOBEX = has(GLOBEX_DEPLOYMENTS, ACME_DEPLOYMENTS);
const INCIDENTS_OF_ACME = has(ACME_INCIDENTS, GLOBEX_INCIDENTS);
const INCIDENTS_OF_GLOBEX = has(GLOBEX_INCIDENTS, ACME_INCIDENTS);
const ACME_MEMBERS = has(ACME_USERS, GLOBEX_ONLY_USERS);
const GLOBEX_MEMBERS = has(GLOBEX_USERS, ACME_ONLY_USERS);
const PLATFORM_MEMBERS = has(['usr_grace', 'usr_linus'], ['usr_ada', 'usr_barbara', 'usr_margaret', 'usr_outsider', 'usr_hedy']);
const MOBILE_MEMBERS = has(['usr_barbara', 'usr_ada'], ['usr_grace', 'usr_linus', 'usr_margaret', 'usr_outsider', 'usr_hedy']);
const CORE_MEMBERS = has(['usr_hedy', 'usr_outsider'], ['usr_ada', 'usr_grace', 'usr_barbara', 'usr_linus', 'usr_margaret']);
const TASKS_OF_PLATFORM = has(PLATFORM_TASKS, CORE_TASKS);
const TASKS_OF_MOBILE = has([], [...PLATFORM_TASKS, ...CORE_TASKS]);
const TASKS_OF_CORE = has(CORE_TASKS, PLATFORM_TASKS);
const PLATFORM_INTERACTIONS = ['int_grace_1', 'int_grace_2', 'int_linus_1', 'int_linus_2'];
const INTERACTIONS_OF_PLATFORM = has(PLATFORM_INTERACTIONS, except(ALL_INTERACTIONS, ...PLATFORM_INTERACTIONS));
const INTERACTIONS_OF_MOBILE = has(['int_ada_2'], except(ALL_INTERACTIONS, 'int_ada_2'));
const only = (...ids: string[]) => has(ids, except(ALL_VIEWS, ...ids));

// ---------------------------------------------------------------------------------------------------
// The matrix. Columns: ada, grace, linus, outsider, org-scoped, team-scoped.

export const ROWS: readonly Row[] = [
  // ===== Users ================================================================================================
  // docs/api.md#who-sees-what User U: accessible iff U is the caller or shares an accessible organization with the caller.
  //                                                  ada          grace        linus        outsider     org-scoped   team-scoped
  list('/v1/users', 'user', [USERS_OF_ACME, USERS_OF_ACME, USERS_OF_ACME, USERS_OF_GLOBEX, USERS_OF_ACME, USERS_OF_ACME]),
  one('/v1/users/usr_ada', 'user',                   [OK,          OK,          OK,          F.user,      OK,          OK]),
  one('/v1/users/usr_grace', 'user',                 [OK,          OK,          OK,          F.user,      OK,          OK]),
  one('/v1/users/usr_linus', 'user',                 [OK,          OK,          OK,          F.user,      OK,          OK]),
  // org-scoped: margaret shares Globex with outsider, but her token reaches Acme only.
  one('/v1/users/usr_outsider', 'user',              [F.user,      F.user,      F.user,      OK,          F.user,      F.user]),
  // margaret is in both organizations: everyone shares one with her.
  one('/v1/users/usr_margaret', 'user',              [OK,          OK,          OK,          OK,          OK,          OK]),
  one('/v1/users/usr_nope', 'user', all(N.user)),

  // docs/api.md#who-sees-what User access, and "lists return only what the caller can access": the user's organizations ∩ the caller's reach.
  list('/v1/users/usr_ada/organizations', 'organization',      [exact('org_acme'), exact('org_acme'), exact('org_acme'), F.user, exact('org_acme'), exact('org_acme')]),
  list('/v1/users/usr_outsider/organizations', 'organization', [F.user, F.user, F.user, exact('org_globex'), F.user, F.user]),
  // Acme callers do not see that margaret is in Globex; outsider does not see Acme; margaret's own token is cut to Acme.
  list('/v1/users/usr_margaret/organizations', 'organization', [exact('org_acme'), exact('org_acme'), exact('org_acme'), exact('org_globex'), exact('org_acme'), exact('org_acme')]),
  list('/v1/users/usr_nope/organizations', 'organization', all(N.user)),

  // docs/api.md#who-sees-what User access; Team T reachable iff its org is and (team-scoped token) T is named. team-scoped: ada's team_mobile is cut.
  list('/v1/users/usr_ada/teams', 'team',      [exact('team_mobile'), exact('team_mobile'), exact('team_mobile'), F.user, exact('team_mobile'), exact()]),
  list('/v1/users/usr_linus/teams', 'team',    [ONLY_PLATFORM, ONLY_PLATFORM, ONLY_PLATFORM, F.user, ONLY_PLATFORM, ONLY_PLATFORM]),
  list('/v1/users/usr_outsider/teams', 'team', [F.user, F.user, F.user, exact('team_globex_core'), F.user, F.user]),
  list('/v1/users/usr_margaret/teams', 'team', all(exact())), // margaret is in no team
  list('/v1/users/usr_nope/teams', 'team', all(N.user)),

  // docs/api.md#who-sees-what User access, then Team access, then the membership itself (404 "Team member not found").
  //                                                              ada          grace        linus        outsider     org-scoped   team-scoped
  one('/v1/users/usr_linus/teams/team_platform', 'userTeam',      [OK,          OK,          OK,          F.user,      OK,          OK]),
  one('/v1/users/usr_ada/teams/team_mobile', 'userTeam',          [OK,          OK,          OK,          F.user,      OK,          F.team]),
  one('/v1/users/usr_outsider/teams/team_globex_core', 'userTeam', [F.user,     F.user,      F.user,      OK,          F.user,      F.user]),
  one('/v1/users/usr_linus/teams/team_globex_core', 'userTeam',   [F.team,      F.team,      F.team,      F.user,      F.team,      F.team]),
  one('/v1/users/usr_ada/teams/team_platform', 'userTeam',        [N.member,    N.member,    N.member,    F.user,      N.member,    N.member]),
  one('/v1/users/usr_margaret/teams/team_platform', 'userTeam',   [N.member,    N.member,    N.member,    F.team,      N.member,    N.member]),
  one('/v1/users/usr_margaret/teams/team_globex_core', 'userTeam', [F.team,     F.team,      F.team,      N.member,    F.team,      F.team]),
  one('/v1/users/usr_margaret/teams/team_nope', 'userTeam', all(N.team)),
  one('/v1/users/usr_nope/teams/team_platform', 'userTeam', all(N.user)),

  // docs/api.md#who-sees-what Personal data (apps): U themself, or an admin of a reachable org U belongs to (that org's items only).
  // A manager is not enough (grace over linus); margaret's Globex admin role is cut by her token's scope.
  list('/v1/users/usr_ada/apps', 'userApp',      [exact(...ACME_APPS), F.user, F.user, F.user, F.user, exact(...ACME_APPS)]),
  list('/v1/users/usr_linus/apps', 'userApp',    [exact(...ACME_APPS), F.user, exact(...ACME_APPS), F.user, F.user, exact(...ACME_APPS)]),
  list('/v1/users/usr_outsider/apps', 'userApp', [F.user, F.user, F.user, exact('app_globex_slack'), F.user, F.user]),
  // margaret's Globex binding is outside every Acme reach; outsider is no Globex admin.
  list('/v1/users/usr_margaret/apps', 'userApp', [exact('app_acme_slack'), F.user, F.user, F.user, exact('app_acme_slack'), exact('app_acme_slack')]),
  list('/v1/users/usr_nope/apps', 'userApp', all(N.user)),

  // Same rule for one binding; a binding outside the caller's reach (or none) is "App not found".
  //                                                                  ada          grace        linus        outsider     org-scoped   team-scoped
  one('/v1/users/usr_ada/apps/app_acme_jira', 'userApp',              [OK,          F.user,      F.user,      F.user,      F.user,      OK]),
  one('/v1/users/usr_linus/apps/app_acme_slack', 'userApp',           [OK,          F.user,      OK,          F.user,      F.user,      OK]),
  one('/v1/users/usr_outsider/apps/app_globex_slack', 'userApp',      [F.user,      F.user,      F.user,      OK,          F.user,      F.user]),
  one('/v1/users/usr_margaret/apps/app_acme_slack', 'userApp',        [OK,          F.user,      F.user,      F.user,      OK,          OK]),
  one('/v1/users/usr_margaret/apps/app_globex_slack', 'userApp',      [N.app,       F.user,      F.user,      F.user,      N.app,       N.app]),
  one('/v1/users/usr_ada/apps/app_globex_slack', 'userApp',           [N.app,       F.user,      F.user,      F.user,      F.user,      N.app]),
  one('/v1/users/usr_ada/apps/app_nope', 'userApp',                   [N.app,       F.user,      F.user,      F.user,      F.user,      N.app]),
  one('/v1/users/usr_nope/apps/app_acme_jira', 'userApp', all(N.user)),

  // docs/api.md#who-sees-what Personal data (git apps): as apps.
  list('/v1/users/usr_ada/git/apps', 'userGitApp',      [exact('gapp_acme_github'), F.user, F.user, F.user, F.user, exact('gapp_acme_github')]),
  list('/v1/users/usr_linus/git/apps', 'userGitApp',    [exact('gapp_acme_github'), F.user, exact('gapp_acme_github'), F.user, F.user, exact('gapp_acme_github')]),
  list('/v1/users/usr_outsider/git/apps', 'userGitApp', [F.user, F.user, F.user, exact('gapp_globex_gitlab'), F.user, F.user]),
  // margaret's only git account is on Globex's GitLab: nothing of it in an Acme reach.
  list('/v1/users/usr_margaret/git/apps', 'userGitApp', [exact(), F.user, F.user, F.user, exact(), exact()]),
  list('/v1/users/usr_nope/git/apps', 'userGitApp', all(N.user)),

  // docs/api.md#who-sees-what Personal data (dashboard views): U themself or an admin over U; the views available to U (their orgs' views,
  // their teams' views, their private views) within the caller's reach. team-scoped: team_mobile's view is cut.
  list('/v1/users/usr_ada/dashboard-views', 'dashboardView', [
    only('view_acme_org', 'view_mobile_team', 'view_ada_private'), F.user, F.user, F.user, F.user, only('view_acme_org', 'view_ada_private'),
  ]),
  list('/v1/users/usr_linus/dashboard-views', 'dashboardView', [
    only('view_acme_org', 'view_platform_team', 'view_linus_private'), F.user, only('view_acme_org', 'view_platform_team', 'view_linus_private'),
    F.user, F.user, only('view_acme_org', 'view_platform_team', 'view_linus_private'),
  ]),
  list('/v1/users/usr_outsider/dashboard-views', 'dashboardView', [F.user, F.user, F.user, only('view_globex_org', 'view_outsider_private'), F.user, F.user]),
  list('/v1/users/usr_margaret/dashboard-views', 'dashboardView', [only('view_acme_org'), F.user, F.user, F.user, only('view_acme_org'), only('view_acme_org')]),
  list('/v1/users/usr_nope/dashboard-views', 'dashboardView', all(N.user)),

  // One view of U's list; a view not among them (within the caller's reach) is "Dashboard view not found".
  //                                                                            ada          grace        linus        outsider     org-scoped   team-scoped
  one('/v1/users/usr_ada/dashboard-views/view_ada_private', 'dashboardView',    [OK,          F.user,      F.user,      F.user,      F.user,      OK]),
  one('/v1/users/usr_ada/dashboard-views/view_mobile_team', 'dashboardView',    [OK,          F.user,      F.user,      F.user,      F.user,      N.view]),
  one('/v1/users/usr_linus/dashboard-views/view_linus_private', 'dashboardView', [OK,         F.user,      OK,          F.user,      F.user,      OK]),
  one('/v1/users/usr_linus/dashboard-views/view_ada_private', 'dashboardView',  [N.view,      F.user,      N.view,      F.user,      F.user,      N.view]),
  one('/v1/users/usr_outsider/dashboard-views/view_outsider_private', 'dashboardView', [F.user, F.user,   F.user,      OK,          F.user,      F.user]),
  one('/v1/users/usr_ada/dashboard-views/view_globex_org', 'dashboardView',     [N.view,      F.user,      F.user,      F.user,      F.user,      N.view]),
  one('/v1/users/usr_ada/dashboard-views/view_nope', 'dashboardView',           [N.view,      F.user,      F.user,      F.user,      F.user,      N.view]),
  one('/v1/users/usr_nope/dashboard-views/view_acme_org', 'dashboardView', all(N.user)),

  // docs/api.md#who-sees-what Personal data (interactions): U themself, an admin over U, or a manager of a team U is a member of (that
  // team's interactions only: grace sees linus's two team_platform ones). team-scoped: interactions of teams
  // outside the scope are cut (int_ada_2 is team_mobile's).
  list('/v1/users/usr_ada/interactions', 'interaction',      [exact('int_ada_1', 'int_ada_2'), F.user, F.user, F.user, F.user, exact('int_ada_1')]),
  list('/v1/users/usr_grace/interactions', 'interaction',    [
    exact('int_grace_1', 'int_grace_2'), exact('int_grace_1', 'int_grace_2'), F.user, F.user, F.user, exact('int_grace_1', 'int_grace_2'),
  ]),
  list('/v1/users/usr_linus/interactions', 'interaction',    [
    exact('int_linus_1', 'int_linus_2', 'int_linus_3', 'int_linus_4'), exact('int_linus_1', 'int_linus_2'),
    exact('int_linus_1', 'int_linus_2', 'int_linus_3', 'int_linus_4'), F.user, F.user,
    exact('int_linus_1', 'int_linus_2', 'int_linus_3', 'int_linus_4'),
  ]),
  list('/v1/users/usr_outsider/interactions', 'interaction', [F.user, F.user, F.user, exact('int_outsider_1', 'int_outsider_2'), F.user, F.user]),
  // margaret's Globex interaction is outside every Acme reach, her own scoped token's included.
  list('/v1/users/usr_margaret/interactions', 'interaction', [exact('int_margaret_acme'), F.user, F.user, F.user, exact('int_margaret_acme'), exact('int_margaret_acme')]),
  list('/v1/users/usr_nope/interactions', 'interaction', all(N.user)),

  // ===== Organizations ========================================================================================
  // docs/api.md#who-sees-what Organization O: accessible iff the caller is a member of O and the scope allows O; its teams, apps to every member.
  //                                                          ada          grace        linus        outsider     org-scoped   team-scoped
  list('/v1/organizations', 'organization', [exact('org_acme'), exact('org_acme'), exact('org_acme'), exact('org_globex'), exact('org_acme'), exact('org_acme')]),
  one('/v1/organizations/org_acme', 'organization',           [OK,          OK,          OK,          F.org,       OK,          OK]),
  one('/v1/organizations/org_globex', 'organization',         [F.org,       F.org,       F.org,       OK,          F.org,       F.org]),
  one('/v1/organizations/org_nope', 'organization', all(N.org)),
  list('/v1/organizations/org_acme/members', 'user',          [ACME_MEMBERS, ACME_MEMBERS, ACME_MEMBERS, F.org,  ACME_MEMBERS, ACME_MEMBERS]),
  list('/v1/organizations/org_globex/members', 'user',        [F.org,       F.org,       F.org,       GLOBEX_MEMBERS, F.org,    F.org]),
  list('/v1/organizations/org_nope/members', 'user', all(N.org)),
  // team-scoped: only the named team is reachable, even in its reachable organization.
  list('/v1/organizations/org_acme/teams', 'team',            [TEAMS_OF_ACME, TEAMS_OF_ACME, TEAMS_OF_ACME, F.org, TEAMS_OF_ACME, ONLY_PLATFORM]),
  list('/v1/organizations/org_globex/teams', 'team',          [F.org,       F.org,       F.org,       TEAMS_OF_GLOBEX, F.org,   F.org]),
  list('/v1/organizations/org_nope/teams', 'team', all(N.org)),
  list('/v1/organizations/org_acme/apps', 'app',              [APPS_OF_ACME, APPS_OF_ACME, APPS_OF_ACME, F.org,   APPS_OF_ACME, APPS_OF_ACME]),
  list('/v1/organizations/org_globex/apps', 'app',            [F.org,       F.org,       F.org,       APPS_OF_GLOBEX, F.org,    F.org]),
  list('/v1/organizations/org_nope/apps', 'app', all(N.org)),
  // docs/telemetry.md: telemetry events are the organization's personal data: its admins only, and not through a team scope.
  list('/v1/organizations/org_acme/telemetry/events', 'telemetryEvent', [has([], []), F.org, F.org, F.org, F.org, F.org]),
  list('/v1/organizations/org_globex/telemetry/events', 'telemetryEvent', all(F.org)),
  list('/v1/organizations/org_nope/telemetry/events', 'telemetryEvent', all(N.org)),
  // docs/settings.md: the audit log, like telemetry events, is the admins' alone, and not through a token narrowed to teams.
  list('/v1/organizations/org_acme/audit-log', 'auditEntry', [has([], []), F.org, F.org, F.org, F.org, F.org]),
  list('/v1/organizations/org_globex/audit-log', 'auditEntry', all(F.org)),
  list('/v1/organizations/org_nope/audit-log', 'auditEntry', all(N.org)),

  // ===== Teams ================================================================================================
  // docs/api.md#who-sees-what Team T of O: accessible iff O is accessible and the scope, if it names teams, includes T. Members,
  // managers and tasks go with the team.
  //                                                                ada          grace        linus        outsider     org-scoped   team-scoped
  list('/v1/teams', 'team',                                         [TEAMS_OF_ACME, TEAMS_OF_ACME, TEAMS_OF_ACME, TEAMS_OF_GLOBEX, TEAMS_OF_ACME, ONLY_PLATFORM]),
  one('/v1/teams/team_platform', 'team',                            [OK,          OK,          OK,          F.team,      OK,          OK]),
  one('/v1/teams/team_mobile', 'team',                              [OK,          OK,          OK,          F.team,      OK,          F.team]),
  one('/v1/teams/team_globex_core', 'team',                         [F.team,      F.team,      F.team,      OK,          F.team,      F.team]),
  one('/v1/teams/team_nope', 'team', all(N.team)),
  list('/v1/teams/team_platform/members', 'user',                   [PLATFORM_MEMBERS, PLATFORM_MEMBERS, PLATFORM_MEMBERS, F.team, PLATFORM_MEMBERS, PLATFORM_MEMBERS]),
  list('/v1/teams/team_mobile/members', 'user',                     [MOBILE_MEMBERS, MOBILE_MEMBERS, MOBILE_MEMBERS, F.team, MOBILE_MEMBERS, F.team]),
  list('/v1/teams/team_globex_core/members', 'user',                [F.team,      F.team,      F.team,      CORE_MEMBERS, F.team,    F.team]),
  list('/v1/teams/team_nope/members', 'user', all(N.team)),
  one('/v1/teams/team_platform/members/usr_linus', 'user',          [OK,          OK,          OK,          F.team,      OK,          OK]),
  one('/v1/teams/team_mobile/members/usr_ada', 'user',              [OK,          OK,          OK,          F.team,      OK,          F.team]),
  one('/v1/teams/team_globex_core/members/usr_outsider', 'user',    [F.team,      F.team,      F.team,      OK,          F.team,      F.team]),
  one('/v1/teams/team_platform/members/usr_ada', 'user',            [N.member,    N.member,    N.member,    F.team,      N.member,    N.member]),
  one('/v1/teams/team_globex_core/members/usr_linus', 'user',       [F.team,      F.team,      F.team,      N.member,    F.team,      F.team]),
  one('/v1/teams/team_platform/members/usr_nope', 'user',           [N.member,    N.member,    N.member,    F.team,      N.member,    N.member]),
  one('/v1/teams/team_nope/members/usr_linus', 'user', all(N.team)),
  // Managers of the fixture teams are fixtures only (generated users join as members).
  list('/v1/teams/team_platform/managers', 'user',                  [exact('usr_grace'), exact('usr_grace'), exact('usr_grace'), F.team, exact('usr_grace'), exact('usr_grace')]),
  list('/v1/teams/team_mobile/managers', 'user',                    [exact('usr_barbara'), exact('usr_barbara'), exact('usr_barbara'), F.team, exact('usr_barbara'), F.team]),
  list('/v1/teams/team_globex_core/managers', 'user',               [F.team,      F.team,      F.team,      exact('usr_hedy'), F.team, F.team]),
  list('/v1/teams/team_nope/managers', 'user', all(N.team)),
  list('/v1/teams/team_platform/tasks', 'task',                     [TASKS_OF_PLATFORM, TASKS_OF_PLATFORM, TASKS_OF_PLATFORM, F.team, TASKS_OF_PLATFORM, TASKS_OF_PLATFORM]),
  list('/v1/teams/team_mobile/tasks', 'task',                       [TASKS_OF_MOBILE, TASKS_OF_MOBILE, TASKS_OF_MOBILE, F.team, TASKS_OF_MOBILE, F.team]),
  list('/v1/teams/team_globex_core/tasks', 'task',                  [F.team,      F.team,      F.team,      TASKS_OF_CORE, F.team,   F.team]),
  list('/v1/teams/team_nope/tasks', 'task', all(N.team)),
  // docs/api.md#who-sees-what /teams/T/interactions: admins of T's organization and managers of T (a plain member is not enough:
  // linus on team_platform, outsider on team_globex_core).
  list('/v1/teams/team_platform/interactions', 'interaction',       [INTERACTIONS_OF_PLATFORM, INTERACTIONS_OF_PLATFORM, F.team, F.team, F.team, INTERACTIONS_OF_PLATFORM]),
  list('/v1/teams/team_mobile/interactions', 'interaction',         [INTERACTIONS_OF_MOBILE, F.team, F.team, F.team, F.team, F.team]),
  list('/v1/teams/team_globex_core/interactions', 'interaction',    [F.team,      F.team,      F.team,      F.team,      F.team,      F.team]),
  list('/v1/teams/team_nope/interactions', 'interaction', all(N.team)),

  // ===== Git ==================================================================================================
  // docs/api.md#who-sees-what Git apps, repositories, commits, pull requests: any caller who can access the owning organization
  // (team scopes do not narrow them). A repository addressed under another git app is "Repository not found".
  //                                                                                ada          grace        linus        outsider     org-scoped   team-scoped
  list('/v1/git/apps', 'gitApp',                                                    [GIT_APPS_OF_ACME, GIT_APPS_OF_ACME, GIT_APPS_OF_ACME, GIT_APPS_OF_GLOBEX, GIT_APPS_OF_ACME, GIT_APPS_OF_ACME]),
  list('/v1/git/apps/gapp_acme_github/repositories', 'repository',                  [REPOS_OF_ACME_GITHUB, REPOS_OF_ACME_GITHUB, REPOS_OF_ACME_GITHUB, F.gitApp, REPOS_OF_ACME_GITHUB, REPOS_OF_ACME_GITHUB]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories', 'repository',                [F.gitApp,    F.gitApp,    F.gitApp,    REPOS_OF_GLOBEX_GITLAB, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_nope/repositories', 'repository', all(N.gitApp)),

  list('/v1/git/apps/gapp_acme_github/repositories/repo_acme_api/commits', 'commit', [COMMITS_OF_ACME_API, COMMITS_OF_ACME_API, COMMITS_OF_ACME_API, F.gitApp, COMMITS_OF_ACME_API, COMMITS_OF_ACME_API]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_globex_core/commits', 'commit', [F.gitApp, F.gitApp, F.gitApp, COMMITS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_globex_core/commits', 'commit', [N.repo, N.repo,      N.repo,      F.gitApp,    N.repo,      N.repo]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_acme_api/commits', 'commit', [F.gitApp, F.gitApp,  F.gitApp,    N.repo,      F.gitApp,    F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_nope/commits', 'commit',     [N.repo,      N.repo,      N.repo,      F.gitApp,    N.repo,      N.repo]),
  list('/v1/git/apps/gapp_nope/repositories/repo_acme_api/commits', 'commit', all(N.gitApp)),

  list('/v1/git/apps/gapp_acme_github/repositories/repo_acme_api/pull-requests', 'pullRequest', [PRS_OF_ACME, PRS_OF_ACME, PRS_OF_ACME, F.gitApp, PRS_OF_ACME, PRS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_globex_core/pull-requests', 'pullRequest', [F.gitApp, F.gitApp, F.gitApp, PRS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_globex_core/pull-requests', 'pullRequest', [N.repo, N.repo, N.repo,   F.gitApp,    N.repo,      N.repo]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_acme_api/pull-requests', 'pullRequest', [F.gitApp, F.gitApp, F.gitApp, N.repo,    F.gitApp,    F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_nope/pull-requests', 'pullRequest', [N.repo, N.repo,    N.repo,      F.gitApp,    N.repo,      N.repo]),
  list('/v1/git/apps/gapp_nope/repositories/repo_acme_api/pull-requests', 'pullRequest', all(N.gitApp)),

  // docs/metrics.md#ai-review-and-cost-figures A pull request's activity: as its pull request. One addressed under another repository or git app is not found.
  list('/v1/git/apps/gapp_acme_github/repositories/repo_acme_api/pull-requests/pr_acme_api_1/activity', 'pullRequestActivity', [ACTIVITY_OF_ACME, ACTIVITY_OF_ACME, ACTIVITY_OF_ACME, F.gitApp, ACTIVITY_OF_ACME, ACTIVITY_OF_ACME]),
  list('/v1/git/apps/gapp_acme_github/repositories/all/pull-requests/pr_acme_api_1/activity', 'pullRequestActivity', [ACTIVITY_OF_ACME, ACTIVITY_OF_ACME, ACTIVITY_OF_ACME, F.gitApp, ACTIVITY_OF_ACME, ACTIVITY_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_globex_core/pull-requests/pr_globex_core_1/activity', 'pullRequestActivity', [F.gitApp, F.gitApp, F.gitApp, ACTIVITY_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_acme_web/pull-requests/pr_acme_api_1/activity', 'pullRequestActivity', [N.pr, N.pr, N.pr, F.gitApp, N.pr, N.pr]),
  list('/v1/git/apps/gapp_acme_github/repositories/all/pull-requests/pr_globex_core_1/activity', 'pullRequestActivity', [N.pr, N.pr, N.pr, F.gitApp, N.pr, N.pr]),
  list('/v1/git/apps/gapp_nope/repositories/all/pull-requests/pr_acme_api_1/activity', 'pullRequestActivity', all(N.gitApp)),

  // `all` in place of the repository: every repository of the git app.
  list('/v1/git/apps/gapp_acme_github/repositories/all/commits', 'commit',           [COMMITS_OF_ACME, COMMITS_OF_ACME, COMMITS_OF_ACME, F.gitApp, COMMITS_OF_ACME, COMMITS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/all/commits', 'commit',         [F.gitApp,    F.gitApp,    F.gitApp,    COMMITS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_nope/repositories/all/commits', 'commit', all(N.gitApp)),
  list('/v1/git/apps/gapp_acme_github/repositories/all/pull-requests', 'pullRequest', [PRS_OF_ACME, PRS_OF_ACME, PRS_OF_ACME, F.gitApp,    PRS_OF_ACME, PRS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/all/pull-requests', 'pullRequest', [F.gitApp, F.gitApp,   F.gitApp,    PRS_OF_GLOBEX, F.gitApp,  F.gitApp]),
  list('/v1/git/apps/gapp_nope/repositories/all/pull-requests', 'pullRequest', all(N.gitApp)),
  // docs/ingest.md Deployments and incidents: as commits and pull requests, the owning organization's members.
  list('/v1/git/apps/gapp_acme_github/repositories/repo_acme_api/deployments', 'deployment', [DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME, F.gitApp, DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_globex_core/deployments', 'deployment', [F.gitApp, F.gitApp, F.gitApp, DEPLOYMENTS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_globex_core/deployments', 'deployment', [N.repo, N.repo, N.repo, F.gitApp, N.repo, N.repo]),
  list('/v1/git/apps/gapp_nope/repositories/repo_acme_api/deployments', 'deployment', all(N.gitApp)),
  list('/v1/git/apps/gapp_acme_github/repositories/all/deployments', 'deployment', [DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME, F.gitApp, DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/all/deployments', 'deployment', [F.gitApp, F.gitApp, F.gitApp, DEPLOYMENTS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/repo_acme_api/incidents', 'incident', [INCIDENTS_OF_ACME, INCIDENTS_OF_ACME, INCIDENTS_OF_ACME, F.gitApp, INCIDENTS_OF_ACME, INCIDENTS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_globex_core/incidents', 'incident', [F.gitApp, F.gitApp, F.gitApp, INCIDENTS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/repo_acme_api/incidents', 'incident', [F.gitApp, F.gitApp, F.gitApp, N.repo, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_acme_github/repositories/all/incidents', 'incident', [INCIDENTS_OF_ACME, INCIDENTS_OF_ACME, INCIDENTS_OF_ACME, F.gitApp, INCIDENTS_OF_ACME, INCIDENTS_OF_ACME]),
  list('/v1/git/apps/gapp_globex_gitlab/repositories/all/incidents', 'incident', [F.gitApp, F.gitApp, F.gitApp, INCIDENTS_OF_GLOBEX, F.gitApp, F.gitApp]),
  list('/v1/git/apps/gapp_nope/repositories/all/incidents', 'incident', all(N.gitApp)),
  // docs/incidents.md: every incident and deployment of an organization, mapped or not, for its members.
  list('/v1/organizations/org_acme/incidents', 'incident',       [INCIDENTS_OF_ACME, INCIDENTS_OF_ACME, INCIDENTS_OF_ACME, F.org, INCIDENTS_OF_ACME, INCIDENTS_OF_ACME]),
  list('/v1/organizations/org_globex/incidents', 'incident',     [F.org, F.org, F.org, INCIDENTS_OF_GLOBEX, F.org, F.org]),
  list('/v1/organizations/org_nope/incidents', 'incident',       all(N.org)),
  list('/v1/organizations/org_acme/deployments', 'deployment',   [DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME, F.org, DEPLOYMENTS_OF_ACME, DEPLOYMENTS_OF_ACME]),
  list('/v1/organizations/org_globex/deployments', 'deployment', [F.org, F.org, F.org, DEPLOYMENTS_OF_GLOBEX, F.org, F.org]),
  list('/v1/organizations/org_nope/deployments', 'deployment',   all(N.org)),

  // /v1/commits: commits of every repository of every organization the caller can access.
  list('/v1/commits', 'commit',                                                     [COMMITS_OF_ACME, COMMITS_OF_ACME, COMMITS_OF_ACME, COMMITS_OF_GLOBEX, COMMITS_OF_ACME, COMMITS_OF_ACME]),

  // ===== Dashboard views ======================================================================================
  // docs/api.md#who-sees-what Dashboard views: `organization` ones to members of that org, `team` ones to members of that team,
  // `private` ones to their owner (and org admins: read as every view of their org, team views included).
  // A token's team scope cuts team views of other teams (team-scoped ada loses view_mobile_team).
  list('/v1/dashboard-views', 'dashboardView', [
    /* ada */ only(...ACME_VIEWS),
    /* grace */ only('view_acme_org', 'view_platform_team'),
    /* linus */ only('view_acme_org', 'view_platform_team', 'view_linus_private'),
    /* outsider */ only(...GLOBEX_VIEWS),
    /* org-scoped */ only('view_acme_org'),
    /* team-scoped */ only('view_acme_org', 'view_platform_team', 'view_ada_private', 'view_linus_private'),
  ]),
  //                                                                ada          grace        linus        outsider     org-scoped   team-scoped
  one('/v1/dashboard-views/view_acme_org', 'dashboardView',         [OK,          OK,          OK,          F.view,      OK,          OK]),
  one('/v1/dashboard-views/view_platform_team', 'dashboardView',    [OK,          OK,          OK,          F.view,      F.view,      OK]),
  one('/v1/dashboard-views/view_mobile_team', 'dashboardView',      [OK,          F.view,      F.view,      F.view,      F.view,      F.view]),
  one('/v1/dashboard-views/view_ada_private', 'dashboardView',      [OK,          F.view,      F.view,      F.view,      F.view,      OK]),
  one('/v1/dashboard-views/view_linus_private', 'dashboardView',    [OK,          F.view,      OK,          F.view,      F.view,      OK]),
  // org-scoped: margaret is a Globex admin, but her token reaches Acme only.
  one('/v1/dashboard-views/view_globex_org', 'dashboardView',       [F.view,      F.view,      F.view,      OK,          F.view,      F.view]),
  one('/v1/dashboard-views/view_outsider_private', 'dashboardView', [F.view,      F.view,      F.view,      OK,          F.view,      F.view]),
  one('/v1/dashboard-views/view_nope', 'dashboardView', all(N.view)),
  // The catalog is not organization data: the same fixed list for every caller.
  list('/v1/dashboard-views/catalog', 'catalogEntry', all(exact(...CATALOG))),

  // ===== Metrics (docs/metrics.md) ========================================================================================
  // An organization's figures: as the organization, but not for a team-scoped token (they cover every team).
  ...metrics('organization_id=org_acme',     [M,           M,           M,           F.org,       M,           F.org]),
  ...metrics('organization_id=org_globex',   [F.org,       F.org,       F.org,       M,           F.org,       F.org]),
  ...metrics('organization_id=org_nope', all(N.org)),
  // A team's figures: as the team.
  ...metrics('team_id=team_platform',        [M,           M,           M,           F.team,      M,           M]),
  ...metrics('team_id=team_mobile',          [M,           M,           M,           F.team,      M,           F.team]),
  ...metrics('team_id=team_globex_core',     [F.team,      F.team,      F.team,      M,           F.team,      F.team]),
  ...metrics('team_id=team_nope', all(N.team)),
  // Money ($): the organization's admins only, whatever the scope.
  financial('organization_id=org_acme',      [M,           $,           $,           F.org,       $,           F.org]),
  financial('organization_id=org_globex',    [F.org,       F.org,       F.org,       $,           F.org,       F.org]),
  financial('organization_id=org_nope', all(N.org)),
  financial('team_id=team_platform',         [M,           $,           $,           F.team,      $,           M]),
  financial('team_id=team_mobile',           [M,           $,           $,           F.team,      $,           F.team]),
  financial('team_id=team_globex_core',      [F.team,      F.team,      F.team,      $,           F.team,      F.team]),
  financial('team_id=team_nope', all(N.team)),
];
