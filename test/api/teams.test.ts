import request from 'supertest';
import { Op } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { Body, expectError, expectList, ids, byCreatedDesc, byCreatedAsc, listEnvelope as list, textOrder } from '../support/assertions';
import { actorClient } from '../support/data/actors';
import { find, interactionItem, teamItem } from '../support/data/items';
import { Interaction, Task, Team, TeamMembership, User } from '../../db/models';
import { FIXTURE_TASKS } from '../../db/demo/fixtures/tasks';
import { FIXTURE_TEAM_MEMBERSHIPS } from '../../db/demo/fixtures/teams';
import { FIXTURE_USERS } from '../../db/demo/fixtures/users';

/**
 * The seven /v1/teams endpoints: exact shapes (docs/api.md#items-and-their-fields), sort whitelists, 404/403 messages and access (docs/api.md#who-sees-what).
 * What a procedure answers is read through its caller, without HTTP; refusals and the tRPC transport go over the wire.
 */

const U = DEMO.users;
const T = DEMO.teams;
const O = DEMO.orgs;
const K = DEMO.tasks;
const I = DEMO.interactions;

// docs/api.md#items-and-their-fields field lists, sorted
const FIELDS = {
  team: ['created_at', 'id', 'name', 'organization_id'],
  member: ['created_at', 'email', 'id', 'name', 'title'],
  task: ['assignee_id', 'completed_at', 'created_at', 'id', 'parent_id', 'status', 'story_points', 'team_id', 'title', 'type'],
  interaction: ['counterpart_id', 'created_at', 'id', 'source', 'team_id', 'type', 'user_id'],
};
const FORBIDDEN_TEAM = 'You do not have permission to access this team';

/** A team member is the user plus their title in that team. */
const memberItem = (teamId: string, userId: string) => {
  const m = FIXTURE_TEAM_MEMBERSHIPS.find((x) => x.team_id === teamId && x.user_id === userId);
  if (!m) throw new Error(`no fixture membership ${teamId}/${userId}`);
  const u = find(FIXTURE_USERS, userId);
  return { id: u.id, name: u.name, email: u.email, created_at: u.created_at, title: m.title };
};
/** As the API shows a task: its organization is internal (the team's). */
const taskItem = (id: string) => {
  const { organization_id: _internal, ...item } = find(FIXTURE_TASKS, id);
  return item;
};

let t: TestApp;
const tokens: Record<string, string> = {};

const { ok, read } = actorClient(() => t, tokens);
const { byText } = textOrder(() => t.runtime.sequelize.getDialect());

/** Expected wire items, read from the database (generated rows included). */
async function dbMembers(teamId: string, role?: 'manager'): Promise<Body[]> {
  const rows = await TeamMembership.findAll({ where: { team_id: teamId, ...(role ? { role } : {}) } });
  const users = await User.findAll({ where: { id: { [Op.in]: rows.map((r) => r.user_id) } } });
  return rows.map((m) => {
    const u = users.find((x) => x.id === m.user_id)!;
    return { id: u.id, name: u.name, email: u.email, created_at: u.created_at.toISOString(), title: m.title };
  });
}
async function dbTasks(teamId: string): Promise<Body[]> {
  return (await Task.findAll({ where: { team_id: teamId } })).map((x) => ({
    id: x.id,
    team_id: x.team_id,
    title: x.title,
    type: x.type,
    status: x.status,
    assignee_id: x.assignee_id,
    parent_id: x.parent_id,
    story_points: x.story_points,
    created_at: x.created_at.toISOString(),
    completed_at: x.completed_at ? x.completed_at.toISOString() : null,
  }));
}
async function dbInteractions(teamId: string): Promise<Body[]> {
  return (await Interaction.findAll({ where: { team_id: teamId } })).map((x) => ({
    id: x.id,
    type: x.type,
    source: x.source,
    user_id: x.user_id,
    counterpart_id: x.counterpart_id,
    team_id: x.team_id,
    created_at: x.created_at.toISOString(),
  }));
}
async function dbTeams(organizationIds: string[]): Promise<Body[]> {
  return (await Team.findAll({ where: { organization_id: { [Op.in]: organizationIds } } })).map((x) => ({
    id: x.id,
    organization_id: x.organization_id,
    name: x.name,
    created_at: x.created_at.toISOString(),
  }));
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_HOUR: '1000000' });
  for (const who of ['ada', 'grace', 'linus', 'outsider', 'margaret', 'barbara', 'hedy'] as const) {
    tokens[who] = await t.token({ user: DEMO.emails[who] });
  }
  tokens.adaPlatform = await t.token({ user: DEMO.emails.ada, teamIds: [T.platform] });
  tokens.margaretGlobex = await t.token({ user: DEMO.emails.margaret, organizationIds: [O.globex] });
});
afterAll(async () => t.close());

