import request from 'supertest';
import { AuditEntry, DashboardView } from '../../db/models';
import { publicBase } from '../../src/config';
import { DASHBOARD_TYPES } from '../../src/services/dashboards/catalog';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { signInWithLink, SettingsBrowser } from '../support/peers/settingsBrowser';
import { MemberWriter } from '../../src/services/people/members';
import { ChangeRunner } from '../../src/persistence/changes/change';

/**
 * `dashboards.*` (docs/dashboards.md) as the dashboards page calls them with a signed-in session: the catalog with its
 * panels, the scopes and views a person may open, the Metrics API's figures (the same as `/v1/metrics/...`), and the
 * views' owners making, renaming, sharing and deleting them, each audited. Refused: another's view (403), a team one
 * is not in, money for non-admins, an API token, a change without the CSRF token.
 */

let t: TestApp;
const browsers: Record<'ada' | 'linus' | 'grace' | 'margaret', SettingsBrowser> = {} as never;
beforeAll(async () => {
  t = await startTestApp();
  const origin = new URL(publicBase(t.config)).origin;
  for (const who of ['ada', 'linus', 'grace', 'margaret'] as const) browsers[who] = await signInWithLink(t.runtime.app, DEMO.users[who], origin);
});
afterAll(async () => t?.close());

const data = (res: request.Response) => res.body.result.data;
const errorOf = (res: request.Response) => ({ status: res.status, message: res.body.error?.message as string });
const acme = DEMO.orgs.acme;
const YEAR = { from: '2025-11-01', to: '2026-10-31', interval: 'month' };

test('the catalog: every type with its panels; money for admins', async () => {
  const catalog = data(await browsers.linus.query('dashboards.catalog'));
  expect(catalog.map((e: { key: string }) => e.key)).toEqual(DASHBOARD_TYPES.map((e) => e.key));
  const dora = catalog.find((e: { key: string }) => e.key === 'dora');
  expect(dora).toMatchObject({ name: 'DORA metrics', category: 'delivery', for_admins: false });
  expect(dora.panels[0]).toEqual({ metric: 'dora', title: 'Deployments a day', unit: 'per_day', chart: 'number', figure: 'deployment_frequency.per_day', band: 'deployment_frequency.band' });
  expect(catalog.filter((e: { for_admins: boolean }) => e.for_admins).map((e: { key: string }) => e.key)).toEqual(['investment', 'cost']);
});

test('scopes: the organizations one reads, with one’s role, and their teams, saying which one is in', async () => {
  const scopes = data(await browsers.linus.query('dashboards.scopes'));
  expect(scopes).toEqual([expect.objectContaining({ id: acme, name: 'Acme Corp', role: 'collaborator' })]);
  expect(scopes[0].teams).toContainEqual({ id: DEMO.teams.platform, name: expect.any(String), member: true });
  expect(scopes[0].teams).toContainEqual({ id: DEMO.teams.mobile, name: expect.any(String), member: false });
  const margaret = data(await browsers.margaret.query('dashboards.scopes'));
  expect(margaret.map((o: { id: string; role: string }) => [o.id, o.role]).sort()).toEqual([[acme, 'collaborator'], [DEMO.orgs.globex, 'admin']].sort());
});

test("a panel's numbers are the Metrics API's for the same scope and window", async () => {
  const token = await t.token();
  for (const [procedure, path] of [['dora', 'dora'], ['pullRequests', 'pull-requests'], ['flow', 'flow'], ['activity', 'activity'], ['aiUsage', 'ai-usage'], ['aiImpact', 'ai-impact'], ['collaboration', 'collaboration'], ['financial', 'financial']]) {
    const query = { organization_id: acme, ...YEAR };
    const page = data(await browsers.ada.query(`dashboards.metrics.${procedure}`, query));
    const api = await t.get(`/v1/metrics/${path}?${new URLSearchParams(query)}`, token);
    expect(api.status).toBe(200);
    expect(page).toEqual(api.body);
  }
  // The same refusals as the API: money for admins only, a team one may read.
  expect(errorOf(await browsers.linus.query('dashboards.metrics.financial', { organization_id: acme, ...YEAR }))).toEqual({ status: 403, message: "Financial metrics are for the organization's admins" });
  expect(errorOf(await browsers.linus.query('dashboards.metrics.dora', { team_id: DEMO.teams.globexCore, ...YEAR }))).toMatchObject({ status: 403 });
  expect(errorOf(await browsers.linus.query('dashboards.metrics.dora', { organization_id: acme, from: '2026-10-31', to: '2026-10-01' }))).toEqual({ status: 400, message: 'to (2026-10-01) is before from (2026-10-31)' });
});

