import { Op } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Body, expectError, expectList, ids, byCreatedDesc, listEnvelope as list, textOrder } from '../support/assertions';
import { actorClient } from '../support/data/actors';
import { dbViewItem, viewItem } from '../support/data/items';
import { DashboardView, OrganizationMembership, TeamMembership } from '../../db/models';
import { DASHBOARD_TYPES } from '../../src/services/dashboards/catalog';

/**
 * /v1/dashboard-views, /v1/dashboard-views/catalog and /v1/dashboard-views/{id}: exact shapes (docs/api.md#items-and-their-fields),
 * the catalog's key-ascending default, 404/403 messages and the visibility rules (docs/api.md#who-sees-what).
 */

const U = DEMO.users;
const V = DEMO.views;
const O = DEMO.orgs;

// docs/api.md#items-and-their-fields field lists, sorted
const FIELDS = {
  view: ['created_at', 'id', 'name', 'organization_id', 'owner_id', 'team_id', 'type', 'visibility'],
  catalog: ['category', 'description', 'key', 'name'],
};
const FORBIDDEN_VIEW = 'You do not have permission to access this dashboard view';

/** The catalog as src/services/dashboards/catalog.ts declares it, without its panels: what migration 0037 wrote. */
const catalogItem = (e: (typeof DASHBOARD_TYPES)[number]) => ({ key: e.key, name: e.name, description: e.description, category: e.category });

const catalogList = (data: unknown[], meta: Partial<Body> = {}) => list(data, { sort: 'key', order: 'asc', ...meta });

let t: TestApp;
const tokens: Record<string, string> = {};

const { ok } = actorClient(() => t, tokens);
const { byText } = textOrder(() => t.runtime.sequelize.getDialect());

/**
 * docs/api.md#who-sees-what, read from the database: organization views of the caller's organizations, team views of the
 * caller's teams, the caller's private views; admins see every view of the organizations they administer.
 */
async function visibleViews(userId: string, organizationIds?: string[], teamFilter?: string[]): Promise<Body[]> {
  const memberships = (await OrganizationMembership.findAll({ where: { user_id: userId } })).filter(
    (m) => !organizationIds || organizationIds.includes(m.organization_id),
  );
  const orgs = memberships.map((m) => m.organization_id);
  const adminOf = memberships.filter((m) => m.role === 'admin').map((m) => m.organization_id);
  const teams = (await TeamMembership.findAll({ where: { user_id: userId } })).map((m) => m.team_id);
  const rows = await DashboardView.findAll({ where: { organization_id: { [Op.in]: orgs } } });
  return rows
    .filter((v) => !teamFilter || v.team_id === null || teamFilter.includes(v.team_id))
    .filter(
      (v) =>
        adminOf.includes(v.organization_id) ||
        v.visibility === 'organization' ||
        (v.visibility === 'team' && v.team_id !== null && teams.includes(v.team_id)) ||
        (v.visibility === 'private' && v.owner_id === userId),
    )
    .map(dbViewItem)
    .sort(byCreatedDesc);
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' });
  for (const who of ['ada', 'grace', 'linus', 'outsider', 'margaret', 'hedy', 'barbara'] as const) {
    tokens[who] = await t.token({ user: DEMO.emails[who] });
  }
  tokens.adaPlatform = await t.token({ user: DEMO.emails.ada, teamIds: [DEMO.teams.platform] });
  tokens.margaretGlobex = await t.token({ user: DEMO.emails.margaret, organizationIds: [O.globex] });
});
afterAll(async () => t.close());

