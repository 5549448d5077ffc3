import { QueryTypes } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { DEMO_END } from '../../db/demo/fixtures/timeline';
import { otelLogger, otelMeter } from '../support/peers/otel';
import { callerFor } from '../support/callers';
import { expectError } from '../support/assertions';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import { OrganizationMembership } from '../../db/models';
import { createLab } from '../support/data/metricsHistory';
import { sendPastPoints } from '../support/peers/otlpJson';

/**
 * `GET /v1/metrics/ai-usage` (docs/metrics.md#ai-review-and-cost-figures) over telemetry sent by the OpenTelemetry SDK's own exporters as Claude
 * Code, Gemini CLI and Codex send it: exact figures for an organization and a team, members matched by e-mail,
 * by a bound token and by an account id seen before; strangers counted apart.
 */
let t: TestApp;
const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const E = DEMO.emails;

const SONNET = 'claude-sonnet-4-5';
const OPUS = 'claude-opus-4-1';
const HAIKU = 'claude-haiku-4-5';

let orgToken: string;
let membersOf: { acme: number; platform: number };

async function send() {
  const baseUrl = await t.listen();
  const acme = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
  const linusOnly = (await createOtlpToken({ organizationId: DEMO.orgs.acme, user: E.linus })).token;

  const claude = otelMeter({ baseUrl, token: acme, protocol: 'http/protobuf', gzip: true });
  const ada = { 'user.email': E.ada.toUpperCase(), 'user.account_uuid': 'acc-ada', 'session.id': 's-ada' };
  claude.add('claude_code.session.count', 1, ada);
  claude.add('claude_code.token.usage', 1000, { ...ada, type: 'input', model: SONNET });
  claude.add('claude_code.token.usage', 100, { ...ada, type: 'output', model: SONNET });
  claude.add('claude_code.cost.usage', 0.5, { ...ada, model: SONNET });
  claude.add('claude_code.lines_of_code.count', 10, { ...ada, type: 'added' });
  claude.add('claude_code.lines_of_code.count', 2, { ...ada, type: 'removed' });
  claude.add('claude_code.code_edit_tool.decision', 4, { ...ada, decision: 'accept', tool_name: 'Edit' });
  claude.add('claude_code.code_edit_tool.decision', 1, { ...ada, decision: 'reject', tool_name: 'Edit' });
  claude.add('claude_code.active_time.total', 3600, { ...ada, type: 'user' });
  claude.add('claude_code.active_time.total', 1800, { ...ada, type: 'cli' });
  const grace = { 'user.email': E.grace, 'session.id': 's-grace' };
  claude.add('claude_code.session.count', 2, grace);
  claude.add('claude_code.token.usage', 500, { ...grace, type: 'input', model: OPUS });
  claude.add('claude_code.cost.usage', 1.25, { ...grace, model: OPUS });
  claude.add('claude_code.commit.count', 1, grace);
  claude.add('claude_code.pull_request.count', 1, grace);
  const stranger = { 'user.email': 'stranger@elsewhere.test', 'session.id': 's-stranger' };
  claude.add('claude_code.session.count', 1, stranger);
  claude.add('claude_code.cost.usage', 0.75, { ...stranger, model: SONNET });
  await claude.flush();
  // Only the account id: ada's, seen above with her e-mail.
  const adaByAccount = { 'user.account_uuid': 'acc-ada', 'session.id': 's-ada-2' };
  claude.add('claude_code.session.count', 1, adaByAccount);
  claude.add('claude_code.cost.usage', 0.25, { ...adaByAccount, model: SONNET });
  await claude.flush();
  await claude.shutdown();

  const linus = otelMeter({ baseUrl, token: linusOnly, protocol: 'http/json' });
  linus.add('claude_code.session.count', 1, { 'session.id': 's-linus' });
  linus.add('claude_code.token.usage', 50, { 'session.id': 's-linus', type: 'output', model: HAIKU });
  linus.add('claude_code.cost.usage', 0.05, { 'session.id': 's-linus', model: HAIKU });
  await linus.flush();
  await linus.shutdown();

  const gemini = otelMeter({ baseUrl, token: acme, protocol: 'http/protobuf', service: { name: 'gemini-cli', version: '0.9.0' } });
  const barbara = { 'user.email': E.barbara, 'session.id': 's-barbara' };
  gemini.add('gemini_cli.session.count', 1, barbara);
  gemini.add('gemini_cli.token.usage', 300, { ...barbara, type: 'input', model: 'gemini-2.5-pro' });
  gemini.add('gemini_cli.token.usage', 20, { ...barbara, type: 'thought', model: 'gemini-2.5-pro' });
  await gemini.flush();
  await gemini.shutdown();

  const events = otelLogger({ baseUrl, token: acme, protocol: 'http/protobuf', gzip: true });
  for (let i = 1; i <= 3; i++) events.event('claude_code.user_prompt', { ...ada, 'event.sequence': i, prompt_length: 10 * i });
  events.event('claude_code.user_prompt', { ...grace, 'event.sequence': 1, prompt_length: 7 });
  await events.flush();
  await events.shutdown();

  const codex = otelLogger({ baseUrl, token: acme, protocol: 'http/json', service: { name: 'codex_cli_rs', version: '0.50.0' } });
  codex.emit({
    body: 'codex.sse_event',
    eventName: 'codex.sse_event',
    attributes: { 'event.name': 'codex.sse_event', 'event.kind': 'response.completed', 'user.email': E.grace, 'conversation.id': 'c-1', model: 'gpt-5-codex', input_token_count: 40, output_token_count: 8, cached_token_count: 16 },
  });
  await codex.flush();
  await codex.shutdown();
}

