/**
 * The list endpoints the floor answers, keyed by the API's OpenAPI path templates (under /v1), each read by
 * the best plan known for the large demo data (docs/performance.md#the-plans-the-lists-avoid). No access
 * checks: the floor answers for one caller and only measures what reading the same data costs.
 */
import { and, count, indexedPage, inList, or, PageQuery, smallPage, Sql } from './sql';

/** The caller's memberships, read once at start-up. */
export interface Caller {
  userId: string;
  orgIds: string[];
  adminOrgIds: string[];
  teamIds: string[];
  managedTeamIds: string[];
}

/** The memberships of the user a `/users/{user_id}/…` path addresses. */
export interface Target {
  userId: string;
  orgIds: string[];
  teamIds: string[];
}

export interface Ctx {
  caller: Caller;
  params: Record<string, string>;
  target: Target;
  /**
   * Which member indexes the schema has: (scope, status, user field, user_id) with membership states
   * (migration 0004), (scope, user field, user_id) before them (0002), or none (walk the users instead).
   */
  memberIndexes: MemberIndexes;
}

export type MemberIndexes = 'status' | 'plain' | 'none';

/** Only active memberships count, where memberships have states. */
const activeMembers = (c: Ctx, alias = ''): Sql | undefined =>
  c.memberIndexes === 'status' ? { sql: `${alias}status = 'active'`, args: [] } : undefined;

export interface ListDef {
  sorts: readonly [string, ...string[]];
  defaultOrder?: 'asc' | 'desc';
  page(c: Ctx, q: PageQuery): Sql;
  count(c: Ctx): Sql;
}

const COLUMNS = {
  users: 't.id, t.name, t.email, t.created_at',
  organizations: 't.id, t.name, t.created_at',
  teams: 't.id, t.organization_id, t.name, t.created_at',
  apps: 't.id, t.organization_id, t.provider, t.category, t.name, t.is_active, t.created_at',
  git_apps: 't.id, t.organization_id, t.provider, t.name, t.is_active, t.created_at',
  repositories: 't.id, t.git_app_id, t.name, t.full_name, t.default_branch, t.is_private, t.created_at',
  commits: 't.id, t.repository_id, t.sha, t.message, t.author_id, t.author_name, t.additions, t.deletions, t.created_at',
  pull_requests: 't.id, t.repository_id, t.number, t.title, t.state, t.author_id, t.created_at, t.merged_at, t.closed_at',
  deployments: 't.id, t.repository_id, t.app_id, t.board_key AS service, t.environment, t.status, t.sha, t.created_at, t.finished_at',
  incidents: 't.id, t.repository_id, t.app_id, t.board_key AS service, t.title, t.cause_sha, t.fix_sha, t.created_at, t.resolved_at',
  tasks: 't.id, t.team_id, t.title, t.type, t.status, t.assignee_id, t.parent_id, t.story_points, t.created_at, t.completed_at',
  interactions: 't.id, t.type, t.source, t.user_id, t.counterpart_id, t.team_id, t.created_at',
  dashboard_views: 't.id, t.name, t.type, t.visibility, t.organization_id, t.team_id, t.owner_id, t.created_at',
} as const;

type Table = keyof typeof COLUMNS;

/** A list that is one range of the migration's `${table}_${scope}_${sort}_id` index, plus an optional filter. */
function indexed(
  table: Table,
  scopeColumn: string,
  sorts: readonly [string, ...string[]],
  scope: (c: Ctx) => string[],
  filter?: (c: Ctx) => Sql,
): ListDef {
  const where = (c: Ctx) => and(inList(scopeColumn, scope(c)), filter?.(c));
  return {
    sorts,
    page: (c, q) => indexedPage(table, COLUMNS[table], `${table}_${scopeColumn}_${q.sort}_id`, where(c), q),
    count: (c) => count(table, where(c)),
  };
}

