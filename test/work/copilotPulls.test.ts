import { QueryTypes } from 'sequelize';
import { AiVendorSource, App } from '../../db/models';
import { memberActiveYearsSql } from '../../db/rollups/memberActiveYears';
import { describeApp } from '../../src/services/apps/appViews';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { daysBetween, VendorPulls } from '../../src/services/aiVendors/vendorPulls';
import { providerCatalog } from '../../src/integrations/catalog';
import { dueDays, VendorPullSchedule } from '../../src/services/aiVendors/pullSchedule';
import { defaultHttp, ProviderHttp } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { unique } from '../support/common';
import { copilotUserRow, FakeGitHub } from '../support/peers/copilot/fakeGitHub';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * GitHub Copilot's usage metrics reports pulled into an app (docs/ai-vendors.md#github-copilot), from a local fake that
 * answers with GitHub's documented examples (test/support/peers/copilot/): accounts matched by the members' GitHub
 * logins, a day pulled again replacing itself, GitHub's rate limits and failures waited out or reported per day.
 */
let t: TestApp;
let github: FakeGitHub;
const waits: number[] = [];
let http: ProviderHttp;
beforeAll(async () => {
  // The fake answers on loopback over plain http: the operator's allowance lets calls reach it.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
  http = { ...defaultHttp(outboundPolicy(t.config)), sleep: async (ms) => void waits.push(ms / 1000) };
  github = new FakeGitHub();
  await github.start();
});
afterAll(async () => {
  await github.stop();
  await t.close();
});
beforeEach(() => {
  waits.length = 0;
  github.reset();
});

async function copilotApp(): Promise<string> {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'copilot', {
    name: `Copilot ${unique()}`,
    vendor: { credential: 'github_pat_0123456789abcdefghij', account: { kind: 'organization', slug: 'acme-corp' }, baseUrl: github.base },
  });
  return app.id;
}

const pulls = () => new VendorPulls(ChangeRunner.for(t.runtime.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(t.config)), http);

type StoredRow = { day: string; account: string; user_key: string; active: number; suggestions_shown: number; suggestions_accepted: number; lines_suggested: number; lines_added: number; sessions: number; input_tokens: number; output_tokens: number };
async function stored(appId: string): Promise<StoredRow[]> {
  const rows = await t.runtime.sequelize.query<StoredRow>(
    'SELECT day, account, user_key, active, suggestions_shown, suggestions_accepted, lines_suggested, lines_added, sessions, input_tokens, output_tokens FROM ai_vendor_days WHERE app_id = :appId ORDER BY day, account',
    { replacements: { appId }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ ...r, day: String(r.day).slice(0, 10), active: Number(r.active) }));
}

test('two days of reports: each member by their GitHub login, the unknown login for the organization only, GitHub’s figures as documented', async () => {
  const app = await copilotApp();
  github.report('2026-10-01', [[copilotUserRow('ada-lovelace', 11, '2026-10-01'), copilotUserRow('GHopper', 12, '2026-10-01')], [copilotUserRow('someone-else', 13, '2026-10-01')]]);
  github.report('2026-10-02', [[copilotUserRow('ada-lovelace', 11, '2026-10-02')]]);
  const outcome = await pulls().pull(app, daysBetween('2026-10-01', '2026-10-03'));
  expect(outcome).toEqual({
    app_id: app,
    stored: [
      { day: '2026-10-01', accounts: 3, matched: 2 },
      { day: '2026-10-02', accounts: 1, matched: 1 },
    ],
    without_report: ['2026-10-03'],
    refused: [],
    credential_refused: null,
    destination_refused: null,
  });
  // The documented row: 1 suggestion shown and accepted, 10 lines suggested, 8 added; its CLI: 2 sessions, 3800 prompt and 5000 output tokens.
  const figures = { active: 1, suggestions_shown: 1, suggestions_accepted: 1, lines_suggested: 10, lines_added: 8, sessions: 2, input_tokens: 3800, output_tokens: 5000 };
  expect(await stored(app)).toEqual([
    { day: '2026-10-01', account: 'ada-lovelace', user_key: DEMO.users.ada, ...figures },
    { day: '2026-10-01', account: 'ghopper', user_key: DEMO.users.grace, ...figures },
    { day: '2026-10-01', account: 'someone-else', user_key: '', ...figures },
    { day: '2026-10-02', account: 'ada-lovelace', user_key: DEMO.users.ada, ...figures },
  ]);
  // GitHub's API with the token and its documented version; the report files without the token (signed URLs).
  const asked = github.requests.filter((r) => r.path.startsWith('/orgs/acme-corp/'));
  expect(asked.map((r) => r.path)).toEqual(['2026-10-01', '2026-10-02', '2026-10-03'].map((day) => `/orgs/acme-corp/copilot/metrics/reports/users-1-day?day=${day}`));
  for (const r of asked) expect([r.authorization, r.apiVersion]).toEqual(['Bearer github_pat_0123456789abcdefghij', '2026-03-10']);
  for (const r of github.requests.filter((r) => r.path.startsWith('/files/'))) expect(r.authorization).toBeUndefined();
  const source = (await AiVendorSource.findByPk(app))!;
  expect([source.failing, source.pull_result, source.lease_owner]).toEqual([false, '2 days stored, 1 without a report yet.', null]);
  // Lists say what the app holds.
  expect((await describeApp('http://localhost', providerCatalog(), (await App.findByPk(app))!)).vendor).toMatchObject({ pulled_through: '2026-10-02', held: { days: 2, first: '2026-10-01', last: '2026-10-02' } });
});