describe('GET /v1/teams', () => {
  test('ada sees every Acme team and only those, exactly, newest first', async () => {
    const body = await read('/v1/teams?per_page=100', 'ada');
    expectList(body, FIELDS.team);
    const expected = (await dbTeams([O.acme])).sort(byCreatedDesc);
    expect(body).toEqual(list(expected, { per_page: 100 }));
    expect(body.data).toContainEqual({ id: 'team_platform', organization_id: 'org_acme', name: 'Platform', created_at: '2024-01-05T09:00:00.000Z' });
    expect(body.data).toContainEqual(teamItem(T.mobile));
    expect(ids(body)).not.toContain(T.globexCore);
  });

  test('outsider sees Globex teams; margaret sees both organizations\' teams, each once', async () => {
    expect(await read('/v1/teams?per_page=100', 'outsider')).toEqual(list((await dbTeams([O.globex])).sort(byCreatedDesc), { per_page: 100 }));
    const both = await read('/v1/teams?per_page=100', 'margaret');
    expect(both).toEqual(list((await dbTeams([O.acme, O.globex])).sort(byCreatedDesc), { per_page: 100 }));
    expect(both.data).toContainEqual(teamItem(T.globexCore));
    expect(new Set(ids(both)).size).toBe(both.data.length);
  });

  test('token scopes narrow the list', async () => {
    expect(await read('/v1/teams', 'adaPlatform')).toEqual(list([teamItem(T.platform)]));
    expect(await read('/v1/teams?per_page=100', 'margaretGlobex')).toEqual(
      list((await dbTeams([O.globex])).sort(byCreatedDesc), { per_page: 100 }),
    );
  });

  test('the Platform/Mobile created_at tie is broken by id in the list\'s direction', async () => {
    expect(await read('/v1/teams?created_at[eq]=2024-01-05', 'ada')).toEqual(list([teamItem(T.platform), teamItem(T.mobile)]));
    expect(await read('/v1/teams?created_at[eq]=2024-01-05&order=asc', 'ada')).toEqual(
      list([teamItem(T.mobile), teamItem(T.platform)], { order: 'asc' }),
    );
  });

  test('sort=name (both orders) and fields; other sorts are 400', async () => {
    const teams = await dbTeams([O.acme, O.globex]);
    expect(await read('/v1/teams?sort=name&order=asc&per_page=100', 'margaret')).toEqual(
      list([...teams].sort(byText('name', 'asc')), { sort: 'name', order: 'asc', per_page: 100 }),
    );
    expect(await read('/v1/teams?sort=name&per_page=100&fields=id,name', 'margaret')).toEqual(
      list(
        [...teams].sort(byText('name', 'desc')).map(({ id, name }) => ({ id, name })),
        { sort: 'name', per_page: 100 },
      ),
    );
    expectError(await t.get('/v1/teams?sort=organization_id', tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at, name');
    expectError(await t.get('/v1/teams?team_id=team_platform', tokens.ada), 400, 'VALIDATION_ERROR', /Unknown query parameter\(s\): 'team_id'/);
  });
});

describe('GET /v1/teams/{team_id}', () => {
  test('returns the team, exactly', async () => {
    expect(await read(`/v1/teams/${T.platform}`, 'linus')).toEqual({
      status: 'success',
      data: { id: 'team_platform', organization_id: 'org_acme', name: 'Platform', created_at: '2024-01-05T09:00:00.000Z' },
    });
    expect(await read(`/v1/teams/${T.mobile}`, 'grace')).toEqual({ status: 'success', data: teamItem(T.mobile) });
    expect(await read(`/v1/teams/${T.globexCore}`, 'outsider')).toEqual({ status: 'success', data: teamItem(T.globexCore) });
    expect(await read(`/v1/teams/${T.globexCore}?fields=name,organization_id`, 'margaret')).toEqual({
      status: 'success',
      data: { name: 'Core', organization_id: 'org_globex' },
    });
  });

  test('404 "Team not found"', async () => {
    expectError(await t.get('/v1/teams/team_nope', tokens.ada), 404, 'NOT_FOUND', 'Team not found');
    // Ids are opaque and matched exactly, on MySQL too (binary collation on id columns).
    expectError(await t.get(`/v1/teams/${DEMO.teams.platform.toUpperCase()}`, tokens.ada), 404, 'NOT_FOUND', 'Team not found');
    expectError(await t.get(`/v1/users/${DEMO.users.linus.toUpperCase()}`, tokens.ada), 404, 'NOT_FOUND', 'User not found');
    expectError(await t.get('/v1/teams/team_nope', tokens.outsider), 404, 'NOT_FOUND', 'Team not found');
  });

  test('403 outside the caller\'s organizations or the token\'s team scope', async () => {
    expectError(await t.get(`/v1/teams/${T.platform}`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.globexCore}`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.mobile}`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.platform}`, tokens.margaretGlobex), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expect(await read(`/v1/teams/${T.platform}`, 'adaPlatform')).toEqual({ status: 'success', data: teamItem(T.platform) });
  });
});

describe('GET /v1/teams/{team_id}/members', () => {
  test('everyone in Platform, managers included, with their titles, exactly', async () => {
    const body = await read(`/v1/teams/${T.platform}/members?per_page=100`, 'linus');
    expectList(body, FIELDS.member);
    expect(body).toEqual(list((await dbMembers(T.platform)).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual({
      id: 'usr_grace',
      name: 'Grace Hopper',
      email: 'grace@demo.test',
      created_at: '2024-01-03T09:00:00.000Z',
      title: 'Engineering Manager',
    });
    expect(body.data).toContainEqual(memberItem(T.platform, U.linus));
    for (const id of [U.ada, U.barbara, U.outsider]) expect(ids(body)).not.toContain(id);
  });

  test('Mobile has barbara (manager) and ada; grace is not in it', async () => {
    const body = await read(`/v1/teams/${T.mobile}/members?per_page=100`, 'grace');
    expect(body).toEqual(list((await dbMembers(T.mobile)).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual(memberItem(T.mobile, U.barbara));
    expect(body.data).toContainEqual(memberItem(T.mobile, U.ada));
    expect(ids(body)).not.toContain(U.grace);
  });

  test('created_at is the user\'s; filters apply to it', async () => {
    // grace was created 2024-01-03 and joined Platform 2024-01-05
    expect(await read(`/v1/teams/${T.platform}/members?created_at[eq]=2024-01-03`, 'ada')).toEqual(list([memberItem(T.platform, U.grace)]));
    expect(await read(`/v1/teams/${T.platform}/members?created_at[eq]=2024-01-05`, 'ada')).toEqual(list([]));
    // fixture days: no generated record lies on 2024-02-02 or 2024-02-03
    expect(await read(`/v1/teams/${T.globexCore}/members?created_at[gte]=2024-02-02&created_at[lt]=2024-02-04`, 'hedy')).toEqual(
      list([memberItem(T.globexCore, U.hedy), memberItem(T.globexCore, U.outsider)]),
    );
  });

  test('sort=name and sort=email; other sorts are 400', async () => {
    const members = await dbMembers(T.platform);
    expect(await read(`/v1/teams/${T.platform}/members?sort=name&order=asc&per_page=100`, 'ada')).toEqual(
      list([...members].sort(byText('name', 'asc')), { sort: 'name', order: 'asc', per_page: 100 }),
    );
    expect(await read(`/v1/teams/${T.platform}/members?sort=email&per_page=100`, 'ada')).toEqual(
      list([...members].sort(byText('email', 'desc')), { sort: 'email', per_page: 100 }),
    );
    expectError(
      await t.get(`/v1/teams/${T.platform}/members?sort=title`, tokens.ada),
      400,
      'VALIDATION_ERROR',
      'sort must be one of: created_at, name, email',
    );
  });

  test('404 and 403', async () => {
    expectError(await t.get('/v1/teams/team_nope/members', tokens.ada), 404, 'NOT_FOUND', 'Team not found');
    expectError(await t.get(`/v1/teams/${T.platform}/members`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.mobile}/members`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
  });
});

describe('GET /v1/teams/{team_id}/members/{user_id}', () => {
  test('one member with their title, exactly; a manager is a member too', async () => {
    expect(await read(`/v1/teams/${T.platform}/members/${U.linus}`, 'grace')).toEqual({
      status: 'success',
      data: { id: 'usr_linus', name: 'Linus Torvalds', email: 'linus@demo.test', created_at: '2024-03-15T12:00:00.000Z', title: 'Backend Engineer' },
    });
    expect(await read(`/v1/teams/${T.platform}/members/${U.grace}`, 'linus')).toEqual({ status: 'success', data: memberItem(T.platform, U.grace) });
    expect(await read(`/v1/teams/${T.mobile}/members/${U.ada}`, 'ada')).toEqual({ status: 'success', data: memberItem(T.mobile, U.ada) });
    expect(await read(`/v1/teams/${T.globexCore}/members/${U.hedy}?fields=title`, 'outsider')).toEqual({
      status: 'success',
      data: { title: 'Engineering Manager' },
    });
  });

  test('404 "Team member not found" for users not in the team; "Team not found" for unknown teams', async () => {
    const notMember = 'Team member not found';
    expectError(await t.get(`/v1/teams/${T.platform}/members/${U.ada}`, tokens.ada), 404, 'NOT_FOUND', notMember);
    expectError(await t.get(`/v1/teams/${T.mobile}/members/${U.grace}`, tokens.ada), 404, 'NOT_FOUND', notMember);
    expectError(await t.get(`/v1/teams/${T.platform}/members/usr_nope`, tokens.linus), 404, 'NOT_FOUND', notMember);
    // a member of another team of another organization
    expectError(await t.get(`/v1/teams/${T.platform}/members/${U.outsider}`, tokens.margaret), 404, 'NOT_FOUND', notMember);
    expectError(await t.get(`/v1/teams/team_nope/members/${U.linus}`, tokens.ada), 404, 'NOT_FOUND', 'Team not found');
  });

  test('403 when the team is not accessible, whether or not the user is in it', async () => {
    expectError(await t.get(`/v1/teams/${T.platform}/members/${U.linus}`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.platform}/members/usr_nope`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.mobile}/members/${U.ada}`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
  });
});

describe('GET /v1/teams/{team_id}/managers', () => {
  test('only the managers, exactly', async () => {
    const body = await read(`/v1/teams/${T.platform}/managers`, 'linus');
    expectList(body, FIELDS.member);
    expect(body).toEqual(list([memberItem(T.platform, U.grace)]));
    expect(await read(`/v1/teams/${T.mobile}/managers`, 'ada')).toEqual(list([memberItem(T.mobile, U.barbara)]));
    expect(await read(`/v1/teams/${T.globexCore}/managers`, 'outsider')).toEqual(list([memberItem(T.globexCore, U.hedy)]));
  });

  test('managers are exactly the role=manager memberships, and a subset of the members list', async () => {
    const acme = await dbTeams([O.acme]);
    for (const team of acme) {
      const managers = await read(`/v1/teams/${team.id}/managers?per_page=100`, 'ada');
      const members = await read(`/v1/teams/${team.id}/members?per_page=100`, 'ada');
      expect(managers).toEqual(list((await dbMembers(team.id, 'manager')).sort(byCreatedDesc), { per_page: 100 }));
      expect(managers.meta.total).toBeGreaterThan(0);
      expect(members.meta.total).toBeGreaterThan(managers.meta.total);
      for (const m of managers.data) expect(members.data).toContainEqual(m);
    }
    const linus = await read(`/v1/teams/${T.platform}/managers?created_at[eq]=2024-03-15`, 'ada');
    expect(linus).toEqual(list([]));
  });

  test('sort whitelist, 404 and 403', async () => {
    expect(await read(`/v1/teams/${T.platform}/managers?sort=email&order=asc`, 'ada')).toEqual(
      list([memberItem(T.platform, U.grace)], { sort: 'email', order: 'asc' }),
    );
    expectError(await t.get(`/v1/teams/${T.platform}/managers?sort=role`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at, name, email');
    expectError(await t.get('/v1/teams/team_nope/managers', tokens.ada), 404, 'NOT_FOUND', 'Team not found');
    expectError(await t.get(`/v1/teams/${T.globexCore}/managers`, tokens.grace), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
  });
});

describe('GET /v1/teams/{team_id}/tasks', () => {
  const platformFixtures: string[] = [K.platformPaused, K.platformChore, K.platformStory, K.platformBug, K.platformEpic];

  test('every Platform task, exactly, newest first; fixture tasks as in the data', async () => {
    const body = await read(`/v1/teams/${T.platform}/tasks?per_page=100`, 'linus');
    expectList(body, FIELDS.task);
    expect(body).toEqual(list((await dbTasks(T.platform)).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual({
      id: 'task_platform_story',
      team_id: 'team_platform',
      title: 'Health checks for every service',
      type: 'story',
      status: 'done',
      assignee_id: 'usr_linus',
      parent_id: 'task_platform_epic',
      story_points: 5,
      created_at: '2024-03-18T09:00:00.000Z',
      completed_at: '2024-03-20T15:00:00.000Z',
    });
    for (const id of platformFixtures) expect(body.data).toContainEqual(taskItem(id));
    // the fixture tasks in the list's order
    expect(ids(body).filter((id: string) => id.startsWith('task_platform_'))).toEqual(platformFixtures);
  });

  test('nullable fields: parent_id, story_points, assignee_id and completed_at are null where the data has none', async () => {
    const body = await read(`/v1/teams/${T.platform}/tasks?created_at[lte]=2024-03-31&order=asc&per_page=100`, 'grace');
    const expected = (await dbTasks(T.platform)).filter((x) => x.created_at <= '2024-03-31T23:59:59.999Z').sort(byCreatedAsc);
    expect(body).toEqual(list(expected, { order: 'asc', per_page: 100 }));
    const fixtures = body.data.filter((x: Body) => x.id.startsWith('task_platform_'));
    expect(fixtures).toEqual([...platformFixtures].reverse().map(taskItem));
    const [epic, bug, story, chore] = fixtures;
    expect(epic).toMatchObject({ id: K.platformEpic, type: 'epic', parent_id: null, story_points: null, completed_at: null });
    expect(bug).toMatchObject({ id: K.platformBug, parent_id: null, story_points: 2, completed_at: null });
    expect(story).toMatchObject({ id: K.platformStory, status: 'done', completed_at: '2024-03-20T15:00:00.000Z' });
    expect(chore).toMatchObject({ id: K.platformChore, assignee_id: null, parent_id: K.platformEpic });
    // across the whole team: completed_at is set exactly for done tasks; parents are epics of the same team
    const all = await read(`/v1/teams/${T.platform}/tasks?per_page=100`, 'grace');
    const epics = all.data.filter((x: Body) => x.type === 'epic').map((x: Body) => x.id);
    for (const task of all.data) {
      expect(task.completed_at === null).toBe(task.status !== 'done');
      if (task.completed_at) expect(task.completed_at >= task.created_at).toBe(true);
      if (task.parent_id !== null) expect(epics).toContain(task.parent_id);
      if (task.type === 'epic') expect(task).toMatchObject({ parent_id: null, story_points: null });
      expect(['story', 'bug', 'task', 'epic']).toContain(task.type);
      expect(['backlog', 'active', 'paused', 'done']).toContain(task.status);
    }
  });

  test('the story/bug created_at tie is broken by id in the list\'s direction', async () => {
    expect(await read(`/v1/teams/${T.platform}/tasks?created_at[eq]=2024-03-18`, 'ada')).toEqual(
      list([taskItem(K.platformStory), taskItem(K.platformBug)]),
    );
    expect(await read(`/v1/teams/${T.platform}/tasks?created_at[eq]=2024-03-18&order=asc`, 'ada')).toEqual(
      list([taskItem(K.platformBug), taskItem(K.platformStory)], { order: 'asc' }),
    );
  });

  test('sort=title in both orders; other sorts are 400 naming created_at and title', async () => {
    const tasks = await dbTasks(T.platform);
    expect(await read(`/v1/teams/${T.platform}/tasks?sort=title&order=asc&per_page=100`, 'ada')).toEqual(
      list([...tasks].sort(byText('title', 'asc')), { sort: 'title', order: 'asc', per_page: 100 }),
    );
    expect(await read(`/v1/teams/${T.platform}/tasks?sort=title&per_page=100`, 'ada')).toEqual(
      list([...tasks].sort(byText('title', 'desc')), { sort: 'title', per_page: 100 }),
    );
    for (const sort of ['status', 'name', 'story_points']) {
      expectError(await t.get(`/v1/teams/${T.platform}/tasks?sort=${sort}`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at, title');
    }
  });

  test('Globex Core tasks for Globex members; 404 and 403', async () => {
    const body = await read(`/v1/teams/${T.globexCore}/tasks?per_page=100`, 'outsider');
    expect(body).toEqual(list((await dbTasks(T.globexCore)).sort(byCreatedDesc), { per_page: 100 }));
    expect(body.data).toContainEqual(taskItem(K.coreEpic));
    expect(body.data).toContainEqual(taskItem(K.coreStory));
    expectError(await t.get('/v1/teams/team_nope/tasks', tokens.ada), 404, 'NOT_FOUND', 'Team not found');
    expectError(await t.get(`/v1/teams/${T.globexCore}/tasks`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.mobile}/tasks`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
  });
});

describe('GET /v1/teams/{team_id}/interactions', () => {
  const platformFixtures: string[] = [I.linus2, I.grace1, I.linus1, I.grace2];

  test('admins of the team\'s organization and managers of the team read them, exactly', async () => {
    const expected = list((await dbInteractions(T.platform)).sort(byCreatedDesc), { per_page: 100 });
    const byAdmin = await read(`/v1/teams/${T.platform}/interactions?per_page=100`, 'ada');
    expectList(byAdmin, FIELDS.interaction);
    expect(byAdmin).toEqual(expected);
    expect(await read(`/v1/teams/${T.platform}/interactions?per_page=100`, 'grace')).toEqual(expected);
    for (const id of platformFixtures) expect(byAdmin.data).toContainEqual(interactionItem(id));
    expect(byAdmin.data).toContainEqual({
      id: 'int_grace_1',
      type: 'code_review',
      source: 'github',
      user_id: 'usr_grace',
      counterpart_id: 'usr_linus',
      team_id: 'team_platform',
      created_at: '2024-03-20T13:00:00.000Z',
    });
    // linus's team-less events are not the team's
    expect(ids(byAdmin)).not.toContain(I.linus3);
    for (const item of byAdmin.data) expect(item.team_id).toBe(T.platform);
    expect(ids(byAdmin).filter((id: string) => platformFixtures.includes(id))).toEqual(platformFixtures);
  });

  test('members who are not managers, and managers of other teams, get 403', async () => {
    expectError(await t.get(`/v1/teams/${T.platform}/interactions`, tokens.linus), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.mobile}/interactions`, tokens.grace), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    // barbara is an Acme manager but not Platform's
    expectError(await t.get(`/v1/teams/${T.platform}/interactions`, tokens.barbara), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    expectError(await t.get(`/v1/teams/${T.globexCore}/interactions`, tokens.outsider), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    // margaret administers Globex, not Acme
    expectError(await t.get(`/v1/teams/${T.platform}/interactions`, tokens.margaret), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
    // ada (team member of Mobile, Acme admin) cannot see Globex at all
    expectError(await t.get(`/v1/teams/${T.globexCore}/interactions`, tokens.ada), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
  });

  test('the other teams: barbara (Mobile manager), hedy (Core manager), margaret (Globex admin)', async () => {
    const mobile = list((await dbInteractions(T.mobile)).sort(byCreatedDesc), { per_page: 100 });
    expect(mobile.data).toContainEqual(interactionItem(I.ada2));
    expect(await read(`/v1/teams/${T.mobile}/interactions?per_page=100`, 'barbara')).toEqual(mobile);
    expect(await read(`/v1/teams/${T.mobile}/interactions?per_page=100`, 'ada')).toEqual(mobile);
    const core = list((await dbInteractions(T.globexCore)).sort(byCreatedDesc), { per_page: 100 });
    expect(core.data).toContainEqual(interactionItem(I.outsider1));
    expect(await read(`/v1/teams/${T.globexCore}/interactions?per_page=100`, 'hedy')).toEqual(core);
    expect(await read(`/v1/teams/${T.globexCore}/interactions?per_page=100`, 'margaret')).toEqual(core);
    expect(await read(`/v1/teams/${T.globexCore}/interactions?per_page=100`, 'margaretGlobex')).toEqual(core);
  });

  test('a token narrowed to Platform keeps the admin\'s access to Platform only', async () => {
    expect(await read(`/v1/teams/${T.platform}/interactions?per_page=100`, 'adaPlatform')).toEqual(
      await read(`/v1/teams/${T.platform}/interactions?per_page=100`, 'ada'),
    );
    expectError(await t.get(`/v1/teams/${T.mobile}/interactions`, tokens.adaPlatform), 403, 'FORBIDDEN', FORBIDDEN_TEAM);
  });

  test('sort is created_at only; order and filters apply', async () => {
    const body = await read(`/v1/teams/${T.platform}/interactions?created_at[gte]=2024-03-18&created_at[lte]=2024-03-21&order=asc`, 'grace');
    const expected = (await dbInteractions(T.platform))
      .filter((x) => x.created_at >= '2024-03-18T00:00:00.000Z' && x.created_at < '2024-03-22T00:00:00.000Z')
      .sort(byCreatedAsc);
    expect(body).toEqual(list(expected, { order: 'asc' }));
    expect(body.data.filter((x: Body) => platformFixtures.includes(x.id))).toEqual([...platformFixtures].reverse().map(interactionItem));
    expectError(await t.get(`/v1/teams/${T.platform}/interactions?sort=type`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at');
  });

  test('404 before 403: an unknown team is "Team not found" for anyone', async () => {
    expectError(await t.get('/v1/teams/team_nope/interactions', tokens.linus), 404, 'NOT_FOUND', 'Team not found');
    expectError(await t.get('/v1/teams/team_nope/interactions', tokens.ada), 404, 'NOT_FOUND', 'Team not found');
  });
});

describe('check order and the /trpc transport', () => {
  test('400 comes before 404 and 403', async () => {
    expectError(await t.get('/v1/teams/team_nope/tasks?sort=status', tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at, title');
    expectError(await t.get(`/v1/teams/${T.globexCore}/interactions?sort=type`, tokens.ada), 400, 'VALIDATION_ERROR', 'sort must be one of: created_at');
    expectError(await t.get(`/v1/teams/${T.platform}/interactions?per_page=0`, tokens.linus), 400, 'VALIDATION_ERROR', 'per_page must be an integer from 1 to 100');
    expectError(
      await t.get(`/v1/teams/${T.platform}/members/${U.ada}?fields=role`, tokens.ada),
      400,
      'VALIDATION_ERROR',
      /^fields has unknown field\(s\) 'role'/,
    );
  });

  test('teams.interactions and teams.member answer as REST does', async () => {
    const trpc = (procedure: string, input: unknown, who: string) =>
      request(t.runtime.app)
        .get(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`)
        .set('Authorization', `Bearer ${tokens[who]}`);
    const interactions = await trpc('teams.interactions', { team_id: T.platform, per_page: 2, order: 'asc' }, 'grace');
    expect(interactions.status).toBe(200);
    expect(interactions.body.result.data).toEqual(await ok(`/v1/teams/${T.platform}/interactions?per_page=2&order=asc`, 'grace'));
    const forbidden = await trpc('teams.interactions', { team_id: T.platform }, 'linus');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ message: FORBIDDEN_TEAM, data: { code: 'FORBIDDEN', httpStatus: 403 } });
    const missing = await trpc('teams.member', { team_id: T.platform, user_id: U.ada }, 'ada');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ message: 'Team member not found', data: { code: 'NOT_FOUND', httpStatus: 404 } });
  });
});