/**
 * Users of the caller's organizations, newest (or by name/e-mail) first. With the membership sort indexes, the
 * page's user ids are one range of (organization_id, user_<sort>, user_id); the role is probed afterwards so
 * the skipped rows of a deep page are never read. Without them: walk the users' (sort, id) index and probe the
 * membership primary key for each (eq_ref), so a page reads about its own rows instead of every membership of
 * an 80,000-member organization (docs/performance.md#the-plans-the-lists-avoid); dense scopes only, a sparse one would skip most of the walk.
 */
function usersOf(orgIds: readonly string[], q: PageQuery, withRole: boolean, memberIndexes: MemberIndexes): Sql {
  const order = (alias: string) => `${alias}.${q.sort} ${q.dir}, ${alias}.id ${q.dir}`;
  if (memberIndexes !== 'none' && orgIds.length === 1) {
    const [index, active] =
      memberIndexes === 'status'
        ? [`org_members_by_status_user_${q.sort}`, " AND m.status = 'active'"]
        : [`organization_memberships_organization_id_user_${q.sort}_user_id`, ''];
    const keys =
      `SELECT m.user_id AS id FROM organization_memberships m FORCE INDEX (${index}) ` +
      `WHERE m.organization_id = ?${active} ORDER BY m.user_${q.sort} ${q.dir}, m.user_id ${q.dir} LIMIT ? OFFSET ?`;
    const role = withRole ? ' STRAIGHT_JOIN organization_memberships r ON r.organization_id = ? AND r.user_id = p.id' : '';
    return {
      sql: `SELECT ${COLUMNS.users}${withRole ? ', r.role' : ''} FROM (${keys}) p STRAIGHT_JOIN users t ON t.id = p.id${role} ORDER BY ${order('t')}`,
      args: [orgIds[0], q.limit, q.offset, ...(withRole ? [orgIds[0]] : [])],
    };
  }
  const walk = `FROM users u FORCE INDEX (users_${q.sort}_id)`;
  const inner =
    orgIds.length === 1
      ? `SELECT u.id${withRole ? ', m.role' : ''} ${walk} STRAIGHT_JOIN organization_memberships m ` +
        `ON m.organization_id = ? AND m.user_id = u.id ORDER BY ${order('u')} LIMIT ? OFFSET ?`
      : // Several organizations: a user in two of them must appear once; not a case of the demo caller.
        `SELECT u.id ${walk} WHERE EXISTS (SELECT 1 FROM organization_memberships m WHERE m.user_id = u.id AND ` +
        `${inList('m.organization_id', orgIds).sql}) ORDER BY ${order('u')} LIMIT ? OFFSET ?`;
  return {
    sql: `SELECT ${COLUMNS.users}${withRole ? ', p.role' : ''} FROM (${inner}) p STRAIGHT_JOIN users t ON t.id = p.id ORDER BY ${order('t')}`,
    args: [...orgIds, q.limit, q.offset],
  };
}

/** Members of one team (a few dozen): the team's memberships joined to their users, sorted outright. */
function teamMembers(managersOnly: boolean): ListDef {
  const where = (c: Ctx) =>
    and({ sql: 'tm.team_id = ?', args: [c.params.team_id] }, managersOnly ? { sql: "tm.role = 'manager'", args: [] } : undefined, activeMembers(c, 'tm.'));
  return {
    sorts: ['created_at', 'name', 'email'],
    page: (c, q) =>
      smallPage(
        `SELECT ${COLUMNS.users}, tm.title FROM team_memberships tm STRAIGHT_JOIN users t ON t.id = tm.user_id`,
        where(c),
        `t.${q.sort} ${q.dir}, t.id ${q.dir}`,
        q,
      ),
    count: (c) => count('team_memberships tm', where(c)),
  };
}

/** Where the caller may read the addressed user's personal data (docs/api.md#who-sees-what): all of it for themself, else admin orgs. */
function personalOrgs(c: Ctx): string[] {
  if (c.target.userId === c.caller.userId) return c.caller.orgIds;
  return c.target.orgIds.filter((o) => c.caller.adminOrgIds.includes(o));
}

