import request from 'supertest';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Body, expectError, expectList, ids, byCreatedDesc, listEnvelope as list } from '../support/assertions';
import { actorClient } from '../support/data/actors';
import { find, orgItem, teamItem } from '../support/data/items';
import { App, OrganizationMembership, Team } from '../../db/models';
import { FIXTURE_APPS } from '../../db/demo/fixtures/apps';
import { FIXTURE_USERS } from '../../db/demo/fixtures/users';

/** The five /v1/organizations endpoints: exact shapes (docs/api.md#items-and-their-fields), 404/403 messages, access and token scopes (docs/api.md#who-sees-what). */

const U = DEMO.users;
const O = DEMO.orgs;

const FIELDS = {
  organization: ['created_at', 'id', 'name'],
  member: ['created_at', 'email', 'id', 'name', 'role'],
  team: ['created_at', 'id', 'name', 'organization_id'],
  app: ['category', 'created_at', 'id', 'is_active', 'name', 'organization_id', 'provider'],
};
const FORBIDDEN_ORG = 'You do not have permission to access this organization';

const appItem = (id: string) => ({ ...find(FIXTURE_APPS, id) });
const memberItem = (id: string, role: string) => {
  const u = find(FIXTURE_USERS, id);
  return { id: u.id, name: u.name, email: u.email, created_at: u.created_at, role };
};

let t: TestApp;
const tokens: Record<string, string> = {};

const { ok, read } = actorClient(() => t, tokens);


beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' });
  for (const who of ['ada', 'linus', 'outsider', 'margaret'] as const) tokens[who] = await t.token({ user: DEMO.emails[who] });
  tokens.margaretGlobex = await t.token({ user: DEMO.emails.margaret, organizationIds: [O.globex] });
  tokens.adaPlatform = await t.token({ user: DEMO.emails.ada, teamIds: [DEMO.teams.platform] });
  tokens.adaAcme = await t.token({ user: DEMO.emails.ada, organizationIds: [O.acme] });
});
afterAll(async () => t.close());

describe('GET /v1/organizations', () => {
  test('lists only the caller\'s organizations, exactly', async () => {
    const body = await read('/v1/organizations', 'ada');
    expectList(body, FIELDS.organization);
    expect(body).toEqual(list([{ id: 'org_acme', name: 'Acme Corp', created_at: '2024-01-01T08:00:00.000Z' }]));
    expect(await read('/v1/organizations', 'outsider')).toEqual(
      list([{ id: 'org_globex', name: 'Globex', created_at: '2024-02-01T08:00:00.000Z' }]),
    );
    expect(await read('/v1/organizations', 'linus')).toEqual(list([orgItem(O.acme)]));
  });

  test('margaret, in both, sees both; sort and order apply', async () => {
    expect(await read('/v1/organizations', 'margaret')).toEqual(list([orgItem(O.globex), orgItem(O.acme)]));
    expect(await read('/v1/organizations?order=asc', 'margaret')).toEqual(list([orgItem(O.acme), orgItem(O.globex)], { order: 'asc' }));
    expect(await read('/v1/organizations?sort=name&order=asc', 'margaret')).toEqual(
      list([orgItem(O.acme), orgItem(O.globex)], { sort: 'name', order: 'asc' }),
    );
    expect(await read('/v1/organizations?sort=name', 'margaret')).toEqual(
      list([orgItem(O.globex), orgItem(O.acme)], { sort: 'name' }),
    );
    expect(await read('/v1/organizations?per_page=1&page=2&fields=id', 'margaret')).toEqual(
      list([{ id: O.acme }], { per_page: 1, page: 2, total: 2, total_pages: 2 }),
    );
  });

  test('a token scoped to org_globex sees only Globex', async () => {
    expect(await read('/v1/organizations', 'margaretGlobex')).toEqual(list([orgItem(O.globex)]));
    expect(await read('/v1/organizations', 'adaAcme')).toEqual(list([orgItem(O.acme)]));
  });

  test('a token scoped to a team allows that team\'s organization', async () => {
    expect(await read('/v1/organizations', 'adaPlatform')).toEqual(list([orgItem(O.acme)]));
  });
});