describe('GET /v1/dashboard-views', () => {
  test('linus: Acme\'s organization views, Platform\'s team views and his private views, exactly', async () => {
    const body = await ok('/v1/dashboard-views?per_page=100', 'linus');
    expectList(body, FIELDS.view);
    expect(body).toEqual(list(await visibleViews(U.linus), { per_page: 100 }));
    expect(body.data).toContainEqual({
      id: 'view_platform_team',
      name: 'Platform flow',
      type: 'flow',
      visibility: 'team',
      organization_id: 'org_acme',
      team_id: 'team_platform',
      owner_id: 'usr_grace',
      created_at: '2024-02-02T12:00:00.000Z',
    });
    for (const v of [V.acmeOrg, V.linusPrivate]) expect(body.data).toContainEqual(viewItem(v));
    for (const v of [V.mobileTeam, V.adaPrivate, V.globexOrg, V.outsiderPrivate]) expect(ids(body)).not.toContain(v);
  });

  test('ada (Acme admin) sees every Acme view, other users\' private views included', async () => {
    const body = await ok('/v1/dashboard-views?per_page=100', 'ada');
    const all = (await DashboardView.findAll({ where: { organization_id: O.acme } })).map((v) => v.id).sort();
    expect([...ids(body)].sort()).toEqual(all);
    expect(body).toEqual(list(await visibleViews(U.ada), { per_page: 100 }));
    for (const v of [V.acmeOrg, V.platformTeam, V.mobileTeam, V.adaPrivate, V.linusPrivate]) expect(body.data).toContainEqual(viewItem(v));
  });

  test('grace (manager, not admin) sees neither Mobile\'s team view nor others\' private views', async () => {
    const body = await ok('/v1/dashboard-views?per_page=100', 'grace');
    expect(body).toEqual(list(await visibleViews(U.grace), { per_page: 100 }));
    for (const v of [V.acmeOrg, V.platformTeam]) expect(body.data).toContainEqual(viewItem(v));
    for (const v of [V.mobileTeam, V.adaPrivate, V.linusPrivate]) expect(ids(body)).not.toContain(v);
  });

  test('Globex: outsider sees their private view, hedy does not; margaret (Globex admin) sees both organizations', async () => {
    const outsider = await ok('/v1/dashboard-views?per_page=100', 'outsider');
    expect(outsider).toEqual(list(await visibleViews(U.outsider), { per_page: 100 }));
    for (const v of [V.globexOrg, V.outsiderPrivate]) expect(outsider.data).toContainEqual(viewItem(v));
    const hedy = await ok('/v1/dashboard-views?per_page=100', 'hedy');
    expect(hedy).toEqual(list(await visibleViews(U.hedy), { per_page: 100 }));
    expect(ids(hedy)).not.toContain(V.outsiderPrivate);
    const margaret = await ok('/v1/dashboard-views?per_page=100', 'margaret');
    expect(margaret).toEqual(list(await visibleViews(U.margaret), { per_page: 100 }));
    for (const v of [V.acmeOrg, V.globexOrg, V.outsiderPrivate]) expect(margaret.data).toContainEqual(viewItem(v));
    for (const v of [V.adaPrivate, V.platformTeam]) expect(ids(margaret)).not.toContain(v);
  });

  test('token scopes narrow the list', async () => {
    const globexOnly = await ok('/v1/dashboard-views?per_page=100', 'margaretGlobex');
    expect(globexOnly).toEqual(list(await visibleViews(U.margaret, [O.globex]), { per_page: 100 }));
    expect(ids(globexOnly)).not.toContain(V.acmeOrg);
    const platformOnly = await ok('/v1/dashboard-views?per_page=100', 'adaPlatform');
    expect(platformOnly).toEqual(list(await visibleViews(U.ada, undefined, [DEMO.teams.platform]), { per_page: 100 }));
    expect(ids(platformOnly)).not.toContain(V.mobileTeam);
    for (const v of [V.platformTeam, V.adaPrivate, V.acmeOrg]) expect(platformOnly.data).toContainEqual(viewItem(v));
  });

  test('created_at ties are broken by id in the list\'s direction', async () => {
    expect(await ok('/v1/dashboard-views?created_at[eq]=2024-02-02', 'ada')).toEqual(
      list([viewItem(V.platformTeam), viewItem(V.mobileTeam)]),
    );
    expect(await ok('/v1/dashboard-views?created_at[eq]=2024-02-02&order=asc', 'ada')).toEqual(
      list([viewItem(V.mobileTeam), viewItem(V.platformTeam)], { order: 'asc' }),
    );
    expect(await ok('/v1/dashboard-views?created_at[eq]=2024-02-20', 'outsider')).toEqual(
      list([viewItem(V.outsiderPrivate), viewItem(V.globexOrg)]),
    );
  });

  test('sort=name and fields; other sorts are 400', async () => {
    const views = await visibleViews(U.margaret);
    expect(await ok('/v1/dashboard-views?sort=name&order=asc&per_page=100', 'margaret')).toEqual(
      list([...views].sort(byText('name', 'asc')), { sort: 'name', order: 'asc', per_page: 100 }),
    );
    expect(await ok('/v1/dashboard-views?sort=name&fields=id,visibility&per_page=100', 'margaret')).toEqual(
      list(
        [...views].sort(byText('name', 'desc')).map(({ id, visibility }) => ({ id, visibility })),
        { sort: 'name', per_page: 100 },
      ),
    );
    for (const sort of ['type', 'visibility', 'key']) {
      expectError(await t.get(`/v1/dashboard-views?sort=${sort}`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at, name');
    }
  });
});

describe('GET /v1/dashboard-views/catalog', () => {
  const byKey = [...DASHBOARD_TYPES].sort((a, b) => (a.key < b.key ? -1 : 1)).map(catalogItem);

  test('every catalog entry, exactly, by key ascending by default', async () => {
    const body = await ok('/v1/dashboard-views/catalog', 'linus');
    expectList(body, FIELDS.catalog);
    expect(body).toEqual(catalogList(byKey));
    expect(body.meta).toEqual({ page: 1, per_page: 50, total: 11, total_pages: 1, sort: 'key', order: 'asc' });
    expect(body.data[0]).toEqual({
      key: 'activity',
      name: 'Activity',
      description: 'Commits, active authors and interactions of the scope.',
      category: 'people',
    });
    // the same for everyone
    expect(await ok('/v1/dashboard-views/catalog', 'outsider')).toEqual(body);
    expect(await ok('/v1/dashboard-views/catalog', 'adaPlatform')).toEqual(body);
  });

  test('order=desc, sort=name (both orders) and paging', async () => {
    expect(await ok('/v1/dashboard-views/catalog?order=desc', 'ada')).toEqual(catalogList([...byKey].reverse(), { order: 'desc' }));
    expect(await ok('/v1/dashboard-views/catalog?sort=key&order=asc', 'ada')).toEqual(catalogList(byKey));
    const byName = [...byKey].sort(byText('name', 'asc', 'key'));
    expect(await ok('/v1/dashboard-views/catalog?sort=name', 'ada')).toEqual(catalogList(byName, { sort: 'name' }));
    expect(await ok('/v1/dashboard-views/catalog?sort=name&order=desc', 'ada')).toEqual(
      catalogList([...byName].reverse(), { sort: 'name', order: 'desc' }),
    );
    expect(await ok('/v1/dashboard-views/catalog?per_page=3&page=4', 'ada')).toEqual(
      catalogList(byKey.slice(9), { per_page: 3, page: 4, total: 11, total_pages: 4 }),
    );
    expect(await ok('/v1/dashboard-views/catalog?per_page=3&page=5', 'ada')).toEqual(
      catalogList([], { per_page: 3, page: 5, total: 11, total_pages: 4 }),
    );
  });

  test('fields selects a subset; unknown or empty fields are 400', async () => {
    expect(await ok('/v1/dashboard-views/catalog?fields=key,category', 'ada')).toEqual(
      catalogList(byKey.map(({ key, category }) => ({ key, category }))),
    );
    expectError(await t.get('/v1/dashboard-views/catalog?fields=id', tokens.ada), 400, 'VALIDATION_ERROR', /fields has unknown field\(s\) 'id'/);
    expectError(await t.get('/v1/dashboard-views/catalog?fields=', tokens.ada), 400, 'VALIDATION_ERROR', /fields/);
  });

  test('catalog entries have no created_at: no created_at filters, no created_at sort', async () => {
    for (const op of ['eq', 'gte', 'lte', 'gt', 'lt']) {
      expectError(
        await t.get(`/v1/dashboard-views/catalog?created_at[${op}]=2024-01-01`, tokens.ada),
        400,
        'VALIDATION_ERROR',
        new RegExp(`^Unknown query parameter\\(s\\): 'created_at\\[${op}\\]'`),
      );
    }
    expectError(await t.get('/v1/dashboard-views/catalog?sort=created_at', tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: key, name');
    expectError(await t.get('/v1/dashboard-views/catalog?sort=category', tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: key, name');
  });

  test('every view\'s type is a catalog key', async () => {
    const keys = DASHBOARD_TYPES.map((e) => e.key as string);
    const views = await ok('/v1/dashboard-views?per_page=100', 'margaret');
    expect(views.data.length).toBeGreaterThan(0);
    for (const v of views.data) expect(keys).toContain(v.type);
  });
});

describe('GET /v1/dashboard-views/{id}', () => {
  test('returns one view, exactly, to those who may see it', async () => {
    expect(await ok(`/v1/dashboard-views/${V.acmeOrg}`, 'linus')).toEqual({
      status: 'success',
      data: {
        id: 'view_acme_org',
        name: 'Acme delivery overview',
        type: 'dora',
        visibility: 'organization',
        organization_id: 'org_acme',
        team_id: null,
        owner_id: 'usr_ada',
        created_at: '2024-02-01T12:00:00.000Z',
      },
    });
    const cases: [string, string][] = [
      ['linus', V.platformTeam],
      ['linus', V.linusPrivate],
      ['grace', V.platformTeam],
      ['ada', V.mobileTeam],
      ['barbara', V.mobileTeam],
      ['ada', V.linusPrivate], // admin
      ['ada', V.platformTeam], // admin, not in Platform
      ['outsider', V.outsiderPrivate],
      ['hedy', V.globexOrg],
      ['margaret', V.outsiderPrivate], // Globex admin
      ['margaret', V.acmeOrg],
      ['adaPlatform', V.platformTeam],
      ['adaPlatform', V.adaPrivate],
    ];
    for (const [who, id] of cases) expect(await ok(`/v1/dashboard-views/${id}`, who)).toEqual({ status: 'success', data: viewItem(id) });
    expect(await ok(`/v1/dashboard-views/${V.mobileTeam}?fields=team_id,visibility`, 'barbara')).toEqual({
      status: 'success',
      data: { team_id: 'team_mobile', visibility: 'team' },
    });
  });

  test('404 "Dashboard view not found"', async () => {
    expectError(await t.get('/v1/dashboard-views/view_nope', tokens.ada), 404, 'NOT_FOUND', 'Dashboard view not found');
    expectError(await t.get('/v1/dashboard-views/view_nope', tokens.outsider), 404, 'NOT_FOUND', 'Dashboard view not found');
  });

  test('403 for views the caller may not see', async () => {
    const cases: [string, string][] = [
      ['linus', V.adaPrivate], // someone else's private view
      ['linus', V.mobileTeam], // a team he is not in
      ['linus', V.globexOrg], // another organization
      ['grace', V.linusPrivate], // a manager is not an admin
      ['grace', V.mobileTeam],
      ['hedy', V.outsiderPrivate],
      ['outsider', V.acmeOrg],
      ['margaret', V.adaPrivate], // Acme collaborator
      ['margaret', V.platformTeam],
      ['margaretGlobex', V.acmeOrg], // token narrowed to Globex
      ['adaPlatform', V.mobileTeam], // token narrowed to Platform
      ['ada', V.globexOrg],
    ];
    for (const [who, id] of cases) expectError(await t.get(`/v1/dashboard-views/${id}`, tokens[who]), 403, 'FORBIDDEN', FORBIDDEN_VIEW);
  });

  test('the get-one endpoint agrees with the list for every view of both organizations', async () => {
    const all = await DashboardView.findAll();
    for (const who of ['linus', 'grace', 'margaret']) {
      const visible = ids(await ok('/v1/dashboard-views?per_page=100', who));
      for (const view of all) {
        const res = await t.get(`/v1/dashboard-views/${view.id}`, tokens[who]);
        expect({ id: view.id, status: res.status }).toEqual({ id: view.id, status: visible.includes(view.id) ? 200 : 403 });
      }
    }
  });
});
