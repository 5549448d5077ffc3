import request from 'supertest';
import { Op } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Body, expectError, expectList, ids, byCreatedDesc, listEnvelope } from '../support/assertions';
import { actorClient } from '../support/data/actors';
import { dbViewItem, find, interactionItem, orgItem, teamItem, viewItem } from '../support/data/items';
import { DashboardView, OrganizationMembership, TeamMembership } from '../../db/models';
import { FIXTURE_APPS, FIXTURE_USER_APPS } from '../../db/demo/fixtures/apps';
import { FIXTURE_GIT_APPS, FIXTURE_USER_GIT_APPS } from '../../db/demo/fixtures/gitApps';
import { FIXTURE_TEAM_MEMBERSHIPS, FIXTURE_TEAMS } from '../../db/demo/fixtures/teams';
import { FIXTURE_USERS } from '../../db/demo/fixtures/users';

/** The eleven /v1/users endpoints: exact shapes (docs/api.md#items-and-their-fields), 404/403 messages and the access model (docs/api.md#who-sees-what). */

const U = DEMO.users;

// docs/api.md#items-and-their-fields field lists
const FIELDS = {
  user: ['created_at', 'email', 'id', 'name'],
  organization: ['created_at', 'id', 'name'],
  team: ['created_at', 'id', 'name', 'organization_id'],
  userTeam: ['created_at', 'organization_id', 'role', 'team_id', 'title', 'user_id'],
  userApp: ['created_at', 'external_user_id', 'id', 'name', 'provider', 'user_id'],
  userGitApp: ['created_at', 'id', 'name', 'provider', 'user_id', 'username'],
  interaction: ['counterpart_id', 'created_at', 'id', 'source', 'team_id', 'type', 'user_id'],
  dashboardView: ['created_at', 'id', 'name', 'organization_id', 'owner_id', 'team_id', 'type', 'visibility'],
};

const FORBIDDEN_USER = 'You do not have permission to access this user';
const FORBIDDEN_TEAM = 'You do not have permission to access this team';

// Wire shapes of fixture records, built from db/demo/fixtures/
const userItem = (id: string) => {
  const u = find(FIXTURE_USERS, id);
  return { id: u.id, name: u.name, email: u.email, created_at: u.created_at };
};
const userAppItem = (userId: string, appId: string) => {
  const b = FIXTURE_USER_APPS.find((x) => x.user_id === userId && x.app_id === appId)!;
  const a = find(FIXTURE_APPS, appId);
  return { id: a.id, provider: a.provider, name: a.name, user_id: userId, external_user_id: b.external_user_id, created_at: b.created_at };
};
const userGitAppItem = (userId: string, gitAppId: string) => {
  const b = FIXTURE_USER_GIT_APPS.find((x) => x.user_id === userId && x.git_app_id === gitAppId)!;
  const g = find(FIXTURE_GIT_APPS, gitAppId);
  return { id: g.id, provider: g.provider, name: g.name, user_id: userId, username: b.username, created_at: b.created_at };
};
const userTeamItem = (userId: string, teamId: string) => {
  const m = FIXTURE_TEAM_MEMBERSHIPS.find((x) => x.user_id === userId && x.team_id === teamId)!;
  return {
    user_id: userId,
    team_id: teamId,
    organization_id: find(FIXTURE_TEAMS, teamId).organization_id,
    title: m.title,
    role: m.role,
    created_at: m.created_at,
  };
};

/** The shared envelope, but with this file's own expected total_pages: pages of 50, ceil(n / 50). */
const list = (data: unknown[], meta: Partial<Body> = {}) => listEnvelope(data, { total_pages: Math.ceil(data.length / 50), ...meta });

let t: TestApp;
const tokens: Record<string, string> = {};

const { ok, read } = actorClient(() => t, tokens);

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' });
  for (const who of ['ada', 'grace', 'linus', 'outsider', 'margaret', 'barbara', 'hedy'] as const) {
    tokens[who] = await t.token({ user: DEMO.emails[who] });
  }
  tokens.margaretGlobex = await t.token({ user: DEMO.emails.margaret, organizationIds: [DEMO.orgs.globex] });
  tokens.adaPlatform = await t.token({ user: DEMO.emails.ada, teamIds: [DEMO.teams.platform] });
});
afterAll(async () => t.close());

async function memberIds(organizationIds: string[]): Promise<string[]> {
  const rows = await OrganizationMembership.findAll({ where: { organization_id: { [Op.in]: organizationIds } } });
  return [...new Set(rows.map((r) => r.user_id))].sort();
}