/** A user's accounts on apps or git apps: the binding rows of one user (a handful), joined to their app. */
function bindings(bindingTable: string, appTable: 'apps' | 'git_apps', appColumn: string, extra: string): ListDef {
  const from = `FROM ${bindingTable} b STRAIGHT_JOIN ${appTable} a ON a.id = b.${appColumn}`;
  const where = (c: Ctx) => and({ sql: 'b.user_id = ?', args: [c.params.user_id] }, inList('a.organization_id', personalOrgs(c)));
  return {
    sorts: ['created_at', 'name'],
    page: (c, q) =>
      smallPage(
        `SELECT a.id, a.provider, a.name, b.user_id, b.${extra}, b.created_at ${from}`,
        where(c),
        `${q.sort === 'name' ? 'a.name' : 'b.created_at'} ${q.dir}, a.id ${q.dir}`,
        q,
      ),
    count: (c) => ({ sql: `SELECT COUNT(*) AS n ${from} WHERE ${where(c).sql}`, args: where(c).args }),
  };
}

const onlyAdmin = (c: Ctx) => c.caller.orgIds.every((o) => c.caller.adminOrgIds.includes(o));
const isOrgView: Sql = { sql: "visibility = 'organization'", args: [] };
const teamViews = (teamIds: string[]) => and({ sql: "visibility = 'team'", args: [] }, inList('team_id', teamIds));
const privateViews = (owner: string): Sql => ({ sql: "visibility = 'private' AND owner_id = ?", args: [owner] });
const TRUE: Sql = { sql: 'TRUE', args: [] };
const byT = (q: PageQuery) => `t.${q.sort} ${q.dir}, t.id ${q.dir}`;
const sharedOrgs = (c: Ctx) => c.target.orgIds.filter((o) => c.caller.orgIds.includes(o));
const userTeams = (c: Ctx, alias: string) => and(inList(`${alias}id`, c.target.teamIds), inList(`${alias}organization_id`, c.caller.orgIds));