beforeAll(async () => {
  t = await startTestApp({ OTLP_RATE_LIMIT_PER_MINUTE: '100000', COUNT_CACHE_TTL_MS: '0' });
  orgToken = await t.token({ user: E.ada });
  const count = async (sql: string) => Number((await t.runtime.sequelize.query<{ n: number }>(sql, { type: QueryTypes.SELECT }))[0].n);
  membersOf = {
    acme: await count(`SELECT COUNT(*) AS n FROM organization_memberships WHERE organization_id = 'org_acme' AND status = 'active'`),
    platform: await count(`SELECT COUNT(*) AS n FROM team_memberships WHERE team_id = 'team_platform' AND status = 'active'`),
  };
  await send();
});
afterAll(async () => t.close());

const noSuggestions = { suggestions: { shown: 0, accepted: 0, acceptance_rate: null }, chat_requests: 0, agent_requests: 0 };
const tokens = (input: number, output: number, cache_read = 0, cache_creation = 0) => ({ input, output, cache_read, cache_creation });

async function aiUsage(query: Record<string, string>, token = orgToken) {
  const caller = await callerFor(t, token);
  return (await caller.metrics.aiUsage(query)).data;
}

test('the organization: members’ figures exactly, per tool and model, strangers apart', async () => {
  expect(await aiUsage({ organization_id: DEMO.orgs.acme, from: today, to: today })).toEqual({
    scope: { organization_id: DEMO.orgs.acme, team_id: null, repositories: 'all' },
    from: today,
    to: today,
    interval: null,
    active_users: 4,
    members: membersOf.acme,
    adoption_rate: Math.round((4 / membersOf.acme) * 10_000) / 10_000,
    engagement: { light: 0, moderate: 0, heavy: 4 },
    sessions: 6,
    prompts: 4,
    api_requests: 0,
    active_hours: { user: 1, cli: 0.5 },
    tokens: tokens(1840, 178, 16),
    cost_usd: 2.05,
    lines: { added: 10, removed: 2 },
    commits: 1,
    pull_requests: 1,
    edit_decisions: { accepted: 4, rejected: 1, acceptance_rate: 0.8 },
    // No inline suggestions, chat or agent requests: those are what Copilot's and Cursor's APIs report.
    by_tool: [
      { tool: 'claude_code', active_users: 3, sessions: 5, cost_usd: 2.05, tokens: tokens(1500, 150), ...noSuggestions, lines: { suggested: 0, added: 10, removed: 2 } },
      { tool: 'codex', active_users: 1, sessions: 0, cost_usd: 0, tokens: tokens(40, 8, 16), ...noSuggestions, lines: { suggested: 0, added: 0, removed: 0 } },
      { tool: 'gemini_cli', active_users: 1, sessions: 1, cost_usd: 0, tokens: tokens(300, 20), ...noSuggestions, lines: { suggested: 0, added: 0, removed: 0 } },
    ],
    by_model: [
      { model: HAIKU, cost_usd: 0.05, tokens: tokens(0, 50) },
      { model: OPUS, cost_usd: 1.25, tokens: tokens(500, 0) },
      { model: SONNET, cost_usd: 0.75, tokens: tokens(1000, 100) },
      { model: 'gemini-2.5-pro', cost_usd: 0, tokens: tokens(300, 20) },
      { model: 'gpt-5-codex', cost_usd: 0, tokens: tokens(40, 8, 16) },
    ],
    unattributed: { sessions: 1, cost_usd: 0.75 },
  });
});