test('a day pulled again, after GitHub corrected it, replaces what was stored: never counted twice', async () => {
  const app = await copilotApp();
  github.report('2026-10-05', [[copilotUserRow('ada-lovelace', 11, '2026-10-05')]]);
  await pulls().pull(app, ['2026-10-05']);
  github.report('2026-10-05', [[copilotUserRow('ada-lovelace', 11, '2026-10-05', 3), copilotUserRow('torvalds', 14, '2026-10-05')]]);
  await pulls().pull(app, ['2026-10-05']);
  expect((await stored(app)).map((r) => [r.account, r.user_key, r.suggestions_shown, r.lines_added])).toEqual([
    ['ada-lovelace', DEMO.users.ada, 3, 24],
    ['torvalds', DEMO.users.linus, 1, 8],
  ]);
});

test("a day pulled again without a member takes it off their days of AI use (the adoption tiers' member_active_years), as counted from what stays", async () => {
  const app = await copilotApp();
  github.report('2026-10-06', [[copilotUserRow('ada-lovelace', 11, '2026-10-06'), copilotUserRow('torvalds', 14, '2026-10-06')]]);
  await pulls().pull(app, ['2026-10-06']);
  const aiOctober = async () => Object.fromEntries((await activeYears(false)).map((r) => [r.user_id, Number(r.ai_m10) & 2 ** 5]));
  expect(await aiOctober()).toEqual({ [DEMO.users.ada]: 2 ** 5, [DEMO.users.linus]: 2 ** 5 });
  github.report('2026-10-06', [[copilotUserRow('ada-lovelace', 11, '2026-10-06')]]);
  await pulls().pull(app, ['2026-10-06']);
  expect(await aiOctober()).toEqual({ [DEMO.users.ada]: 2 ** 5, [DEMO.users.linus]: 0 });
  // A year left with no day at all is kept as zeros (a sum of nothing), where counting makes no row.
  const withDays = (rows: Record<string, unknown>[]) => rows.filter((r) => Object.entries(r).some(([k, v]) => /_m\d\d$/.test(k) && v !== 0));
  expect(withDays(await activeYears(false))).toEqual(await activeYears(true));
});

/** Ada's and Linus's years at acme as kept, or as counted from the stored rows (db/rollups/memberActiveYears.ts). */
async function activeYears(counted: boolean): Promise<Record<string, unknown>[]> {
  const from = counted ? `(${memberActiveYearsSql(t.runtime.sequelize.getDialect() === 'mysql', true)})` : 'member_active_years';
  const rows = await t.runtime.sequelize.query<Record<string, unknown>>(
    `SELECT y.* FROM ${from} y WHERE y.organization_id = :organization_id AND y.user_id IN (:users) AND y.year = 2026 ORDER BY y.user_id`,
    { replacements: { organization_id: DEMO.orgs.acme, users: [DEMO.users.ada, DEMO.users.linus] }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k.endsWith('_id') ? v : Number(v)])));
}