test('a view made, renamed, shared with a team and deleted by its owner; each change audited as theirs', async () => {
  const made = data(await browsers.grace.mutate('dashboards.create', { organization_id: acme, type: 'dora', name: 'Platform delivery', visibility: 'private' }));
  expect(made).toEqual({ id: expect.stringMatching(/^view_/), name: 'Platform delivery', type: 'dora', visibility: 'private', organization_id: acme, team_id: null, owner_id: DEMO.users.grace, created_at: expect.any(String) });
  // Private: listed for her and the organization's admins only (the /v1 rules), not for Linus.
  const listed = async (who: keyof typeof browsers) => data(await browsers[who].query('dashboards.views')).views.map((v: { id: string }) => v.id);
  expect(await listed('grace')).toContain(made.id);
  expect(await listed('linus')).not.toContain(made.id);
  expect(errorOf(await browsers.linus.query('dashboards.view', { view_id: made.id }))).toEqual({ status: 403, message: 'You do not have permission to access this dashboard view' });

  expect(data(await browsers.grace.mutate('dashboards.rename', { view_id: made.id, name: 'Platform DORA' }))).toMatchObject({ name: 'Platform DORA' });
  const shared = data(await browsers.grace.mutate('dashboards.share', { view_id: made.id, visibility: 'team', team_id: DEMO.teams.platform }));
  expect(shared).toMatchObject({ visibility: 'team', team_id: DEMO.teams.platform });
  expect(await listed('linus')).toContain(made.id);
  expect((await t.get(`/v1/dashboard-views/${made.id}`, await t.token({ user: DEMO.emails.linus }))).body.data).toEqual(shared);

  // Only its owner changes it: not Linus, who sees it, nor Ada, an admin, who sees every view.
  for (const who of ['linus', 'ada'] as const) {
    expect(errorOf(await browsers[who].mutate('dashboards.rename', { view_id: made.id, name: 'Mine now' }))).toEqual({ status: 403, message: 'Only the owner of a dashboard view can change it' });
  }
  expect(data(await browsers.grace.mutate('dashboards.delete', { view_id: made.id }))).toEqual({ deleted: made.id });
  expect(await DashboardView.findByPk(made.id)).toBeNull();
  const audited = await AuditEntry.findAll({ where: { target_id: made.id }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  expect(audited.map((a) => [a.action, a.actor_user_id])).toEqual([
    ['dashboard_view.created', DEMO.users.grace],
    ['dashboard_view.renamed', DEMO.users.grace],
    ['dashboard_view.shared', DEMO.users.grace],
    ['dashboard_view.deleted', DEMO.users.grace],
  ]);
});

test('a view of money is shared only by an admin: its owner, no longer one, is refused as when making it', async () => {
  const globex = DEMO.orgs.globex;
  const made = data(await browsers.margaret.mutate('dashboards.create', { organization_id: globex, type: 'cost', name: 'Globex cost', visibility: 'private' }));
  const members = new MemberWriter(new ChangeRunner(t.runtime.sequelize));
  const member = (await members.find(globex, DEMO.users.margaret))!;
  const input = { email: member.user.email, name: member.user.name, externalId: null, title: null, active: true };
  await members.update(globex, DEMO.users.margaret, { ...input, role: 'collaborator' });
  try {
    const refused = await browsers.margaret.mutate('dashboards.share', { view_id: made.id, visibility: 'organization' });
    expect(errorOf(refused)).toEqual({ status: 403, message: "Financial metrics are for the organization's admins" });
    expect(await DashboardView.findByPk(made.id)).toMatchObject({ visibility: 'private' });
    // A view without money she still shares.
    const dora = data(await browsers.margaret.mutate('dashboards.create', { organization_id: globex, type: 'dora', name: 'Globex delivery', visibility: 'private' }));
    expect(data(await browsers.margaret.mutate('dashboards.share', { view_id: dora.id, visibility: 'organization' }))).toMatchObject({ visibility: 'organization' });
  } finally {
    await members.update(globex, DEMO.users.margaret, { ...input, role: member.membership.role });
  }
  expect(data(await browsers.margaret.mutate('dashboards.share', { view_id: made.id, visibility: 'organization' }))).toMatchObject({ visibility: 'organization' });
  const audited = await AuditEntry.findAll({ where: { target_id: made.id }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
  expect(audited.map((a) => a.action)).toEqual(['dashboard_view.created', 'dashboard_view.shared']);
});

describe('refusals: a message that says what to fix, nothing written', () => {
  test.each([
    ['a team she is not in', 'grace', { organization_id: acme, type: 'dora', name: 'x', visibility: 'team', team_id: DEMO.teams.mobile }, 403, /^A view can be shared with a team you are in; you are not in /],
    ['a team view without its team', 'grace', { organization_id: acme, type: 'dora', name: 'x', visibility: 'team' }, 400, /team_id/],
    ['a type not in the catalog', 'grace', { organization_id: acme, type: 'velocity', name: 'x', visibility: 'private' }, 400, /^type must be one of dora, flow/],
    ['money, for a manager', 'grace', { organization_id: acme, type: 'cost', name: 'x', visibility: 'private' }, 403, "Financial metrics are for the organization's admins"],
    ['an organization she is not in', 'grace', { organization_id: DEMO.orgs.globex, type: 'dora', name: 'x', visibility: 'private' }, 403, /permission/],
    ['an empty name', 'grace', { organization_id: acme, type: 'dora', name: ' ', visibility: 'private' }, 400, /name must not be empty/],
    ["another organization's team", 'margaret', { organization_id: DEMO.orgs.globex, type: 'dora', name: 'x', visibility: 'organization', team_id: DEMO.teams.platform }, 400, `Team ${DEMO.teams.platform} is not a team of organization ${DEMO.orgs.globex}`],
  ] as const)('%s', async (_name, who, input, status, message) => {
    const before = await DashboardView.count();
    const res = await browsers[who].mutate('dashboards.create', input);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    expect(await DashboardView.count()).toBe(before);
  });

  test('an API token is no session; a change without the CSRF token, or from another origin, is refused', async () => {
    const token = await t.token();
    const res = await request(t.runtime.app).get('/trpc/dashboards.views').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/^settings\.\* and dashboards\.\* take the signed-in session/);
    const before = await DashboardView.count();
    const forged = await browsers.ada.mutate('dashboards.create', { organization_id: acme, type: 'dora', name: 'x', visibility: 'private' }, { 'X-CSRF-Token': 'not-the-token' });
    expect(forged.status).toBe(403);
    // The right token, from another site's page: refused by its Origin.
    const foreign = await browsers.ada.mutate('dashboards.create', { organization_id: acme, type: 'dora', name: 'x', visibility: 'private' }, { Origin: 'https://attacker.example' });
    expect(foreign.status).toBe(403);
    expect(await DashboardView.count()).toBe(before);
  });
});
