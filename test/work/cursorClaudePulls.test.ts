import { QueryTypes } from 'sequelize';
import { AiVendorSource } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { defaultHttp } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { VendorPulls } from '../../src/services/aiVendors/vendorPulls';
import { providerCatalog } from '../../src/integrations/catalog';
import cursorUsage from '../support/peers/cursor/daily-usage-data.json';
import cursorUnauthorized from '../support/peers/cursor/unauthorized.json';
import claudePage1 from '../support/peers/anthropic/usage-report-page-1.json';
import claudePage2 from '../support/peers/anthropic/usage-report-page-2.json';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * Cursor's and Anthropic's usage APIs pulled into apps (docs/ai-vendors.md#cursor, #claude-code), from local fakes
 * answering with the vendors' documented examples (test/support/peers/cursor/, anthropic/): accounts matched by
 * e-mail, Anthropic's pages followed, its cents kept as dollars, Cursor's refusal of a key marking the app failing.
 */
let t: TestApp;
let cursor: ScriptedPeer;
let anthropic: ScriptedPeer;
let cursorAnswer: (day: number) => ScriptedAnswer;
beforeAll(async () => {
  // The fakes answer on loopback over plain http: the operator's allowance lets calls reach them.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
  cursor = new ScriptedPeer((request) => cursorAnswer((JSON.parse(request.body) as { startDate: number }).startDate));
  anthropic = new ScriptedPeer((_request, url) => claudeAnswer(url));
  await Promise.all([cursor.start(), anthropic.start()]);
});
afterAll(async () => {
  await Promise.all([cursor.stop(), anthropic.stop()]);
  await t.close();
});

const DAY = '2026-10-20';
const MIDNIGHT = Date.parse(`${DAY}T00:00:00Z`);

/** Cursor's documented day, for ada and for someone no member is; the next day's row too (the end bound's). */
function cursorDays(start: number): ScriptedAnswer {
  const [documented] = cursorUsage.data;
  const row = (email: string, date: number) => ({ ...documented, email, date, day: new Date(date).toISOString().slice(0, 10) });
  return {
    status: 200,
    body: { data: [row(DEMO.emails.ada.toUpperCase(), start), row('contractor@elsewhere.test', start), row(DEMO.emails.ada, start + 86_400_000)], period: { startDate: start, endDate: start + 86_400_000 } },
  };
}

/** Anthropic's two documented pages: the reference's (grace), then, asked with its cursor, the guide's (ada). */
function claudeAnswer(url: URL): ScriptedAnswer {
  const date = `${url.searchParams.get('starting_at')}T00:00:00Z`;
  if (url.searchParams.get('page') === claudePage1.next_page) return { status: 200, body: { ...claudePage2, data: claudePage2.data.map((d) => ({ ...d, date, actor: { ...d.actor, email_address: DEMO.emails.ada } })) } };
  return { status: 200, body: { ...claudePage1, data: claudePage1.data.map((d) => ({ ...d, date, actor: { ...d.actor, email_address: DEMO.emails.grace } })) } };
}

async function vendorApp(vendor: 'cursor' | 'claude_code', baseUrl: string): Promise<string> {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, vendor, { name: `${vendor} ${unique()}`, vendor: { credential: `key_${unique()}_0123456789`, baseUrl } });
  return app.id;
}

const pulls = () => new VendorPulls(ChangeRunner.for(t.runtime.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(t.config)), { ...defaultHttp(outboundPolicy(t.config)), sleep: async () => undefined });

async function stored(appId: string): Promise<Record<string, unknown>[]> {
  const rows = await t.runtime.sequelize.query<Record<string, unknown>>(
    `SELECT account, user_key, active, prompts, suggestions_shown, suggestions_accepted, lines_added, lines_removed, chat_requests, agent_requests, edits_accepted, edits_rejected,
            sessions, commits, pull_requests, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, cost_usd
       FROM ai_vendor_days WHERE app_id = :appId ORDER BY account`,
    { replacements: { appId }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && k !== 'account' && k !== 'user_key' ? Number(v) : k === 'active' ? Number(v) : v])));
}