test('a team: its members’ figures today, nothing unattributed', async () => {
  const data = await aiUsage({ team_id: DEMO.teams.platform, from: today, to: today });
  expect(data).toMatchObject({
    scope: { organization_id: DEMO.orgs.acme, team_id: DEMO.teams.platform, repositories: 'authored' },
    active_users: 2,
    members: membersOf.platform,
    sessions: 3,
    prompts: 1,
    tokens: tokens(540, 58, 16),
    cost_usd: 1.3,
    commits: 1,
    pull_requests: 1,
    lines: { added: 0, removed: 0 },
    edit_decisions: { accepted: 0, rejected: 0, acceptance_rate: null },
    unattributed: null,
  });
  expect(data.by_tool.map((x) => [x.tool, x.active_users])).toEqual([['claude_code', 2], ['codex', 1]]);
});

test('a daily series adds up to the totals; a day without activity is zeros', async () => {
  const data = await aiUsage({ organization_id: DEMO.orgs.acme, from: yesterday, to: today, interval: 'day' });
  expect(data.series).toHaveLength(2);
  expect(data.series![0]).toMatchObject({ start: yesterday, active_users: 0, sessions: 0, cost_usd: 0 });
  expect(data.series![1]).toMatchObject({ start: today, active_users: 4, sessions: 6, prompts: 4, cost_usd: 2.05, tokens: tokens(1840, 178, 16) });
  // Two days: each member was active on one, under 3.5 days a week.
  expect(data.engagement).toEqual({ light: 0, moderate: 0, heavy: 4 });
  // Four weeks (after the demo data ends): one active day is light use.
  const from = new Date(Math.max(DEMO_END.getTime(), Date.now() - 27 * 86_400_000)).toISOString().slice(0, 10);
  const weeks = await aiUsage({ organization_id: DEMO.orgs.acme, from, to: today });
  expect(weeks.engagement).toEqual(from === today ? { light: 0, moderate: 0, heavy: 4 } : { light: 4, moderate: 0, heavy: 0 });
});

test('access: team-scoped tokens see their team only; other organizations are 403; the wire answers as the document says', async () => {
  const platformOnly = await t.token({ user: E.ada, teamIds: [DEMO.teams.platform] });
  expect((await aiUsage({ team_id: DEMO.teams.platform, from: today, to: today }, platformOnly)).sessions).toBe(3);
  expectError(await t.get(`/v1/metrics/ai-usage?team_id=${DEMO.teams.mobile}`, platformOnly), 403, 'FORBIDDEN', 'You do not have permission to access this team');
  expectError(await t.get(`/v1/metrics/ai-usage?organization_id=${DEMO.orgs.acme}`, platformOnly), 403, 'FORBIDDEN', /organization/);
  const outsider = await t.token({ user: E.outsider });
  expectError(await t.get(`/v1/metrics/ai-usage?organization_id=${DEMO.orgs.acme}`, outsider), 403, 'FORBIDDEN', /organization/);
  const res = await t.get(`/v1/metrics/ai-usage?organization_id=${DEMO.orgs.acme}&from=${today}&to=${today}`, orgToken);
  expect(res.status).toBe(200);
  expect(res.body.data.sessions).toBe(6);
});