describe('GET /v1/users', () => {
  test('ada sees exactly the members of Acme, with full user items, newest first', async () => {
    const body = await read('/v1/users?per_page=100', 'ada');
    expectList(body, FIELDS.user);
    expect([...ids(body)].sort()).toEqual(await memberIds([DEMO.orgs.acme]));
    expect(body.meta).toEqual({ page: 1, per_page: 100, total: body.data.length, total_pages: 1, sort: 'created_at', order: 'desc' });
    expect(body.data).toEqual([...body.data].sort(byCreatedDesc));
    for (const id of [U.ada, U.grace, U.barbara, U.linus, U.margaret, U.inactive]) expect(body.data).toContainEqual(userItem(id));
    expect(ids(body)).not.toContain(U.outsider);
    expect(ids(body)).not.toContain(U.hedy);
  });

  test('outsider sees the members of Globex only (margaret included)', async () => {
    const body = await read('/v1/users?per_page=100', 'outsider');
    expectList(body, FIELDS.user);
    expect([...ids(body)].sort()).toEqual(await memberIds([DEMO.orgs.globex]));
    expect(body.data).toContainEqual(userItem(U.margaret));
    expect(body.data).toContainEqual(userItem(U.hedy));
    expect(ids(body)).not.toContain(U.ada);
  });

  test('margaret, in both organizations, sees the members of both, each once', async () => {
    const body = await read('/v1/users?per_page=100', 'margaret');
    const expected = await memberIds([DEMO.orgs.acme, DEMO.orgs.globex]);
    expect([...ids(body)].sort()).toEqual(expected);
    expect(body.meta.total).toBe(expected.length);
  });

  test('a token scoped to Globex narrows the list to Globex members', async () => {
    const body = await read('/v1/users?per_page=100', 'margaretGlobex');
    expect([...ids(body)].sort()).toEqual(await memberIds([DEMO.orgs.globex]));
    expect(ids(body)).not.toContain(U.ada);
  });
});

