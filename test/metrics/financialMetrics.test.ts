import { OrganizationMembership, PullRequest, Repository, Task } from '../../db/models';
import { refreshPullRequestSamples } from '../../src/services/git/rollups/pullRequestSamples';
import { newId } from '../../src/persistence/changes/ids';
import { CostRates } from '../../src/services/finance/costRates';
import { providerCatalog } from '../../src/integrations/catalog';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { createLab } from '../support/data/metricsHistory';
import { sendPastPoints } from '../support/peers/otlpJson';
import { VendorUsageWriter } from '../../src/services/aiVendors/vendorUsage';

/**
 * `GET /v1/metrics/financial` (docs/metrics.md#ai-review-and-cost-figures) over 73 days (a fifth of a year: March 1 to May 12, 2026), every figure
 * worked out here by hand. Rates in EUR: the organization's default 100,000 a year, Grace's own 150,000; Gemini
 * CLI seats 30 a month; 1 USD = 0.9 EUR. Members: Ada, Grace, Margaret all window; Linus until he was suspended on
 * April 6 (36 days); Hedy, suspended before the window, does not count.
 *   people cost = 100,000 × 73/365 + 150,000 × 73/365 + 100,000 × 73/365 + 100,000 × 36/365
 *               = 20,000 + 30,000 + 20,000 + 9,863.01 = 79,863.01, over 255 member-days = 3.49 FTE
 * Tasks completed in the window: Ada a story of 6 points and a bug of 2 (¾ capitalizable), Grace a task without
 * points (expensed), Margaret an epic (capitalizable); Linus none (unallocated); and two that no member's time is
 * split by: Hedy's, and one nobody was assigned. Six tasks completed: 79,863.01 ÷ 6 each.
 *   capitalizable 54.75 + 73 = 127.75 days (35,000), expensed 18.25 + 73 = 91.25 days (35,000), unallocated 36 days
 * AI: Margaret used Gemini CLI (a seat: 30 × 1 user × 2.4 months = 72); Ada and Grace Claude Code, which has no
 * seat price: its estimates, 2.5 + 2.5 USD × 0.9 = 4.50. Spend 76.50.
 */
let t: TestApp;
let rates: CostRates;
let lab: { organizationId: string; core: string };
let adminToken: string;

const WINDOW = { from: '2026-03-01', to: '2026-05-12' };

async function member(organizationId: string, email: string, name: string, suspendedAt?: string) {
  await t.runtime.writers.members.provision(organizationId, { email, name, role: 'collaborator', active: true, externalId: null, title: null });
  // Suspended on that day, as the writer would have recorded it then.
  if (suspendedAt) await OrganizationMembership.update({ status: 'suspended', suspended_at: new Date(suspendedAt) }, { where: { organization_id: organizationId, user_email: email } });
}

async function history() {
  const { lab: created, gitAppId } = await createLab(t, 'Lab (financial)');
  lab = created;
  const org = lab.organizationId;
  await member(org, DEMO.emails.linus, 'Linus', '2026-04-06T00:00:00Z');
  await member(org, DEMO.emails.hedy, 'Hedy', '2026-02-01T00:00:00Z');
  await rates.set(org, { subject: 'organization' }, { amount: 100_000, currency: 'EUR' });
  await rates.set(org, { subject: 'user', user: DEMO.emails.grace }, { amount: 150_000 });
  await rates.set(org, { subject: 'tool', tool: 'gemini_cli' }, { amount: 30 });
  await rates.set(org, { subject: 'usd_rate' }, { amount: 0.9 });

  const task = (assignee: string | null, type: 'story' | 'bug' | 'task' | 'epic', points: number | null, completed: string) =>
    Task.create({ id: newId('task'), team_id: lab.core, organization_id: lab.organizationId, title: type, type, status: 'done', assignee_id: assignee, parent_id: null, story_points: points, created_at: new Date('2026-02-20T00:00:00Z'), completed_at: new Date(completed) });
  await task(DEMO.users.ada, 'story', 6, '2026-03-10T00:00:00Z');
  await task(DEMO.users.ada, 'bug', 2, '2026-04-10T00:00:00Z');
  await task(DEMO.users.grace, 'task', null, '2026-04-20T00:00:00Z');
  await task(DEMO.users.margaret, 'epic', 3, '2026-05-01T00:00:00Z');
  // Completed, but by no member during the window, or by nobody: counted, never allocated.
  await task(DEMO.users.hedy, 'story', 8, '2026-04-01T00:00:00Z');
  await task(null, 'story', 5, '2026-04-02T00:00:00Z');
  // Completed before the window: Linus's time stays unallocated.
  await task(DEMO.users.linus, 'story', 5, '2026-02-25T00:00:00Z');

  const repository = newId('repo');
  await Repository.create({ id: repository, git_app_id: gitAppId, organization_id: org, name: 'api', full_name: 'lab/api', default_branch: 'main', is_private: false, created_at: new Date('2026-01-01T00:00:00Z') });
  for (const [number, ai] of [[1, true], [2, false]] as const) {
    const pullRequest = await PullRequest.create({ id: newId('pr'), repository_id: repository, git_app_id: gitAppId, organization_id: org, number, title: `PR ${number}`, state: 'merged', author_id: DEMO.users.ada, ai_assisted: ai, created_at: new Date('2026-03-02T09:00:00Z'), merged_at: new Date('2026-03-03T09:00:00Z'), closed_at: new Date('2026-03-03T09:00:00Z') });
    // What the pull request writer keeps beside it.
    await PullRequest.sequelize!.transaction((transaction) => refreshPullRequestSamples(transaction, [pullRequest.id]));
  }

  const claude = (email: string, at: string) => [
    { service: 'claude-code' as const, name: 'claude_code.session.count', email, at, value: 1 },
    { service: 'claude-code' as const, name: 'claude_code.cost.usage', email, at, value: 2.5, attributes: { model: 'claude-sonnet-4-5' } },
  ];
  await sendPastPoints(t, org, [
    ...claude(DEMO.emails.ada, '2026-03-04T10:00:00Z'),
    ...claude(DEMO.emails.grace, '2026-04-14T10:00:00Z'),
    { service: 'gemini-cli', name: 'gemini_cli.session.count', email: DEMO.emails.margaret, at: '2026-05-02T10:00:00Z', value: 1 },
  ]);
}