test('GitHub’s rate limit, a 500 and a report file that fails once are waited out; the day is stored whole', async () => {
  const app = await copilotApp();
  const reset = String(Math.floor(Date.now() / 1000) + 30);
  github.report('2026-10-07', [[copilotUserRow('ada-lovelace', 11, '2026-10-07')]], [
    { status: 429, headers: { 'retry-after': '7' } },
    { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, body: '{"message":"API rate limit exceeded"}' },
    { status: 500, body: '{"message":"Internal Error"}' },
    'report',
  ]);
  github.failFile('2026-10-07', 1, 503);
  const outcome = await pulls().pull(app, ['2026-10-07']);
  expect(outcome.stored).toEqual([{ day: '2026-10-07', accounts: 1, matched: 1 }]);
  expect(waits[0]).toBe(7);
  expect(waits[1]).toBeGreaterThanOrEqual(28);
  // The 500 was the third try (4 s after it), the file's 503 its first (1 s).
  expect(waits.slice(2)).toEqual([4, 1]);
});

test('a report file that breaks off halfway refuses its day, not the pull: the next day is stored', async () => {
  const app = await copilotApp();
  github.report('2026-10-13', [[copilotUserRow('ada-lovelace', 11, '2026-10-13')]]);
  github.report('2026-10-14', [[copilotUserRow('ada-lovelace', 11, '2026-10-14')]]);
  github.failFile('2026-10-13', 1, 0);
  const outcome = await pulls().pull(app, ['2026-10-13', '2026-10-14']);
  expect(outcome.refused).toEqual([{ day: '2026-10-13', reason: expect.stringMatching(/^Copilot's users report of 2026-10-13, file 1: the answer broke off/) }]);
  expect(outcome.stored.map((d) => d.day)).toEqual(['2026-10-14']);
});

test('a malformed report refuses its day with the reason; the other days are kept', async () => {
  const app = await copilotApp();
  github.report('2026-10-09', [[copilotUserRow('ada-lovelace', 11, '2026-10-09')]]);
  github.report('2026-10-10', [[copilotUserRow('ada-lovelace', 11, '2026-10-10'), '{"day": "2026-10-10", "user_login": "ghopper", "code_generation_activity_count": ']]);
  github.report('2026-10-11', [[{ ...copilotUserRow('ada-lovelace', 11, '2026-10-11'), loc_added_sum: 'eight' }]]);
  github.report('2026-10-12', [[copilotUserRow('ada-lovelace', 11, '2026-10-01')]]);
  const outcome = await pulls().pull(app, daysBetween('2026-10-09', '2026-10-12'));
  expect(outcome.stored.map((d) => d.day)).toEqual(['2026-10-09']);
  expect(outcome.refused).toEqual([
    { day: '2026-10-10', reason: "Copilot's users report of 2026-10-10, file 1: line 2 is not JSON" },
    { day: '2026-10-11', reason: expect.stringMatching(/^Copilot's users report of 2026-10-11, file 1: line 1: .*loc_added_sum/) },
    { day: '2026-10-12', reason: "Copilot's users report of 2026-10-12, file 1: line 1 is of 2026-10-01" },
  ]);
  expect((await stored(app)).map((r) => r.day)).toEqual(['2026-10-09']);
  expect((await AiVendorSource.findByPk(app))!.pull_result).toMatch(/^1 day stored, 3 refused \(2026-10-10: /);
});

test('a refused credential stops the pull and marks the app failing, until a new one is stored', async () => {
  const app = await copilotApp();
  github.report('2026-10-14', [[copilotUserRow('ada-lovelace', 11, '2026-10-14')]], [{ status: 401, body: '{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}' }]);
  const outcome = await pulls().pull(app, daysBetween('2026-10-14', '2026-10-15'));
  expect(outcome.credential_refused).toBe("Copilot's users report of 2026-10-14: the vendor refused the credential (401: {\"message\":\"Bad credentials\",\"documentation_url\":\"https://docs.github.com/rest\",\"status\":\"401\"})");
  // It stopped at the first day: the second was not asked.
  expect(github.requests.some((r) => r.path.endsWith('day=2026-10-15'))).toBe(false);
  expect((await AiVendorSource.findByPk(app))!.failing).toBe(true);
  await t.runtime.writers.apps.setSecret(app, 'github_pat_renewed0123456789');
  expect((await AiVendorSource.findByPk(app))!.failing).toBe(false);
});

test('one pull of an app at a time: a second worker is refused while the first holds the lease; a lease left by a dead worker expires', async () => {
  const app = await copilotApp();
  await AiVendorSource.update({ lease_owner: 'pull_other', lease_until: new Date(Date.now() + 60_000) }, { where: { app_id: app } });
  await expect(pulls().pull(app, ['2026-10-16'])).rejects.toThrow(`App ${app} is being pulled by another worker`);
  await AiVendorSource.update({ lease_until: new Date(Date.now() - 1) }, { where: { app_id: app } });
  expect((await pulls().pull(app, ['2026-10-16'])).without_report).toEqual(['2026-10-16']);
});

test('the daily pull: a new app’s last four weeks, then from a few days before the last day stored; failing, disabled and recently pulled apps wait', async () => {
  expect(dueDays(null, new Date('2026-11-27T06:00:00Z'))).toEqual(daysBetween('2026-10-30', '2026-11-26'));
  expect(dueDays('2026-11-20', new Date('2026-11-27T06:00:00Z'))).toEqual(daysBetween('2026-11-17', '2026-11-26'));
  expect(dueDays('2024-01-01', new Date('2026-11-27T06:00:00Z'))[0]).toBe('2025-11-26');

  const now = new Date('2026-10-22T06:00:00Z');
  const pulled = await copilotApp();
  const failing = await copilotApp();
  const disabled = await copilotApp();
  // As the demo's app is: reports held, no credential stored yet.
  const withoutCredential = await copilotApp();
  await AiVendorSource.update({ failing: true }, { where: { app_id: failing } });
  await AiVendorSource.update({ credential: null }, { where: { app_id: withoutCredential } });
  await t.runtime.writers.apps.setActive(disabled, false);
  github.report('2026-10-21', [[copilotUserRow('ada-lovelace', 11, '2026-10-21')]]);
  const schedule = new VendorPullSchedule(pulls(), { onPulled: () => undefined, onError: (err) => { throw err; } }, () => now);
  const first = await schedule.runDue();
  const mine = first.find((o) => o.app_id === pulled)!;
  expect(mine.stored.map((d) => d.day)).toEqual(['2026-10-21']);
  expect(mine.without_report).toEqual(daysBetween('2026-09-24', '2026-10-20'));
  expect(first.map((o) => o.app_id)).not.toContain(failing);
  expect(first.map((o) => o.app_id)).not.toContain(disabled);
  expect(first.map((o) => o.app_id)).not.toContain(withoutCredential);
  await expect(pulls().pull(withoutCredential, ['2026-10-21'])).rejects.toThrow(`App ${withoutCredential} has no credential: store one (npm run apps -- set-secret --app ${withoutCredential} --secret-file <file>)`);
  expect((await describeApp('http://localhost', providerCatalog(), (await App.findByPk(withoutCredential))!)).has_secret).toBe(false);
  expect((await AiVendorSource.findByPk(pulled))!.pulled_through).toBe('2026-10-21');
  // Pulled minutes ago: the next tick leaves it alone.
  expect((await schedule.runDue()).map((o) => o.app_id)).not.toContain(pulled);
});

test('the daily pull’s tick: a failure to read the due apps is told, never thrown; stop waits for the tick in progress', async () => {
  jest.useFakeTimers();
  try {
    const told: unknown[] = [];
    let finish: () => void = () => undefined;
    const schedule = new VendorPullSchedule(pulls(), { intervalMs: 3_600_000, onPulled: () => undefined, onError: (err, appId) => void told.push([String(err), appId]) });
    const failing = jest.spyOn(schedule, 'runDue').mockImplementationOnce(() => Promise.reject(new Error('database away'))).mockImplementationOnce(() => new Promise((resolve) => (finish = () => resolve([]))));
    schedule.start();
    await jest.advanceTimersByTimeAsync(119_999);
    expect(failing).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(told).toEqual([['Error: database away', null]]);
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(failing).toHaveBeenCalledTimes(2);
    let stopped = false;
    const stopping = schedule.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  } finally {
    jest.useRealTimers();
  }
});

test('ai-usage counts Copilot’s members: by tool, in the totals and the active users, exactly the rows’ sums; a day pulled again replaces its share', async () => {
  const token = await t.token();
  const usage = async () => {
    const res = await t.get(`/v1/metrics/ai-usage?organization_id=${DEMO.orgs.acme}&from=2026-08-03&to=2026-08-04`, token);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  // Of ada and grace, those the demo's telemetry already shows active in the window.
  const already = new Set(
    (
      await t.runtime.sequelize.query<{ user_key: string }>("SELECT DISTINCT user_key FROM ai_usage_days WHERE organization_id = :org AND day IN ('2026-08-03', '2026-08-04') AND user_key IN (:users)", {
        replacements: { org: DEMO.orgs.acme, users: [DEMO.users.ada, DEMO.users.grace] },
        type: QueryTypes.SELECT,
      })
    ).map((r) => r.user_key),
  );
  const newlyActive = (...users: string[]) => users.filter((u) => !already.has(u)).length;
  const before = await usage();
  // The demo's own Copilot app (its year of reports) counts already; what this app adds is counted on top.
  const copilotOf = (data: { by_tool: { tool: string }[] }) => data.by_tool.find((b) => b.tool === 'copilot') as Record<string, any> | undefined;
  const added = (now: Record<string, any>, then: Record<string, any> | undefined): Record<string, any> =>
    Object.fromEntries(Object.entries(now).map(([k, v]) => [k, typeof v === 'number' ? v - Number(then?.[k] ?? 0) : v && typeof v === 'object' ? added(v, then?.[k]) : v]));
  const copilotBefore = copilotOf(before);
  const app = await copilotApp();
  github.report('2026-08-03', [[copilotUserRow('ada-lovelace', 11, '2026-08-03'), copilotUserRow('ghopper', 12, '2026-08-03'), copilotUserRow('nobody-here', 13, '2026-08-03')]]);
  github.report('2026-08-04', [[copilotUserRow('ada-lovelace', 11, '2026-08-04')]]);
  await pulls().pull(app, ['2026-08-03', '2026-08-04']);
  const after = await usage();
  // Three member-days (ada twice, grace once), each GitHub's documented row: 2 CLI sessions, 3800 prompt and 5000
  // output tokens, 8 lines added; the unmatched login's day counts for the organization only.
  // And 1 suggestion shown and accepted, 10 lines suggested, no chat or agent request.
  const { suggestions, ...rest } = added(copilotOf(after)!, copilotBefore);
  // The rate is of the tool's whole window, the demo's reports included.
  const totals = copilotOf(after)!.suggestions;
  expect(totals.acceptance_rate).toBe(Math.round((totals.accepted / totals.shown) * 10_000) / 10_000);
  expect({ ...rest, suggestions: { shown: suggestions.shown, accepted: suggestions.accepted } }).toEqual({
    tool: 'copilot',
    active_users: 2,
    sessions: 6,
    cost_usd: 0,
    tokens: { input: 11400, output: 15000, cache_read: 0, cache_creation: 0 },
    suggestions: { shown: 3, accepted: 3 },
    lines: { suggested: 30, added: 24, removed: 0 },
    chat_requests: 0,
    agent_requests: 0,
  });
  expect(after.lines.added - before.lines.added).toBe(24);
  expect(after.sessions - before.sessions).toBe(6);
  expect(after.unattributed.sessions - before.unattributed.sessions).toBe(2);
  expect(after.active_users - before.active_users).toBe(newlyActive(DEMO.users.ada, DEMO.users.grace));

  // GitHub corrects the 3rd: grace was not there after all, and ada did three times as much.
  github.report('2026-08-03', [[copilotUserRow('ada-lovelace', 11, '2026-08-03', 3)]]);
  await pulls().pull(app, ['2026-08-03']);
  const corrected = await usage();
  expect(added(copilotOf(corrected)!, copilotBefore)).toMatchObject({
    active_users: 1,
    sessions: 4,
    tokens: { input: 7600, output: 10000, cache_read: 0, cache_creation: 0 },
    suggestions: { shown: 4, accepted: 4 },
    lines: { suggested: 40, added: 32, removed: 0 },
  });
  expect(corrected.lines.added - before.lines.added).toBe(3 * 8 + 8);
  expect(corrected.unattributed.sessions).toBe(before.unattributed.sessions);
  // Grace is active only as the demo's telemetry shows her, if at all: her day's bit went with Copilot's row.
  expect(corrected.active_users - before.active_users).toBe(newlyActive(DEMO.users.ada));
});
