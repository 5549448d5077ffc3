import request from 'supertest';
import { App, DashboardView, GitApp, Interaction, OrganizationMembership, PullRequest, Repository, Team } from '../../db/models';
import { startTestApp, TestApp } from '../support/harness';
import { Body, expectError } from '../support/assertions';
import { ACTOR_NAMES, ACTORS, Actor, ActorName, Cell, ItemKind, Row, ROWS, TARGETS } from './accessMatrix.table';

/**
 * The access matrix of docs/api.md#who-sees-what (test/api/accessMatrix.table.ts): one test per (row, actor) cell, named
 * "<actor> GET <path>", plus a no-leak test for every cell that answers 200.
 */

let t: TestApp;
const tokens = {} as Record<ActorName, string>;

/** Who owns what, read from the seeded database: the no-leak check resolves items to organizations (and teams). */
interface Owners {
  userOrganizations: Map<string, Set<string>>;
  teamOrganization: Map<string, string>;
  appOrganization: Map<string, string>;
  gitAppOrganization: Map<string, string>;
  repositoryOrganization: Map<string, string>;
  pullRequestOrganization: Map<string, string>;
  interactionOrganization: Map<string, string>;
  views: Map<string, DashboardView>;
}
let owners: Owners;

async function loadOwners(): Promise<Owners> {
  const [memberships, teams, apps, gitApps, repositories, pullRequests, interactions, views] = await Promise.all([
    OrganizationMembership.findAll({ attributes: ['user_id', 'organization_id'] }),
    Team.findAll({ attributes: ['id', 'organization_id'] }),
    App.findAll({ attributes: ['id', 'organization_id'] }),
    GitApp.findAll({ attributes: ['id', 'organization_id'] }),
    Repository.findAll({ attributes: ['id', 'organization_id'] }),
    PullRequest.findAll({ attributes: ['id', 'organization_id'] }),
    Interaction.findAll({ attributes: ['id', 'organization_id'] }),
    DashboardView.findAll(),
  ]);
  const userOrganizations = new Map<string, Set<string>>();
  for (const m of memberships) {
    if (!userOrganizations.has(m.user_id)) userOrganizations.set(m.user_id, new Set());
    userOrganizations.get(m.user_id)!.add(m.organization_id);
  }
  const byId = (rows: { id: string; organization_id: string }[]) => new Map(rows.map((r) => [r.id, r.organization_id]));
  return {
    userOrganizations,
    teamOrganization: byId(teams),
    appOrganization: byId(apps),
    gitAppOrganization: byId(gitApps),
    repositoryOrganization: byId(repositories),
    pullRequestOrganization: byId(pullRequests),
    interactionOrganization: byId(interactions),
    views: new Map(views.map((v) => [v.id, v])),
  };
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' });
  for (const name of ACTOR_NAMES) tokens[name] = await t.token(ACTORS[name].token);
  owners = await loadOwners();
});
afterAll(async () => t?.close());

// ---------------------------------------------------------------------------------------------------
// Requests

const idField = (kind: ItemKind) => (kind === 'catalogEntry' ? 'key' : kind === 'userTeam' ? 'team_id' : 'id');

/** The whole list (per_page=100, every page) or the single response. */
async function fetchCell(row: Row, actor: ActorName): Promise<{ res: request.Response; items: Body[] }> {
  if (row.shape === 'one' || row.shape === 'metric') {
    const res = await t.get(row.path, tokens[actor]);
    return { res, items: res.status === 200 ? [res.body.data] : [] };
  }
  const first = await t.get(`${row.path}?per_page=100`, tokens[actor]);
  if (first.status !== 200) return { res: first, items: [] };
  const items: Body[] = [...first.body.data];
  for (let page = 2; page <= first.body.meta.total_pages; page++) {
    const res = await t.get(`${row.path}?per_page=100&page=${page}`, tokens[actor]);
    expect({ page, status: res.status }).toEqual({ page, status: 200 });
    items.push(...res.body.data);
  }
  return { res: first, items };
}

// ---------------------------------------------------------------------------------------------------
// The cells

const CELLS = ROWS.flatMap((row) => ACTOR_NAMES.map((actor) => ({ actor, path: row.path, row, cell: row.cells[actor] })));