export const LISTS: Record<string, ListDef> = {
  '/users': {
    sorts: ['created_at', 'name', 'email'],
    page: (c, q) =>
      c.caller.orgIds.length
        ? usersOf(c.caller.orgIds, q, false, c.memberIndexes)
        : smallPage(`SELECT ${COLUMNS.users} FROM users t`, { sql: 't.id = ?', args: [c.caller.userId] }, 't.id', q),
    // One organization: its memberships are its users (a covering range of the primary key).
    count: (c) =>
      c.caller.orgIds.length === 1
        ? count('organization_memberships', and(inList('organization_id', c.caller.orgIds), activeMembers(c)))
        : { sql: `SELECT COUNT(DISTINCT user_id) AS n FROM organization_memberships WHERE ${inList('organization_id', c.caller.orgIds).sql}`,
            args: c.caller.orgIds },
  },
  '/organizations': {
    sorts: ['created_at', 'name'],
    page: (c, q) => smallPage(`SELECT ${COLUMNS.organizations} FROM organizations t`, inList('t.id', c.caller.orgIds), byT(q), q),
    count: (c) => count('organizations', inList('id', c.caller.orgIds)),
  },
  '/organizations/{organization_id}/members': {
    sorts: ['created_at', 'name', 'email'],
    page: (c, q) => usersOf([c.params.organization_id], q, true, c.memberIndexes),
    count: (c) => count('organization_memberships', and(inList('organization_id', [c.params.organization_id]), activeMembers(c))),
  },
  '/organizations/{organization_id}/teams': indexed('teams', 'organization_id', ['created_at', 'name'], (c) => [c.params.organization_id]),
  '/organizations/{organization_id}/apps': indexed('apps', 'organization_id', ['created_at', 'name'], (c) => [c.params.organization_id]),
  '/organizations/{organization_id}/incidents': indexed('incidents', 'organization_id', ['created_at'], (c) => [c.params.organization_id]),
  '/organizations/{organization_id}/deployments': indexed('deployments', 'organization_id', ['created_at'], (c) => [c.params.organization_id]),
  '/teams': indexed('teams', 'organization_id', ['created_at', 'name'], (c) => c.caller.orgIds),
  '/teams/{team_id}/members': teamMembers(false),
  '/teams/{team_id}/managers': teamMembers(true),
  '/teams/{team_id}/tasks': indexed('tasks', 'team_id', ['created_at', 'title'], (c) => [c.params.team_id]),
  '/teams/{team_id}/interactions': indexed('interactions', 'team_id', ['created_at'], (c) => [c.params.team_id]),
  '/git/apps': indexed('git_apps', 'organization_id', ['created_at', 'name'], (c) => c.caller.orgIds),
  '/git/apps/{id}/repositories': indexed('repositories', 'git_app_id', ['created_at', 'name'], (c) => [c.params.id]),
  '/git/apps/{id}/repositories/all/commits': indexed('commits', 'git_app_id', ['created_at'], (c) => [c.params.id]),
  '/git/apps/{id}/repositories/all/pull-requests': indexed('pull_requests', 'git_app_id', ['created_at', 'title'], (c) => [c.params.id]),
  '/git/apps/{id}/repositories/{repo}/commits': indexed('commits', 'repository_id', ['created_at'], (c) => [c.params.repo]),
  '/git/apps/{id}/repositories/{repo}/pull-requests': indexed('pull_requests', 'repository_id', ['created_at', 'title'], (c) => [c.params.repo]),
  '/git/apps/{id}/repositories/all/deployments': indexed('deployments', 'git_app_id', ['created_at'], (c) => [c.params.id]),
  '/git/apps/{id}/repositories/all/incidents': indexed('incidents', 'git_app_id', ['created_at'], (c) => [c.params.id]),
  '/git/apps/{id}/repositories/{repo}/deployments': indexed('deployments', 'repository_id', ['created_at'], (c) => [c.params.repo]),
  '/git/apps/{id}/repositories/{repo}/incidents': indexed('incidents', 'repository_id', ['created_at'], (c) => [c.params.repo]),
  '/commits': indexed('commits', 'organization_id', ['created_at'], (c) => c.caller.orgIds),
  // An admin of every organization they are in sees all of their views: the filter is dropped, not evaluated.
  '/dashboard-views': indexed('dashboard_views', 'organization_id', ['created_at', 'name'], (c) => c.caller.orgIds, (c) =>
    onlyAdmin(c)
      ? TRUE
      : or(inList('organization_id', c.caller.adminOrgIds), isOrgView, teamViews(c.caller.teamIds), privateViews(c.caller.userId)),
  ),
  '/dashboard-views/catalog': {
    sorts: ['key', 'name'],
    defaultOrder: 'asc',
    page: (_c, q) => smallPage('SELECT `key`, name, description, category FROM dashboard_catalog', TRUE, `\`${q.sort}\` ${q.dir}, \`key\` ${q.dir}`, q),
    count: () => count('dashboard_catalog', TRUE),
  },
  '/users/{user_id}/organizations': {
    sorts: ['created_at', 'name'],
    page: (c, q) => smallPage(`SELECT ${COLUMNS.organizations} FROM organizations t`, inList('t.id', sharedOrgs(c)), byT(q), q),
    count: (c) => count('organizations', inList('id', sharedOrgs(c))),
  },
  '/users/{user_id}/teams': {
    sorts: ['created_at', 'name'],
    page: (c, q) => smallPage(`SELECT ${COLUMNS.teams} FROM teams t`, userTeams(c, 't.'), byT(q), q),
    count: (c) => count('teams', userTeams(c, '')),
  },
  '/users/{user_id}/apps': bindings('user_apps', 'apps', 'app_id', 'external_user_id'),
  '/users/{user_id}/git/apps': bindings('user_git_apps', 'git_apps', 'git_app_id', 'username'),
  '/users/{user_id}/dashboard-views': indexed('dashboard_views', 'organization_id', ['created_at', 'name'], personalOrgs, (c) =>
    or(isOrgView, teamViews(c.target.teamIds), privateViews(c.target.userId)),
  ),
  '/users/{user_id}/interactions': indexed('interactions', 'user_id', ['created_at'], (c) => [c.target.userId], (c) => {
    const managed = c.target.userId === c.caller.userId ? [] : c.target.teamIds.filter((t) => c.caller.managedTeamIds.includes(t));
    return or(inList('organization_id', personalOrgs(c)), inList('team_id', managed));
  }),
};