describe('GET /v1/users/{user_id}', () => {
  test('returns the exact user in the get-one envelope', async () => {
    expect(await read(`/v1/users/${U.linus}`, 'ada')).toEqual({
      status: 'success',
      data: { id: 'usr_linus', name: 'Linus Torvalds', email: 'linus@demo.test', created_at: '2024-03-15T12:00:00.000Z' },
    });
    expect(await read(`/v1/users/${U.ada}`, 'ada')).toEqual({ status: 'success', data: userItem(U.ada) });
    expect(await read(`/v1/users/${U.ada}`, 'linus')).toEqual({ status: 'success', data: userItem(U.ada) });
  });

  test('404 "User not found" for an unknown id', async () => {
    expectError(await t.get('/v1/users/usr_nope', tokens.ada), 404, 'NOT_FOUND', 'User not found');
    expectError(await t.get('/v1/users/usr_nope', tokens.outsider), 404, 'NOT_FOUND', 'User not found');
  });

  test('403 for a user sharing no accessible organization', async () => {
    expectError(await t.get(`/v1/users/${U.outsider}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/${U.ada}`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/${U.linus}`, tokens.hedy), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });

  test('margaret, in both organizations, is visible to outsider and to ada', async () => {
    expect(await read(`/v1/users/${U.margaret}`, 'outsider')).toEqual({ status: 'success', data: userItem(U.margaret) });
    expect(await read(`/v1/users/${U.margaret}`, 'ada')).toEqual({ status: 'success', data: userItem(U.margaret) });
  });

  test('a token scoped to Globex cannot read an Acme-only user, but still reads its own user', async () => {
    expectError(await t.get(`/v1/users/${U.ada}`, tokens.margaretGlobex), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expect(await read(`/v1/users/${U.margaret}`, 'margaretGlobex')).toEqual({ status: 'success', data: userItem(U.margaret) });
    expect(await read(`/v1/users/${U.outsider}`, 'margaretGlobex')).toEqual({ status: 'success', data: userItem(U.outsider) });
  });
});

describe('GET /v1/users/{user_id}/apps', () => {
  const linusApps = () => [userAppItem(U.linus, DEMO.apps.acmeSlack), userAppItem(U.linus, DEMO.apps.acmeJira)];

  test('ada (Acme admin) reads linus\'s apps, exactly', async () => {
    const body = await read(`/v1/users/${U.linus}/apps`, 'ada');
    expectList(body, FIELDS.userApp);
    expect(body).toEqual(
      list([
        { id: 'app_acme_slack', provider: 'slack', name: 'Slack', user_id: 'usr_linus', external_user_id: 'UACME0LINUS', created_at: '2024-03-16T10:30:00.000Z' },
        { id: 'app_acme_jira', provider: 'jira', name: 'Jira', user_id: 'usr_linus', external_user_id: 'acme-linus.torvalds', created_at: '2024-03-16T10:00:00.000Z' },
      ]),
    );
  });

  test('linus reads his own apps', async () => {
    expect(await read(`/v1/users/${U.linus}/apps`, 'linus')).toEqual(list(linusApps()));
  });

  test('sort=name asc, and the tie of ada\'s two bindings is broken by app id', async () => {
    expect(await read(`/v1/users/${U.linus}/apps?sort=name&order=asc`, 'linus')).toEqual(
      list([userAppItem(U.linus, DEMO.apps.acmeJira), userAppItem(U.linus, DEMO.apps.acmeSlack)], { sort: 'name', order: 'asc' }),
    );
    expect(await read(`/v1/users/${U.ada}/apps`, 'ada')).toEqual(
      list([userAppItem(U.ada, DEMO.apps.acmeSlack), userAppItem(U.ada, DEMO.apps.acmeJira)]),
    );
  });

  test('linus cannot read ada\'s apps; grace (a manager, not an admin) cannot read linus\'s', async () => {
    expectError(await t.get(`/v1/users/${U.ada}/apps`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/${U.linus}/apps`, tokens.grace), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/${U.ada}/apps`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });

  test('an admin reads only the apps of the organizations they administer', async () => {
    // margaret has an Acme and a Globex binding; ada administers Acme only, margaret herself sees both
    expect(await read(`/v1/users/${U.margaret}/apps`, 'ada')).toEqual(list([userAppItem(U.margaret, DEMO.apps.acmeSlack)]));
    expect(await read(`/v1/users/${U.margaret}/apps`, 'margaret')).toEqual(
      list([userAppItem(U.margaret, DEMO.apps.globexSlack), userAppItem(U.margaret, DEMO.apps.acmeSlack)]),
    );
    // margaret is a Globex admin: she reads outsider's apps; outsider (collaborator) cannot read hers
    expect(await read(`/v1/users/${U.outsider}/apps`, 'margaret')).toEqual(list([userAppItem(U.outsider, DEMO.apps.globexSlack)]));
    expectError(await t.get(`/v1/users/${U.margaret}/apps`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });

  test('404 for an unknown user', async () => {
    expectError(await t.get('/v1/users/usr_nope/apps', tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/apps/{app_id}', () => {
  test('returns one binding, exactly', async () => {
    expect(await read(`/v1/users/${U.linus}/apps/${DEMO.apps.acmeJira}`, 'ada')).toEqual({
      status: 'success',
      data: { id: 'app_acme_jira', provider: 'jira', name: 'Jira', user_id: 'usr_linus', external_user_id: 'acme-linus.torvalds', created_at: '2024-03-16T10:00:00.000Z' },
    });
    expect(await read(`/v1/users/${U.linus}/apps/${DEMO.apps.acmeSlack}`, 'linus')).toEqual({
      status: 'success',
      data: userAppItem(U.linus, DEMO.apps.acmeSlack),
    });
  });

  test('404 "App not found" for an unknown app, an app without binding, or one outside the caller\'s reach', async () => {
    expectError(await t.get(`/v1/users/${U.linus}/apps/app_nope`, tokens.ada), 404, 'NOT_FOUND', 'App not found');
    expectError(await t.get(`/v1/users/${U.linus}/apps/${DEMO.apps.globexSlack}`, tokens.ada), 404, 'NOT_FOUND', 'App not found');
    expectError(await t.get(`/v1/users/${U.margaret}/apps/${DEMO.apps.globexSlack}`, tokens.ada), 404, 'NOT_FOUND', 'App not found');
  });

  test('404 for an unknown user, 403 for another user\'s binding without admin rights', async () => {
    expectError(await t.get(`/v1/users/usr_nope/apps/${DEMO.apps.acmeJira}`, tokens.ada), 404, 'NOT_FOUND', 'User not found');
    expectError(await t.get(`/v1/users/${U.ada}/apps/${DEMO.apps.acmeJira}`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });
});

describe('GET /v1/users/{user_id}/git/apps', () => {
  test('ada reads linus\'s git apps, exactly; linus reads his own', async () => {
    const expected = list([
      { id: 'gapp_acme_github', provider: 'github', name: 'Acme GitHub', user_id: 'usr_linus', username: 'torvalds', created_at: '2024-03-16T11:00:00.000Z' },
    ]);
    const body = await read(`/v1/users/${U.linus}/git/apps`, 'ada');
    expectList(body, FIELDS.userGitApp);
    expect(body).toEqual(expected);
    expect(await read(`/v1/users/${U.linus}/git/apps`, 'linus')).toEqual(expected);
  });

  test('only the administered organizations count; an empty list has total_pages 0', async () => {
    expect(await read(`/v1/users/${U.margaret}/git/apps`, 'ada')).toEqual(list([]));
    expect(await read(`/v1/users/${U.outsider}/git/apps`, 'margaret')).toEqual(
      list([userGitAppItem(U.outsider, DEMO.gitApps.globexGitlab)]),
    );
  });

  test('403 for non-admins, 404 for unknown users', async () => {
    expectError(await t.get(`/v1/users/${U.ada}/git/apps`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/${U.linus}/git/apps`, tokens.grace), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get('/v1/users/usr_nope/git/apps', tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/dashboard-views', () => {
  /** Views available to a user in an organization: the org's views, their teams' views, their private views. */
  async function expectedViews(userId: string, organizationIds: string[], teamFilter?: string[]): Promise<Body[]> {
    const teams = (await TeamMembership.findAll({ where: { user_id: userId } }))
      .map((m) => m.team_id)
      .filter((team) => !teamFilter || teamFilter.includes(team));
    const rows = await DashboardView.findAll({ where: { organization_id: { [Op.in]: organizationIds } } });
    return rows
      .filter(
        (v) =>
          v.visibility === 'organization' ||
          (v.visibility === 'team' && v.team_id !== null && teams.includes(v.team_id)) ||
          (v.visibility === 'private' && v.owner_id === userId),
      )
      .map(dbViewItem)
      .sort(byCreatedDesc);
  }

  test('linus\'s own views: Acme\'s, team_platform\'s and his private one, not ada\'s private or Mobile\'s', async () => {
    const body = await read(`/v1/users/${U.linus}/dashboard-views?per_page=100`, 'linus');
    expectList(body, FIELDS.dashboardView);
    expect(body.data).toEqual(await expectedViews(U.linus, [DEMO.orgs.acme]));
    for (const v of [DEMO.views.acmeOrg, DEMO.views.platformTeam, DEMO.views.linusPrivate]) expect(body.data).toContainEqual(viewItem(v));
    for (const v of [DEMO.views.adaPrivate, DEMO.views.mobileTeam, DEMO.views.globexOrg]) expect(ids(body)).not.toContain(v);
    expect(new Set(body.data.map((v: Body) => v.visibility))).toEqual(new Set(['organization', 'team', 'private']));
  });

  test('ada (Acme admin) sees linus\'s private view in his list', async () => {
    const body = await read(`/v1/users/${U.linus}/dashboard-views?per_page=100`, 'ada');
    expect(body.data).toEqual(await expectedViews(U.linus, [DEMO.orgs.acme]));
    expect(body.data).toContainEqual(viewItem(DEMO.views.linusPrivate));
    expect(ids(body)).not.toContain(DEMO.views.adaPrivate);
  });

  test('ada\'s own views: her private one and Mobile\'s team view, not Platform\'s nor linus\'s private', async () => {
    const body = await read(`/v1/users/${U.ada}/dashboard-views?per_page=100`, 'ada');
    expect(body.data).toEqual(await expectedViews(U.ada, [DEMO.orgs.acme]));
    for (const v of [DEMO.views.acmeOrg, DEMO.views.mobileTeam, DEMO.views.adaPrivate]) expect(body.data).toContainEqual(viewItem(v));
    for (const v of [DEMO.views.platformTeam, DEMO.views.linusPrivate]) expect(ids(body)).not.toContain(v);
  });

  test('private views are for the owner and org admins only', async () => {
    // grace manages linus's team but is not an admin: no access to his views at all
    expectError(await t.get(`/v1/users/${U.linus}/dashboard-views`, tokens.grace), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/${U.ada}/dashboard-views`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_USER);
    // Globex: outsider owns a private view; margaret (admin) sees it, hedy (manager) may not look
    const own = await read(`/v1/users/${U.outsider}/dashboard-views?per_page=100`, 'outsider');
    expect(own.data).toEqual(await expectedViews(U.outsider, [DEMO.orgs.globex]));
    expect(own.data).toContainEqual(viewItem(DEMO.views.outsiderPrivate));
    const byAdmin = await read(`/v1/users/${U.outsider}/dashboard-views?per_page=100`, 'margaret');
    expect(byAdmin.data).toEqual(own.data);
    expectError(await t.get(`/v1/users/${U.outsider}/dashboard-views`, tokens.hedy), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });

  test('the Globex tie (org view and outsider\'s private view) is broken by id', async () => {
    const desc = await read(`/v1/users/${U.outsider}/dashboard-views?created_at[eq]=2024-02-20`, 'outsider');
    expect(desc).toEqual(list([viewItem(DEMO.views.outsiderPrivate), viewItem(DEMO.views.globexOrg)]));
    const asc = await read(`/v1/users/${U.outsider}/dashboard-views?created_at[eq]=2024-02-20&order=asc`, 'outsider');
    expect(asc).toEqual(list([viewItem(DEMO.views.globexOrg), viewItem(DEMO.views.outsiderPrivate)], { order: 'asc' }));
  });

  test('a token narrowed to team_platform hides ada\'s Mobile team view', async () => {
    const body = await read(`/v1/users/${U.ada}/dashboard-views?per_page=100`, 'adaPlatform');
    expect(body.data).toEqual(await expectedViews(U.ada, [DEMO.orgs.acme], [DEMO.teams.platform]));
    expect(ids(body)).not.toContain(DEMO.views.mobileTeam);
    expect(body.data).toContainEqual(viewItem(DEMO.views.adaPrivate));
  });

  test('404 for an unknown user', async () => {
    expectError(await t.get('/v1/users/usr_nope/dashboard-views', tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/dashboard-views/{view_id}', () => {
  test('returns one view of each visibility, exactly', async () => {
    expect(await read(`/v1/users/${U.linus}/dashboard-views/${DEMO.views.platformTeam}`, 'linus')).toEqual({
      status: 'success',
      data: {
        id: 'view_platform_team',
        name: 'Platform flow',
        type: 'flow',
        visibility: 'team',
        organization_id: 'org_acme',
        team_id: 'team_platform',
        owner_id: 'usr_grace',
        created_at: '2024-02-02T12:00:00.000Z',
      },
    });
    expect(await read(`/v1/users/${U.linus}/dashboard-views/${DEMO.views.acmeOrg}`, 'linus')).toEqual({
      status: 'success',
      data: viewItem(DEMO.views.acmeOrg),
    });
    expect(await read(`/v1/users/${U.linus}/dashboard-views/${DEMO.views.linusPrivate}`, 'ada')).toEqual({
      status: 'success',
      data: viewItem(DEMO.views.linusPrivate),
    });
  });

  test('404 "Dashboard view not found" for unknown views and views not available to the user', async () => {
    const notFound = 'Dashboard view not found';
    expectError(await t.get(`/v1/users/${U.linus}/dashboard-views/view_nope`, tokens.linus), 404, 'NOT_FOUND', notFound);
    expectError(await t.get(`/v1/users/${U.linus}/dashboard-views/${DEMO.views.adaPrivate}`, tokens.linus), 404, 'NOT_FOUND', notFound);
    expectError(await t.get(`/v1/users/${U.linus}/dashboard-views/${DEMO.views.mobileTeam}`, tokens.linus), 404, 'NOT_FOUND', notFound);
    expectError(await t.get(`/v1/users/${U.linus}/dashboard-views/${DEMO.views.globexOrg}`, tokens.linus), 404, 'NOT_FOUND', notFound);
  });

  test('403 for another user\'s view without admin rights', async () => {
    expectError(await t.get(`/v1/users/${U.ada}/dashboard-views/${DEMO.views.adaPrivate}`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get(`/v1/users/usr_nope/dashboard-views/${DEMO.views.adaPrivate}`, tokens.linus), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/interactions', () => {
  const linusAll = [DEMO.interactions.linus4, DEMO.interactions.linus3, DEMO.interactions.linus2, DEMO.interactions.linus1];

  test('ada (admin) and linus read all of linus\'s interactions, exactly, with the tie by id', async () => {
    const body = await read(`/v1/users/${U.linus}/interactions`, 'ada');
    expectList(body, FIELDS.interaction);
    expect(body).toEqual(list(linusAll.map(interactionItem)));
    expect(body.data[0]).toEqual({
      id: 'int_linus_4',
      type: 'communication',
      source: 'slack',
      user_id: 'usr_linus',
      counterpart_id: null,
      team_id: null,
      created_at: '2024-03-25T15:00:00.000Z',
    });
    expect(await read(`/v1/users/${U.linus}/interactions`, 'linus')).toEqual(list(linusAll.map(interactionItem)));
    expect(await read(`/v1/users/${U.linus}/interactions?order=asc`, 'linus')).toEqual(
      list([...linusAll].reverse().map(interactionItem), { order: 'asc' }),
    );
  });

  test('grace (manager of Platform) reads only linus\'s Platform interactions', async () => {
    const body = await read(`/v1/users/${U.linus}/interactions`, 'grace');
    expect(body).toEqual(list([DEMO.interactions.linus2, DEMO.interactions.linus1].map(interactionItem)));
    for (const item of body.data) expect(item.team_id).toBe(DEMO.teams.platform);
  });

  test('a manager reads nothing of a user outside their teams; barbara (Mobile) reads ada\'s Mobile event only', async () => {
    expectError(await t.get(`/v1/users/${U.ada}/interactions`, tokens.grace), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expect(await read(`/v1/users/${U.ada}/interactions`, 'barbara')).toEqual(list([interactionItem(DEMO.interactions.ada2)]));
    expect(await read(`/v1/users/${U.outsider}/interactions`, 'hedy')).toEqual(list([interactionItem(DEMO.interactions.outsider1)]));
    // margaret is in no team: hedy (Globex manager) cannot read her interactions
    expectError(await t.get(`/v1/users/${U.margaret}/interactions`, tokens.hedy), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });

  test('linus cannot read ada\'s interactions; an admin reads only their organizations\' events', async () => {
    expectError(await t.get(`/v1/users/${U.ada}/interactions`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expect(await read(`/v1/users/${U.margaret}/interactions`, 'ada')).toEqual(list([interactionItem(DEMO.interactions.margaretAcme)]));
    expect(await read(`/v1/users/${U.margaret}/interactions`, 'margaret')).toEqual(
      list([DEMO.interactions.margaretGlobex, DEMO.interactions.margaretAcme].map(interactionItem)),
    );
    expect(await read(`/v1/users/${U.margaret}/interactions`, 'margaretGlobex')).toEqual(
      list([interactionItem(DEMO.interactions.margaretGlobex)]),
    );
  });

  test('interactions sort by created_at only', async () => {
    expectError(
      await t.get(`/v1/users/${U.linus}/interactions?sort=type`, tokens.linus),
      400,
      'VALIDATION_ERROR',
      'sort must be one of: created_at',
    );
  });

  test('404 for an unknown user', async () => {
    expectError(await t.get('/v1/users/usr_nope/interactions', tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/organizations', () => {
  test('the user\'s organizations that the caller can access', async () => {
    const body = await read(`/v1/users/${U.margaret}/organizations`, 'margaret');
    expectList(body, FIELDS.organization);
    expect(body).toEqual(
      list([
        { id: 'org_globex', name: 'Globex', created_at: '2024-02-01T08:00:00.000Z' },
        { id: 'org_acme', name: 'Acme Corp', created_at: '2024-01-01T08:00:00.000Z' },
      ]),
    );
    expect(await read(`/v1/users/${U.margaret}/organizations`, 'ada')).toEqual(list([orgItem(DEMO.orgs.acme)]));
    expect(await read(`/v1/users/${U.margaret}/organizations`, 'outsider')).toEqual(list([orgItem(DEMO.orgs.globex)]));
    expect(await read(`/v1/users/${U.margaret}/organizations`, 'margaretGlobex')).toEqual(list([orgItem(DEMO.orgs.globex)]));
    expect(await read(`/v1/users/${U.linus}/organizations`, 'linus')).toEqual(list([orgItem(DEMO.orgs.acme)]));
  });

  test('403 and 404', async () => {
    expectError(await t.get(`/v1/users/${U.outsider}/organizations`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get('/v1/users/usr_nope/organizations', tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/teams', () => {
  test('the user\'s teams, exactly', async () => {
    const body = await read(`/v1/users/${U.linus}/teams`, 'ada');
    expectList(body, FIELDS.team);
    expect(body).toEqual(list([{ id: 'team_platform', organization_id: 'org_acme', name: 'Platform', created_at: '2024-01-05T09:00:00.000Z' }]));
    expect(await read(`/v1/users/${U.ada}/teams`, 'ada')).toEqual(list([teamItem(DEMO.teams.mobile)]));
    expect(await read(`/v1/users/${U.grace}/teams`, 'linus')).toEqual(list([teamItem(DEMO.teams.platform)]));
    expect(await read(`/v1/users/${U.outsider}/teams`, 'margaret')).toEqual(list([teamItem(DEMO.teams.globexCore)]));
  });

  test('a user in no team has an empty list with total_pages 0', async () => {
    expect(await read(`/v1/users/${U.margaret}/teams`, 'ada')).toEqual(list([]));
  });

  test('a token narrowed to team_platform hides ada\'s Mobile team', async () => {
    expect(await read(`/v1/users/${U.ada}/teams`, 'adaPlatform')).toEqual(list([]));
    expect(await read(`/v1/users/${U.linus}/teams`, 'adaPlatform')).toEqual(list([teamItem(DEMO.teams.platform)]));
  });

  test('403 and 404', async () => {
    expectError(await t.get(`/v1/users/${U.outsider}/teams`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_USER);
    expectError(await t.get('/v1/users/usr_nope/teams', tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });
});

describe('GET /v1/users/{user_id}/teams/{team_id}', () => {
  test('the membership record, exactly, for a member and a manager', async () => {
    const body = await read(`/v1/users/${U.linus}/teams/${DEMO.teams.platform}`, 'ada');
    expect(body).toEqual({
      status: 'success',
      data: {
        user_id: 'usr_linus',
        team_id: 'team_platform',
        organization_id: 'org_acme',
        title: 'Backend Engineer',
        role: 'member',
        created_at: '2024-03-16T09:00:00.000Z',
      },
    });
    expect(Object.keys(body.data).sort()).toEqual(FIELDS.userTeam);
    expect(await read(`/v1/users/${U.grace}/teams/${DEMO.teams.platform}`, 'linus')).toEqual({
      status: 'success',
      data: userTeamItem(U.grace, DEMO.teams.platform),
    });
    expect((await read(`/v1/users/${U.grace}/teams/${DEMO.teams.platform}`, 'linus')).data.role).toBe('manager');
    expect(await read(`/v1/users/${U.outsider}/teams/${DEMO.teams.globexCore}?fields=title,role`, 'outsider')).toEqual({
      status: 'success',
      data: { title: 'Software Engineer', role: 'member' },
    });
  });

  test('404 "Team not found", 404 "Team member not found", 404 "User not found"', async () => {
    expectError(await t.get(`/v1/users/${U.linus}/teams/team_nope`, tokens.ada), 404, 'NOT_FOUND', 'Team not found');
    // grace is NOT in Mobile
    expectError(await t.get(`/v1/users/${U.grace}/teams/${DEMO.teams.mobile}`, tokens.ada), 404, 'NOT_FOUND', 'Team member not found');
    expectError(await t.get(`/v1/users/${U.linus}/teams/${DEMO.teams.mobile}`, tokens.ada), 404, 'NOT_FOUND', 'Team member not found');
    expectError(await t.get(`/v1/users/usr_nope/teams/${DEMO.teams.platform}`, tokens.ada), 404, 'NOT_FOUND', 'User not found');
  });

  test('403 for a team outside the caller\'s organizations or the token\'s team scope', async () => {
    // margaret is visible to ada, Globex Core is not
    expectError(await t.get(`/v1/users/${U.margaret}/teams/${DEMO.teams.globexCore}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/users/${U.ada}/teams/${DEMO.teams.mobile}`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expect(await read(`/v1/users/${U.ada}/teams/${DEMO.teams.mobile}`, 'ada')).toEqual({
      status: 'success',
      data: userTeamItem(U.ada, DEMO.teams.mobile),
    });
    expect(await read(`/v1/users/${U.linus}/teams/${DEMO.teams.platform}`, 'adaPlatform')).toEqual({
      status: 'success',
      data: userTeamItem(U.linus, DEMO.teams.platform),
    });
    expectError(await t.get(`/v1/users/${U.outsider}/teams/${DEMO.teams.globexCore}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_USER);
  });
});

describe('/trpc transport', () => {
  const trpc = (procedure: string, input: unknown, who: string | undefined) => {
    const req = request(t.runtime.app).get(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`);
    return who ? req.set('Authorization', `Bearer ${tokens[who]}`) : req;
  };

  test('users.get returns the same data as REST', async () => {
    const res = await trpc('users.get', { user_id: U.linus }, 'ada');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { data: await ok(`/v1/users/${U.linus}`, 'ada') } });
    const teams = await trpc('users.teams', { user_id: U.linus }, 'ada');
    expect(teams.body.result.data).toEqual(await ok(`/v1/users/${U.linus}/teams`, 'ada'));
  });

  test('an unknown user is 404 with data.code NOT_FOUND', async () => {
    const res = await trpc('users.get', { user_id: 'usr_nope' }, 'ada');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('User not found');
    expect(res.body.error.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, path: 'users.get' });
    expect(JSON.stringify(res.body)).not.toMatch(/stack/);
  });

  test('403, 400 and 401 carry the same codes', async () => {
    const forbidden = await trpc('users.apps', { user_id: U.ada }, 'linus');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ message: FORBIDDEN_USER, data: { code: 'FORBIDDEN', httpStatus: 403 } });
    const invalid = await trpc('users.list', { per_page: 101 }, 'ada');
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ message: 'per_page must be an integer from 1 to 100', data: { code: 'VALIDATION_ERROR' } });
    const anonymous = await trpc('users.get', { user_id: U.linus }, undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
  });
});

test('a user in more organizations than GROUP_CONCAT holds (MySQL cuts it at 1024 bytes) keeps every one of them', async () => {
  const { Organization } = await import('../../db/models');
  const { guard } = await import('../../src/access/guard');
  const { effectiveAccess } = await import('../../src/access/principal');
  const email = `many-orgs-${Date.now()}@demo.test`;
  const ids = Array.from({ length: 80 }, (_, i) => `org_many_${String(i).padStart(3, '0')}_${Date.now()}`);
  await Organization.bulkCreate(ids.map((id) => ({ id, name: id, created_at: new Date() })));
  let userId = '';
  for (const id of [...ids, DEMO.orgs.acme]) {
    const member = await t.runtime.writers.members.provision(id, { email, name: 'Many Orgs', role: 'collaborator', active: true, externalId: null, title: null });
    userId = member.user.id;
  }
  const ada = effectiveAccess(DEMO.users.ada, 'test', { organizationIds: [], teamIds: [] }, {
    organizations: [{ organizationId: DEMO.orgs.acme, role: 'admin' }],
    teams: [],
    scopedTeamOrganizations: new Map(),
  });
  const { organizationIds } = await guard.user(ada, userId);
  expect([...organizationIds].sort()).toEqual([...ids, DEMO.orgs.acme].sort());
});

test('the guard reads a user once per version of users and memberships: a repeat reads only its page, and a membership ended or begun is seen by the next request', async () => {
  const email = `kept-guard-${Date.now()}@demo.test`;
  const provision = () => t.runtime.writers.members.provision(DEMO.orgs.acme, { email, name: 'Kept Guard', role: 'collaborator', active: true, externalId: null, title: null });
  const { user } = await provision();
  const path = `/v1/users/${user.id}/apps`;
  expect(await read(path, 'ada')).toEqual(list([]));

  const statements: string[] = [];
  // Sequelize's typings leave out the SQL a query ran; the hook's query carries it once it has run.
  const note = (_options: unknown, query: object) => void statements.push(String(Reflect.get(query, 'sql') ?? ''));
  t.runtime.sequelize.addHook('afterQuery', 'countStatements', note);
  try {
    expect(await read(path, 'ada')).toEqual(list([]));
    // Whatever the token's own lookup reads aside, the repeat reads the page and not the user.
    expect(statements.filter((sql) => /\bFROM `user_apps`/.test(sql))).toHaveLength(1);
    expect(statements.filter((sql) => /\bFROM `users` AS `user` WHERE `user`.`id` = '[^']+' LIMIT 1/.test(sql))).toEqual([]);
  } finally {
    t.runtime.sequelize.removeHook('afterQuery', 'countStatements');
  }

  await t.runtime.writers.members.remove(DEMO.orgs.acme, user.id);
  expectError(await t.get(path, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_USER);
  expectError(await t.get(`/v1/users/${user.id}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_USER);
  await provision();
  expect(await read(`/v1/users/${user.id}/organizations`, 'ada')).toEqual(list([orgItem(DEMO.orgs.acme)]));

  // Their teams are kept as well, per version of team_memberships: a team joined or left shows its views at once.
  const views = async () => ids(await read(`/v1/users/${user.id}/dashboard-views?per_page=100`, 'ada'));
  expect(await views()).not.toContain(DEMO.views.mobileTeam);
  await t.runtime.writers.teams.changeMember(DEMO.orgs.acme, DEMO.teams.mobile, user.id, 'add', { type: 'operator' });
  expect(await views()).toContain(DEMO.views.mobileTeam);
  await t.runtime.writers.teams.changeMember(DEMO.orgs.acme, DEMO.teams.mobile, user.id, 'remove', { type: 'operator' });
  expect(await views()).not.toContain(DEMO.views.mobileTeam);
});