describe('access matrix', () => {
  test.each(CELLS)('$actor GET $path', async ({ actor, row, cell }) => {
    const { res, items } = await fetchCell(row, actor);
    if (cell.status !== 200) {
      expectError(res, cell.status, cell.code, cell.message);
      return;
    }
    expect({ status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({ status: 200, body: undefined });
    const key = idField(row.kind);
    if ('figures' in cell) {
      // The figures of the scope asked for, and of nothing wider.
      const [name, id] = row.path.split('?')[1].split('=');
      expect(res.body.data.scope[name]).toBe(id);
      if (name === 'organization_id') expect(res.body.data.scope.team_id).toBeNull();
      return;
    }
    if ('one' in cell) {
      expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
      expect(res.body.status).toBe('success');
      // The record is the addressed one: the path's last id.
      expect(res.body.data[key]).toBe(row.path.split('/').pop());
      return;
    }
    expect(res.body.status).toBe('success');
    expect(Object.keys(res.body.meta).sort()).toEqual(['order', 'page', 'per_page', 'sort', 'total', 'total_pages']);
    const got: string[] = items.map((item) => item[key]);
    expect(new Set(got).size).toBe(got.length); // paging never repeats an item
    expect(res.body.meta.total).toBe(got.length);
    if ('exact' in cell) {
      expect([...got].sort()).toEqual([...cell.exact].sort());
    } else {
      expect({ missing: cell.includes.filter((id) => !got.includes(id)) }).toEqual({ missing: [] });
      expect({ unexpected: cell.excludes.filter((id) => got.includes(id)) }).toEqual({ unexpected: [] });
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// No leak: every item of a 200 answers belongs to what the actor can reach (docs/api.md#who-sees-what), generated records included.

/** Why an item is out of the actor's reach, or null when it is fine. */
function leak(actor: Actor, kind: ItemKind, item: Body): string | null {
  const reachesOrg = (org: string | undefined) => org !== undefined && org in actor.organizations;
  const reachesTeam = (team: string | null | undefined) => !team || !actor.teamScope || actor.teamScope.includes(team);
  const org = (o: string | undefined, what: string) => (reachesOrg(o) ? null : `${what} of organization ${o ?? '(unknown)'}`);
  const team = (tm: string | null | undefined) => (reachesTeam(tm) ? null : `team ${tm} outside the token's teams`);
  switch (kind) {
    case 'user': {
      const orgs = [...(owners.userOrganizations.get(item.id) ?? [])];
      return item.id === actor.userId || orgs.some(reachesOrg) ? null : `user of ${orgs.join(',') || 'no organization'}`;
    }
    case 'organization':
      return org(item.id, 'organization');
    case 'team':
      return org(item.organization_id, 'team') ?? team(item.id);
    case 'userTeam':
      return org(item.organization_id, 'membership') ?? team(item.team_id);
    case 'app':
    case 'gitApp':
    case 'telemetryEvent':
    case 'auditEntry':
      return org(item.organization_id, kind);
    case 'userApp':
      return org(owners.appOrganization.get(item.id), 'app binding');
    case 'userGitApp':
      return org(owners.gitAppOrganization.get(item.id), 'git app binding');
    case 'repository':
      return org(owners.gitAppOrganization.get(item.git_app_id), 'repository');
    case 'commit':
    case 'pullRequest':
      return org(owners.repositoryOrganization.get(item.repository_id), kind);
    case 'deployment':
    case 'incident':
      // One from an app whose board is not mapped yet has no repository: its app says whose it is.
      return org(item.repository_id === null ? owners.appOrganization.get(item.app_id) : owners.repositoryOrganization.get(item.repository_id), kind);
    case 'pullRequestActivity':
      return org(owners.pullRequestOrganization.get(item.pull_request_id), 'pull request activity');
    case 'task':
      return org(owners.teamOrganization.get(item.team_id), 'task') ?? team(item.team_id);
    case 'interaction':
      return org(owners.interactionOrganization.get(item.id), 'interaction') ?? team(item.team_id);
    case 'dashboardView': {
      const v = owners.views.get(item.id);
      if (!v) return 'unknown dashboard view';
      const out = org(v.organization_id, 'dashboard view') ?? team(v.team_id);
      if (out) return out;
      // docs/api.md#who-sees-what: organization views to its members, team views to the team's members, private ones to their owner;
      // an admin sees every view of the organization.
      if (actor.organizations[v.organization_id] === 'admin' || v.visibility === 'organization') return null;
      if (v.visibility === 'team') return v.team_id && v.team_id in actor.teams ? null : `team view of ${v.team_id}, caller not in it`;
      return v.owner_id === actor.userId ? null : `private view of ${v.owner_id}`;
    }
    case 'catalogEntry':
    case 'metric':
      return null;
  }
}

const OK_CELLS = CELLS.filter(({ cell }) => cell.status === 200);

describe('no leak', () => {
  test.each(OK_CELLS)('$actor GET $path', async ({ actor, row }) => {
    const { res, items } = await fetchCell(row, actor);
    expect(res.status).toBe(200);
    const leaks = items
      .map((item) => ({ id: item[idField(row.kind)], why: leak(ACTORS[actor], row.kind, item) }))
      .filter((x) => x.why !== null);
    expect(leaks).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// The table itself

describe('the table', () => {
  const isOk = (c: Cell) => c.status === 200;

  test('one row per path, every cell fits its row (get-one: OK; list: a membership expectation)', () => {
    const paths = ROWS.map((r) => r.path);
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
    for (const row of ROWS) {
      for (const actor of ACTOR_NAMES) {
        const cell = row.cells[actor];
        expect({ path: row.path, actor, ok: isOk(cell), fits: !isOk(cell) || (('one' in cell) === (row.shape === 'one') && ('figures' in cell) === (row.shape === 'metric')) }).toEqual({
          path: row.path,
          actor,
          ok: isOk(cell),
          fits: true,
        });
      }
    }
  });

  test('covers every documented path (31, the deployment and incident lists of docs/ingest.md and docs/incidents.md, the four `all` forms, the four metrics of docs/metrics.md, ai-usage (docs/metrics.md#ai-usage), ai-impact, collaboration, financial and pull request activity and telemetry events (docs/telemetry.md) and audit log (docs/settings.md#audit-log)) for every actor, with an Acme and a Globex target', async () => {
    const doc = (await request(t.runtime.app).get('/v1/openapi.json')).body;
    const templates = Object.keys(doc.paths);
    expect(templates).toHaveLength(50);
    const segments = (p: string) => p.split('/').filter(Boolean);
    // The most literal template that matches (so `.../all/commits` is not taken for `.../{repo}/commits`).
    const templateOf = (path: string): string | undefined => {
      const s = segments(path.replace(/^\/v1/, '').split('?')[0]);
      const matches = templates.filter((tpl) => {
        const ts = segments(tpl);
        return ts.length === s.length && ts.every((seg, i) => seg.startsWith('{') || seg === s[i]);
      });
      const literals = (tpl: string) => segments(tpl).filter((seg) => !seg.startsWith('{')).length;
      return matches.sort((a, b) => literals(b) - literals(a))[0];
    };
    const uncovered: string[] = [];
    for (const tpl of templates) {
      const rows = ROWS.filter((r) => templateOf(r.path) === tpl);
      if (!rows.length) uncovered.push(`${tpl}: no row`);
      const paramIndex = segments(tpl).findIndex((seg) => seg.startsWith('{'));
      if (paramIndex < 0) continue;
      const firstIds = rows.map((r) => segments(r.path.replace(/^\/v1/, ''))[paramIndex]);
      if (!firstIds.some((id) => (TARGETS.acme as readonly string[]).includes(id))) uncovered.push(`${tpl}: no Acme target`);
      if (!firstIds.some((id) => (TARGETS.globex as readonly string[]).includes(id))) uncovered.push(`${tpl}: no Globex target`);
    }
    expect(uncovered).toEqual([]);
    // Every row has a cell for every actor (the tuple type enforces it; this guards the conversion).
    for (const row of ROWS) expect(Object.keys(row.cells).sort()).toEqual([...ACTOR_NAMES].sort());
    // And every row is a documented path.
    expect(ROWS.filter((r) => !templateOf(r.path)).map((r) => r.path)).toEqual([]);
  });

  test('the actors are who the header says: memberships and scopes as seeded', async () => {
    for (const name of ACTOR_NAMES) {
      const a = ACTORS[name];
      const own = owners.userOrganizations.get(a.userId) ?? new Set<string>();
      const scope = a.token.organizationIds ?? [];
      // Reach = memberships ∩ scope (the orgs named plus the orgs of the teams named), docs/api.md#who-sees-what.
      const allowed = new Set([...scope, ...(a.token.teamIds ?? []).map((tm) => owners.teamOrganization.get(tm)!)]);
      const reach = [...own].filter((o) => allowed.size === 0 || allowed.has(o)).sort();
      expect({ name, reach }).toEqual({ name, reach: Object.keys(a.organizations).sort() });
      expect({ name, teamScope: a.teamScope }).toEqual({ name, teamScope: a.token.teamIds ?? null });
    }
  });
});