test('active users and engagement from the members’ day bits agree with the daily rows, in windows cutting months and years', async () => {
  let members = 0;
  for (const [from, to] of [['2025-11-20', '2026-11-20'], ['2026-03-10', '2026-08-20'], ['2026-02-01', '2026-02-28'], ['2025-12-31', '2026-01-01'], ['2026-05-17', '2026-05-17']]) {
    const days = await t.runtime.sequelize.query<{ user_key: string; n: number }>(
      `SELECT user_key, COUNT(DISTINCT day) AS n FROM ai_usage_days WHERE organization_id = 'org_acme' AND user_key <> '' AND day >= :from AND day <= :to GROUP BY user_key`,
      { replacements: { from, to }, type: QueryTypes.SELECT },
    );
    const weeks = (Date.parse(to) - Date.parse(from) + 86_400_000) / (7 * 86_400_000);
    const expected = { light: 0, moderate: 0, heavy: 0 };
    for (const d of days) expected[Number(d.n) / weeks < 1 ? 'light' : Number(d.n) / weeks < 3 ? 'moderate' : 'heavy']++;
    const data = await aiUsage({ organization_id: DEMO.orgs.acme, from, to });
    expect({ from, active: data.active_users, engagement: data.engagement }).toEqual({ from, active: days.length, engagement: expected });
    members += days.length;
  }
  // The demo data has AI usage in these windows: the comparison compared something.
  expect(members).toBeGreaterThan(5);
});

test('adoption: the window’s active users over the members during the window, one who left in it counted, one who left before not', async () => {
  // Ada, Grace and Margaret all along; Linus used Claude Code on March 5 and was suspended on April 6; Hedy was
  // suspended on February 1, before the window. Members during March 1 to April 30: Ada, Grace, Margaret, Linus.
  const { lab } = await createLab(t, 'Lab (adoption)');
  const organizationId = lab.organizationId;
  for (const [email, name] of [[E.linus, 'Linus'], [E.hedy, 'Hedy']]) {
    await t.runtime.writers.members.provision(organizationId, { email, name, role: 'collaborator', active: true, externalId: null, title: null });
  }
  const session = (email: string, at: string) => ({ service: 'claude-code' as const, name: 'claude_code.session.count', email, at, value: 1 });
  await sendPastPoints(t, organizationId, [session(E.ada, '2026-03-04T10:00:00Z'), session(E.linus, '2026-03-05T10:00:00Z')]);
  // Suspended on those days, as the writer would have recorded it then.
  const suspend = (email: string, at: string) => OrganizationMembership.update({ status: 'suspended', suspended_at: new Date(at) }, { where: { organization_id: organizationId, user_email: email } });
  await suspend(E.linus, '2026-04-06T00:00:00Z');
  await suspend(E.hedy, '2026-02-01T00:00:00Z');

  const ada = await t.token({ user: E.ada });
  const adoption = async (from: string, to: string) => {
    const { active_users, members, adoption_rate } = await aiUsage({ organization_id: organizationId, from, to }, ada);
    return { active_users, members, adoption_rate };
  };
  expect(await adoption('2026-03-01', '2026-04-30')).toEqual({ active_users: 2, members: 4, adoption_rate: 0.5 });
  // After Linus left: three members. In January, before Hedy left: all five, nobody active.
  expect(await adoption('2026-04-07', '2026-04-30')).toEqual({ active_users: 0, members: 3, adoption_rate: 0 });
  expect(await adoption('2026-01-05', '2026-01-31')).toEqual({ active_users: 0, members: 5, adoption_rate: 0 });
});