describe('GET /v1/organizations/{organization_id}', () => {
  test('returns the organization, exactly', async () => {
    expect(await read(`/v1/organizations/${O.acme}`, 'ada')).toEqual({
      status: 'success',
      data: { id: 'org_acme', name: 'Acme Corp', created_at: '2024-01-01T08:00:00.000Z' },
    });
    expect(await read(`/v1/organizations/${O.globex}`, 'margaret')).toEqual({ status: 'success', data: orgItem(O.globex) });
  });

  test('404 "Organization not found"', async () => {
    expectError(await t.get('/v1/organizations/org_nope', tokens.ada), 404, 'NOT_FOUND', 'Organization not found');
    expectError(await t.get('/v1/organizations/org_nope', tokens.outsider), 404, 'NOT_FOUND', 'Organization not found');
  });

  test('403 for non-members and outside the token\'s scope', async () => {
    expectError(await t.get(`/v1/organizations/${O.acme}`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_ORG);
    expectError(await t.get(`/v1/organizations/${O.globex}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_ORG);
    expectError(await t.get(`/v1/organizations/${O.acme}`, tokens.margaretGlobex), 403, 'FORBIDDEN', FORBIDDEN_ORG);
    expect(await read(`/v1/organizations/${O.acme}`, 'margaret')).toEqual({ status: 'success', data: orgItem(O.acme) });
  });
});

describe('GET /v1/organizations/{organization_id}/members', () => {
  test('Acme members with their roles; every item has the member fields', async () => {
    const body = await read(`/v1/organizations/${O.acme}/members?per_page=100`, 'linus');
    expectList(body, FIELDS.member);
    const rows = await OrganizationMembership.findAll({ where: { organization_id: O.acme } });
    expect(body.meta).toEqual({ page: 1, per_page: 100, total: rows.length, total_pages: 1, sort: 'created_at', order: 'desc' });
    expect([...ids(body)].sort()).toEqual(rows.map((r) => r.user_id).sort());
    for (const item of body.data) {
      expect(item.role).toBe(rows.find((r) => r.user_id === item.id)!.role);
      expect(['admin', 'manager', 'collaborator']).toContain(item.role);
    }
    expect(body.data).toEqual([...body.data].sort(byCreatedDesc));
    for (const [id, role] of [
      [U.ada, 'admin'],
      [U.grace, 'manager'],
      [U.barbara, 'manager'],
      [U.linus, 'collaborator'],
      [U.margaret, 'collaborator'],
      [U.inactive, 'collaborator'],
    ]) {
      expect(body.data).toContainEqual(memberItem(id, role));
    }
    expect(ids(body)).not.toContain(U.outsider);
  });

  test('the role is per organization: margaret is an Acme collaborator and a Globex admin', async () => {
    const globex = await read(`/v1/organizations/${O.globex}/members?per_page=100`, 'outsider');
    expectList(globex, FIELDS.member);
    expect(globex.data).toContainEqual(memberItem(U.margaret, 'admin'));
    expect(globex.data).toContainEqual(memberItem(U.outsider, 'collaborator'));
    expect(globex.data).toContainEqual(memberItem(U.hedy, 'manager'));
    const total = await OrganizationMembership.count({ where: { organization_id: O.globex } });
    expect(globex.meta.total).toBe(total);
  });

  test('the tie of margaret and inactive is broken by id; fixture members on their day, exactly', async () => {
    expect(await read(`/v1/organizations/${O.acme}/members?created_at[eq]=2024-04-01`, 'ada')).toEqual(
      list([memberItem(U.margaret, 'collaborator'), memberItem(U.inactive, 'collaborator')]),
    );
    expect(await read(`/v1/organizations/${O.acme}/members?created_at[eq]=2024-04-01&order=asc`, 'ada')).toEqual(
      list([memberItem(U.inactive, 'collaborator'), memberItem(U.margaret, 'collaborator')], { order: 'asc' }),
    );
  });

  test('404 and 403', async () => {
    expectError(await t.get('/v1/organizations/org_nope/members', tokens.ada), 404, 'NOT_FOUND', 'Organization not found');
    expectError(await t.get(`/v1/organizations/${O.acme}/members`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_ORG);
    expectError(await t.get(`/v1/organizations/${O.acme}/members`, tokens.margaretGlobex), 403, 'FORBIDDEN', FORBIDDEN_ORG);
  });
});

describe('GET /v1/organizations/{organization_id}/teams', () => {
  test('all of Acme\'s teams, and only Acme\'s', async () => {
    const body = await read(`/v1/organizations/${O.acme}/teams?per_page=100`, 'ada');
    expectList(body, FIELDS.team);
    const teams = await Team.findAll({ where: { organization_id: O.acme } });
    expect([...ids(body)].sort()).toEqual(teams.map((x) => x.id).sort());
    expect(body.meta.total).toBe(teams.length);
    for (const item of body.data) expect(item.organization_id).toBe(O.acme);
    expect(body.data).toContainEqual({ id: 'team_platform', organization_id: 'org_acme', name: 'Platform', created_at: '2024-01-05T09:00:00.000Z' });
    expect(body.data).toContainEqual(teamItem(DEMO.teams.mobile));
    expect(body.data).toEqual([...body.data].sort(byCreatedDesc));
  });

  test('a token scoped to team_platform sees only team_platform', async () => {
    expect(await read(`/v1/organizations/${O.acme}/teams`, 'adaPlatform')).toEqual(list([teamItem(DEMO.teams.platform)]));
    expectError(await t.get(`/v1/organizations/${O.globex}/teams`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_ORG);
  });

  test('sort=name', async () => {
    const body = await read(`/v1/organizations/${O.acme}/teams?sort=name&order=asc&fields=name`, 'linus');
    const names = body.data.map((x: Body) => x.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['Mobile', 'Platform']));
  });

  test('404 and 403', async () => {
    expectError(await t.get('/v1/organizations/org_nope/teams', tokens.ada), 404, 'NOT_FOUND', 'Organization not found');
    expectError(await t.get(`/v1/organizations/${O.globex}/teams`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_ORG);
  });
});

describe('GET /v1/organizations/{organization_id}/apps', () => {
  test('the organization\'s apps, with exact fixture items', async () => {
    const body = await read(`/v1/organizations/${O.acme}/apps?per_page=100`, 'linus');
    expectList(body, FIELDS.app);
    const apps = await App.findAll({ where: { organization_id: O.acme } });
    expect([...ids(body)].sort()).toEqual(apps.map((a) => a.id).sort());
    expect(body.data).toContainEqual({
      id: 'app_acme_jira',
      organization_id: 'org_acme',
      provider: 'jira',
      category: 'issues',
      name: 'Jira',
      is_active: true,
      created_at: '2024-01-10T09:00:00.000Z',
    });
    expect(body.data).toContainEqual(appItem(DEMO.apps.acmeSlack));
    // The demo's GitHub Copilot app (an AI vendor's: docs/ai-vendors.md).
    expect(body.data).toContainEqual(expect.objectContaining({ id: DEMO.apps.acmeCopilot, provider: 'copilot', category: 'ai' }));
    for (const item of body.data) {
      expect(item.organization_id).toBe(O.acme);
      expect(['issues', 'chat', 'git', 'incidents', 'ai']).toContain(item.category);
      expect(typeof item.is_active).toBe('boolean');
    }
    // the Jira/Slack tie, by id in the list's direction
    expect(await read(`/v1/organizations/${O.acme}/apps?created_at[eq]=2024-01-10`, 'ada')).toEqual(
      list([appItem(DEMO.apps.acmeSlack), appItem(DEMO.apps.acmeJira)]),
    );
    expect(await read(`/v1/organizations/${O.acme}/apps?created_at[eq]=2024-01-10&order=asc`, 'ada')).toEqual(
      list([appItem(DEMO.apps.acmeJira), appItem(DEMO.apps.acmeSlack)], { order: 'asc' }),
    );
  });

  test('Globex apps for Globex members', async () => {
    const body = await read(`/v1/organizations/${O.globex}/apps?per_page=100`, 'outsider');
    expect(body.data).toContainEqual(appItem(DEMO.apps.globexSlack));
    expect(ids(body)).not.toContain(DEMO.apps.acmeSlack);
    expect(await read(`/v1/organizations/${O.globex}/apps?per_page=100`, 'margaretGlobex')).toEqual(body);
  });

  test('404 and 403', async () => {
    expectError(await t.get('/v1/organizations/org_nope/apps', tokens.ada), 404, 'NOT_FOUND', 'Organization not found');
    expectError(await t.get(`/v1/organizations/${O.acme}/apps`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_ORG);
  });
});

describe('/trpc transport', () => {
  const trpc = (procedure: string, input: unknown, who: string) =>
    request(t.runtime.app)
      .get(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`)
      .set('Authorization', `Bearer ${tokens[who]}`);

  test('organizations.get and organizations.members return the REST data', async () => {
    const one = await trpc('organizations.get', { organization_id: O.acme }, 'ada');
    expect(one.status).toBe(200);
    expect(one.body.result.data).toEqual({ status: 'success', data: orgItem(O.acme) });
    const members = await trpc('organizations.members', { organization_id: O.acme, per_page: 5, sort: 'name', order: 'asc' }, 'ada');
    expect(members.body.result.data).toEqual(await ok(`/v1/organizations/${O.acme}/members?per_page=5&sort=name&order=asc`, 'ada'));
  });

  test('404 and 403 carry NOT_FOUND and FORBIDDEN in data.code', async () => {
    const missing = await trpc('organizations.get', { organization_id: 'org_nope' }, 'ada');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ message: 'Organization not found', data: { code: 'NOT_FOUND', httpStatus: 404 } });
    const forbidden = await trpc('organizations.get', { organization_id: O.acme }, 'outsider');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ message: FORBIDDEN_ORG, data: { code: 'FORBIDDEN', httpStatus: 403 } });
  });
});