beforeAll(async () => {
  t = await startTestApp({ COUNT_CACHE_TTL_MS: '0' });
  rates = new CostRates(t.runtime.writers.changes, providerCatalog());
  await history();
  adminToken = await t.token({ user: DEMO.emails.ada });
});
afterAll(async () => t.close());

const financial = (query: Record<string, string>, as = adminToken) => t.get(`/v1/metrics/financial?${new URLSearchParams(query)}`, as);

test('every figure by hand', async () => {
  const res = await financial({ organization_id: lab.organizationId, ...WINDOW });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({
    scope: { organization_id: lab.organizationId, team_id: null, repositories: 'all' },
    from: '2026-03-01',
    to: '2026-05-12',
    interval: null,
    currency: 'EUR',
    members: 4,
    fte: 3.49,
    people_cost: { amount: 79_863.01, priced_members: 4, members: 4 },
    // 79,863.01 ÷ 3.4932 FTE
    cost_per_engineer: 22_862.75,
    cost_per_merged_pr: 39_931.51,
    cost_per_completed_task: 13_310.5,
    allocation: {
      capitalizable: { fte: 1.75, cost: 35_000, share: 0.501 },
      expensed: { fte: 1.25, cost: 35_000, share: 0.3578 },
      unallocated: { fte: 0.49, cost: 9_863.01, share: 0.1412 },
    },
    ai: {
      spend: 76.5,
      spend_per_engineer: 21.9,
      spend_per_active_user: 25.5,
      cost_per_ai_assisted_pr: 76.5,
      active_users: 3,
      tool_estimate_usd: 5,
      unpriced_tools: [],
    },
  });
});

test('no cost set: every money figure null, never 0; the tools’ estimate is spend in a USD organization', async () => {
  const { lab: bare } = await createLab(t, 'Lab (no rates)');
  await sendPastPoints(t, bare.organizationId, [{ service: 'claude-code', name: 'claude_code.cost.usage', email: DEMO.emails.ada, at: '2026-03-04T10:00:00Z', value: 1.25, attributes: { model: 'claude-sonnet-4-5' } }]);
  const data = (await financial({ organization_id: bare.organizationId, ...WINDOW }, await t.token({ user: DEMO.emails.ada }))).body.data;
  expect(data).toMatchObject({
    currency: 'USD',
    members: 3,
    people_cost: { amount: null, priced_members: 0, members: 3 },
    cost_per_engineer: null,
    cost_per_merged_pr: null,
    cost_per_completed_task: null,
    allocation: { capitalizable: { fte: 0, cost: null, share: 0 }, unallocated: { fte: 3, cost: null, share: 1 } },
    ai: { spend: 1.25, spend_per_active_user: 1.25, cost_per_ai_assisted_pr: null, active_users: 1, tool_estimate_usd: 1.25, unpriced_tools: [] },
  });
});

