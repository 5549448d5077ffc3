import { Model, ModelStatic } from 'sequelize';
import { Team, UserApp, UserGitApp } from '../../db/models';
import { startTestApp, TestApp, DEMO } from '../support/harness';

/**
 * A list's page query is written by Sequelize once per shape and then run with the request's own values as
 * parameters (src/persistence/query/statements.ts): the same list for another caller reuses the statement, and what
 * a caller sends is bound, never written into the SQL.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

test('the same list for two callers of different organizations: one statement written, each caller’s own rows', async () => {
  const findAll = jest.spyOn(Team, 'findAll');
  try {
    const ada = await t.get('/v1/organizations/org_acme/teams?sort=name&per_page=3', await t.token());
    const written = findAll.mock.calls.length;
    const hedy = await t.get('/v1/organizations/org_globex/teams?sort=name&per_page=3', await t.token({ user: DEMO.emails.hedy }));
    expect(findAll.mock.calls.length).toBe(written);
    expect(ada.body.data.map((x: { organization_id: string }) => x.organization_id)).toEqual(['org_acme', 'org_acme', 'org_acme']);
    expect(hedy.body.data.length).toBeGreaterThan(0);
    for (const team of hedy.body.data) expect(team.organization_id).toBe('org_globex');
  } finally {
    findAll.mockRestore();
  }
});

/** The findAll calls on `model` while `run` runs. */
async function findAllCalls(model: ModelStatic<Model>, run: () => Promise<void>): Promise<number> {
  const findAll = jest.spyOn(model, 'findAll');
  try {
    await run();
    return findAll.mock.calls.length;
  } finally {
    findAll.mockRestore();
  }
}

const U = DEMO.users;

describe('lists that join a table or read a subquery: one statement per shape as well', () => {
  // Each list is read once by one caller (its statements written), then again, and by another caller for another
  // user of as many organizations: these reads bind their own values, with no findAll, each caller's own rows.
  const cases: { list: string; model: ModelStatic<Model> }[] = [
    { list: 'apps', model: UserApp },
    { list: 'git/apps', model: UserGitApp },
    { list: 'teams', model: Team },
  ];
  for (const { list, model } of cases) {
    test(`/v1/users/{id}/${list}`, async () => {
      const path = (user: string) => `/v1/users/${user}/${list}?sort=name&order=asc`;
      const [ada, grace] = [await t.token(), await t.token({ user: DEMO.emails.grace })];
      const expected = (await t.get(path(U.grace), grace)).body;
      await t.get(path(U.linus), ada);
      let answers: { status: number; body: unknown }[] = [];
      const calls = await findAllCalls(model, async () => {
        answers = [await t.get(path(U.linus), ada), await t.get(path(U.grace), grace)];
      });
      expect(calls).toBe(0);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers[1].body).toEqual(expected);
      if (list === 'teams') return;
      const users = (body: unknown) => new Set((body as { data: { user_id: string }[] }).data.map((item) => item.user_id));
      expect(users(answers[0].body)).toEqual(new Set([U.linus]));
    });
  }

  test('a user’s teams: the subquery’s value is bound, so each user gets their own teams', async () => {
    const token = await t.token();
    const teams = async (user: string) => ((await t.get(`/v1/users/${user}/teams?sort=name`, token)).body.data as { id: string }[]).map((x) => x.id).sort();
    const [linus, barbara] = [await teams(U.linus), await teams(U.barbara)];
    expect(linus.length).toBeGreaterThan(0);
    expect(linus).not.toEqual(barbara);
    expect(await teams(U.linus)).toEqual(linus);
  });
});

test('a value with quotes and SQL in it is a bound parameter: it matches nothing and breaks nothing', async () => {
  const token = await t.token();
  for (const name of ["it's", "x' OR '1'='1", 'a\\', '?', '$1']) {
    const res = await t.get(`/v1/organizations/org_acme/telemetry/events?name=${encodeURIComponent(name)}`, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  }
});