test('Cursor: the day’s members by e-mail (any case), the documented figures, the next day’s row left to its own day', async () => {
  cursorAnswer = cursorDays;
  const app = await vendorApp('cursor', cursor.base);
  const outcome = await pulls().pull(app, [DAY]);
  expect(outcome.stored).toEqual([{ day: DAY, accounts: 2, matched: 1 }]);
  const request = cursor.requests.at(-1)!;
  expect([request.method, request.path, JSON.parse(request.body)]).toEqual(['POST', '/teams/daily-usage-data', { startDate: MIDNIGHT, endDate: MIDNIGHT + 86_400_000 }]);
  expect(Buffer.from(request.headers.authorization!.replace(/^Basic /, ''), 'base64').toString()).toMatch(/^key_.+_0123456789:$/);
  // Cursor's example: 289 of 342 tabs accepted, 1102 lines added and 645 deleted by accepted suggestions, 128 chat,
  // 45 composer and 12 agent requests, 67 cmd-K, 73 of 87 applies accepted.
  const figures = { active: 1, prompts: 252, suggestions_shown: 342, suggestions_accepted: 289, lines_added: 1102, lines_removed: 645, chat_requests: 128, agent_requests: 57, edits_accepted: 73, edits_rejected: 14 };
  const rows = await stored(app);
  const expected = [
    [DEMO.emails.ada.toLowerCase(), DEMO.users.ada],
    ['contractor@elsewhere.test', ''],
  ];
  expect(rows.map((r) => [r.account, r.user_key])).toEqual(expected.sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  for (const r of rows) expect(r).toMatchObject({ ...figures, sessions: 0, cost_usd: 0 });
});

test('Cursor: a refused key marks the app failing with Cursor’s words', async () => {
  cursorAnswer = () => ({ status: 401, body: cursorUnauthorized });
  const app = await vendorApp('cursor', cursor.base);
  const outcome = await pulls().pull(app, [DAY]);
  expect(outcome.credential_refused).toBe(`Cursor's daily usage of ${DAY}: the vendor refused the credential (401: {"error":"Unauthorized","message":"Invalid API key"})`);
  expect((await AiVendorSource.findByPk(app))!.failing).toBe(true);
});

test('Claude Code: both pages, followed by Anthropic’s cursor with the day kept; cents kept as dollars; members by e-mail', async () => {
  // A base URL with a path of its own (a proxy's), as `--base-url` may give.
  const app = await vendorApp('claude_code', `${anthropic.base}/anthropic`);
  const outcome = await pulls().pull(app, [DAY]);
  expect(outcome.stored).toEqual([{ day: DAY, accounts: 2, matched: 2 }]);
  const asked = anthropic.requests.slice(-2);
  expect(asked.map((r) => r.path)).toEqual([
    `/anthropic/v1/organizations/usage_report/claude_code?starting_at=${DAY}&limit=1000`,
    `/anthropic/v1/organizations/usage_report/claude_code?starting_at=${DAY}&limit=1000&page=${encodeURIComponent(claudePage1.next_page)}`,
  ]);
  for (const r of asked) expect([r.headers['anthropic-version'], r.headers['x-api-key']]).toEqual(['2023-06-01', expect.stringMatching(/^key_/)]);
  const byUser = Object.fromEntries((await stored(app)).map((r) => [r.user_key, r]));
  // The reference's row: 15 sessions, 342 lines added and 128 removed, 8 commits, 2 pull requests, 50 edits accepted
  // and 6 rejected, two models' tokens, 186 + 42 cents.
  expect(byUser[DEMO.users.grace]).toMatchObject({ sessions: 15, lines_added: 342, lines_removed: 128, commits: 8, pull_requests: 2, edits_accepted: 50, edits_rejected: 6, input_tokens: 68330, output_tokens: 18130, cache_read_tokens: 12210, cache_creation_tokens: 3230, cost_usd: 2.28 });
  // The guide's: 5 sessions, 1543 and 892 lines, 12 commits, 2 pull requests, 68 and 8 edits, 1025 cents.
  expect(byUser[DEMO.users.ada]).toMatchObject({ sessions: 5, lines_added: 1543, lines_removed: 892, commits: 12, pull_requests: 2, edits_accepted: 68, edits_rejected: 8, input_tokens: 100000, output_tokens: 35000, cost_usd: 10.25 });
});