test('rates of their own and no default: only those members are priced, and their days alone carry the cost', async () => {
  // 73 days; Grace 146,000 a year (29,200 for the window), Ada and Margaret unpriced. Grace completed a story,
  // Ada a bug, Margaret nothing: each third of the member-days is capitalizable, expensed and unallocated.
  const { lab: own } = await createLab(t, 'Lab (own rates only)');
  await rates.set(own.organizationId, { subject: 'user', user: DEMO.emails.grace }, { amount: 146_000, currency: 'EUR' });
  const task = (assignee: string | null, type: 'story' | 'bug', points: number) =>
    Task.create({ id: newId('task'), team_id: own.core, organization_id: own.organizationId, title: type, type, status: 'done', assignee_id: assignee, parent_id: null, story_points: points, created_at: new Date('2026-02-20T00:00:00Z'), completed_at: new Date('2026-04-01T00:00:00Z') });
  await task(DEMO.users.grace, 'story', 2);
  await task(DEMO.users.ada, 'bug', 1);
  const data = (await financial({ organization_id: own.organizationId, ...WINDOW }, await t.token({ user: DEMO.emails.ada }))).body.data;
  expect(data).toMatchObject({
    currency: 'EUR',
    members: 3,
    fte: 3,
    people_cost: { amount: 29_200, priced_members: 1, members: 3 },
    cost_per_engineer: 29_200,
    cost_per_completed_task: 14_600,
    allocation: {
      capitalizable: { fte: 1, cost: 29_200, share: 0.3333 },
      expensed: { fte: 1, cost: 0, share: 0.3333 },
      unallocated: { fte: 1, cost: 0, share: 0.3333 },
    },
  });
});

test('a member who left mid-window with completed work: their days there are split by their points; one who left before counts nowhere', async () => {
  // 73 days at 73,000 a year (200 a day). Ada, Grace and Margaret all window; Linus until April 6 (36 days), who
  // completed a story of 3 points and a bug of 1 (27 days capitalizable, 9 expensed); Hedy, suspended before the
  // window, completed a story in it: not a member then, so her task is completed work but nobody's time.
  const { lab: left } = await createLab(t, 'Lab (left mid-window)');
  await member(left.organizationId, DEMO.emails.linus, 'Linus', '2026-04-06T00:00:00Z');
  await member(left.organizationId, DEMO.emails.hedy, 'Hedy', '2026-02-01T00:00:00Z');
  await rates.set(left.organizationId, { subject: 'organization' }, { amount: 73_000, currency: 'EUR' });
  const task = (assignee: string | null, type: 'story' | 'bug', points: number, completed: string) =>
    Task.create({ id: newId('task'), team_id: left.core, organization_id: left.organizationId, title: type, type, status: 'done', assignee_id: assignee, parent_id: null, story_points: points, created_at: new Date('2026-02-20T00:00:00Z'), completed_at: new Date(completed) });
  await task(DEMO.users.linus, 'story', 3, '2026-03-20T00:00:00Z');
  await task(DEMO.users.linus, 'bug', 1, '2026-04-01T00:00:00Z');
  await task(DEMO.users.hedy, 'story', 5, '2026-03-05T00:00:00Z');
  const data = (await financial({ organization_id: left.organizationId, ...WINDOW }, await t.token({ user: DEMO.emails.ada }))).body.data;
  expect(data).toMatchObject({
    members: 4,
    fte: 3.49,
    people_cost: { amount: 51_000, priced_members: 4, members: 4 },
    cost_per_completed_task: 17_000,
    allocation: {
      capitalizable: { fte: 0.37, cost: 5_400, share: 0.1059 },
      expensed: { fte: 0.12, cost: 1_800, share: 0.0353 },
      unallocated: { fte: 3, cost: 43_800, share: 0.8588 },
    },
  });
});

test('an estimate in USD that cannot be converted: spend is null until the USD rate is set', async () => {
  const { lab: euro } = await createLab(t, 'Lab (no USD rate)');
  await rates.set(euro.organizationId, { subject: 'organization' }, { amount: 73_000, currency: 'EUR' });
  await sendPastPoints(t, euro.organizationId, [{ service: 'claude-code', name: 'claude_code.cost.usage', email: DEMO.emails.grace, at: '2026-03-04T10:00:00Z', value: 2, attributes: { model: 'claude-sonnet-4-5' } }]);
  const token = await t.token({ user: DEMO.emails.ada });
  expect((await financial({ organization_id: euro.organizationId, ...WINDOW }, token)).body.data.ai).toMatchObject({ spend: null, spend_per_engineer: null, tool_estimate_usd: 2 });
  await rates.set(euro.organizationId, { subject: 'usd_rate' }, { amount: 0.5 });
  expect((await financial({ organization_id: euro.organizationId, ...WINDOW }, token)).body.data.ai).toMatchObject({ spend: 1, tool_estimate_usd: 2 });
});

