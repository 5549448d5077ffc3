import { Team } from '../../db/models';
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

test('a value with quotes and SQL in it is a bound parameter: it matches nothing and breaks nothing', async () => {
  const token = await t.token();
  for (const name of ["it's", "x' OR '1'='1", 'a\\', '?', '$1']) {
    const res = await t.get(`/v1/organizations/org_acme/telemetry/events?name=${encodeURIComponent(name)}`, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  }
});