test('a tool used with neither a seat price nor an estimate of its own: spend is null, naming it, until its seat is priced', async () => {
  // Cursor (read from its vendor, ada) and Gemini CLI (OTLP, margaret) report no cost; Claude Code (grace) does.
  const { lab: unpriced } = await createLab(t, 'Lab (unpriced tools)');
  const org = unpriced.organizationId;
  const { app } = await t.runtime.writers.apps.create(org, 'cursor', { vendor: { credential: `key_${newId('k')}_0123456789` } });
  // Cursor's documented day (test/support/peers/cursor/daily-usage-data.json) as its puller translates it
  // (test/work/cursorClaudePulls.test.ts): no cost among its figures.
  const cursorDay = { prompts: 252, suggestions_shown: 342, suggestions_accepted: 289, lines_added: 1102, lines_removed: 645, chat_requests: 128, agent_requests: 57, edits_accepted: 73, edits_rejected: 14 };
  const source = { appId: app.id, organizationId: org, vendor: 'cursor' as const, credential: '', accountKind: null, account: null, baseUrl: null };
  await new VendorUsageWriter(t.runtime.writers.changes).replaceDay(source, '2026-04-15', [{ account: DEMO.emails.ada, active: true, measures: cursorDay }], 'email');
  await sendPastPoints(t, org, [
    { service: 'gemini-cli', name: 'gemini_cli.session.count', email: DEMO.emails.margaret, at: '2026-05-02T10:00:00Z', value: 1 },
    { service: 'claude-code', name: 'claude_code.cost.usage', email: DEMO.emails.grace, at: '2026-03-04T10:00:00Z', value: 1.25, attributes: { model: 'claude-sonnet-4-5' } },
  ]);
  const token = await t.token({ user: DEMO.emails.ada });
  const ai = async (scope: Record<string, string> = { organization_id: org }) => (await financial({ ...scope, ...WINDOW }, token)).body.data.ai;

  // Their use is not free, only unpriced: no spend, nothing divided from it, and the tools to price named.
  expect(await ai()).toEqual({ spend: null, spend_per_engineer: null, spend_per_active_user: null, cost_per_ai_assisted_pr: null, active_users: 3, tool_estimate_usd: 1.25, unpriced_tools: ['cursor', 'gemini_cli'] });
  // A team's figures name its members' tools only: Core is ada (Cursor), Empty margaret (Gemini CLI).
  expect(await ai({ team_id: unpriced.core })).toMatchObject({ spend: null, active_users: 1, unpriced_tools: ['cursor'] });
  expect(await ai({ team_id: unpriced.empty })).toMatchObject({ spend: null, active_users: 1, unpriced_tools: ['gemini_cli'] });

  // Priced by the seat, as a subscription is paid: Cursor 40 a month × 1 user × 2.4 months = 96; Gemini CLI free.
  await rates.set(org, { subject: 'tool', tool: 'cursor' }, { amount: 40 });
  expect(await ai()).toMatchObject({ spend: null, unpriced_tools: ['gemini_cli'] });
  await rates.set(org, { subject: 'tool', tool: 'gemini_cli' }, { amount: 0 });
  // 96 + Claude Code's own estimate, 1.25 (a USD organization): 97.25, over 3 members all window, 3 of them active.
  expect(await ai()).toEqual({ spend: 97.25, spend_per_engineer: 32.42, spend_per_active_user: 32.42, cost_per_ai_assisted_pr: null, active_users: 3, tool_estimate_usd: 1.25, unpriced_tools: [] });
  expect(await ai({ team_id: unpriced.core })).toMatchObject({ spend: 96, unpriced_tools: [] });
});

describe('access: the organization’s admins only', () => {
  test('a manager or a collaborator of Acme gets 403 with a message saying so; its admin the figures', async () => {
    for (const email of [DEMO.emails.grace, DEMO.emails.linus]) {
      const res = await financial({ organization_id: DEMO.orgs.acme }, await t.token({ user: email }));
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: "Financial metrics are for the organization's admins" });
    }
    expect((await financial({ organization_id: DEMO.orgs.acme })).status).toBe(200);
  });

  test('a team: the team’s manager who is not an admin gets 403; an admin gets the team’s figures', async () => {
    const grace = await t.token({ user: DEMO.emails.grace });
    expect((await financial({ team_id: DEMO.teams.platform }, grace)).status).toBe(403);
    const res = await financial({ team_id: DEMO.teams.platform });
    expect(res.status).toBe(200);
    expect(res.body.data.scope).toEqual({ organization_id: DEMO.orgs.acme, team_id: DEMO.teams.platform, repositories: 'authored' });
  });

  test('another organization is 403 and an unknown one 404, before any question of money', async () => {
    const linus = await t.token({ user: DEMO.emails.linus });
    expect((await financial({ organization_id: DEMO.orgs.globex }, linus)).body.error.message).toBe('You do not have permission to access this organization');
    expect((await financial({ organization_id: 'org_nope' }, linus)).status).toBe(404);
  });
});
