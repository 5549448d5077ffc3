import { QueryTypes } from 'sequelize';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { defaultHttp } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { VendorPulls } from '../../src/services/aiVendors/vendorPulls';
import { providerCatalog } from '../../src/integrations/catalog';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import claudePage1 from '../support/peers/anthropic/usage-report-page-1.json';
import claudePage2 from '../support/peers/anthropic/usage-report-page-2.json';
import { otelMeter } from '../support/peers/otel';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';
import { callerFor } from '../support/callers';
import { unique } from '../support/common';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * One member's day of Claude Code reported both by OTLP telemetry (the SDK's own exporter, as Claude Code sends it)
 * and by Anthropic's Claude Code Analytics API (a fake answering with its documented pages): counted once, with
 * OTLP's figures, whichever arrives first (docs/ai-vendors.md#what-the-figures-count).
 */
let t: TestApp;
let anthropic: ScriptedPeer;
/** Who Anthropic reports for the day: the reference's row (page 1) and the guide's (page 2), by e-mail. */
let reported: { page1: string; page2: string };
beforeAll(async () => {
  t = await startTestApp({ OTLP_RATE_LIMIT_PER_MINUTE: '100000', COUNT_CACHE_TTL_MS: '0', WEBHOOK_ALLOW_PRIVATE: '1' });
  anthropic = new ScriptedPeer((_request, url) => claudeAnswer(url));
  await anthropic.start();
});
afterAll(async () => {
  await anthropic.stop();
  await t.close();
});

// The exporter stamps points with the time they are sent: the day is today's.
const DAY = new Date().toISOString().slice(0, 10);

function claudeAnswer(url: URL): ScriptedAnswer {
  const date = `${url.searchParams.get('starting_at')}T00:00:00Z`;
  const page = (source: typeof claudePage1 | typeof claudePage2, email: string) => ({ ...source, data: source.data.map((d) => ({ ...d, date, actor: { ...d.actor, email_address: email } })) });
  if (url.searchParams.get('page') === claudePage1.next_page) return { status: 200, body: page(claudePage2, reported.page2) };
  return { status: 200, body: page(claudePage1, reported.page1) };
}

async function sendOtlp(email: string, figures: { sessions: number; linesAdded: number; cost: number }): Promise<void> {
  const meter = otelMeter({ baseUrl: await t.listen(), token: (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token, protocol: 'http/protobuf' });
  const who = { 'user.email': email, 'session.id': `s-${unique()}` };
  meter.add('claude_code.session.count', figures.sessions, who);
  meter.add('claude_code.lines_of_code.count', figures.linesAdded, { ...who, type: 'added' });
  meter.add('claude_code.cost.usage', figures.cost, { ...who, model: 'claude-sonnet-4-5' });
  await meter.flush();
  await meter.shutdown();
}

type Usage = { sessions: number; cost_usd: number; lines: { added: number }; active_users: number; unattributed: { sessions: number }; by_tool: { tool: string; sessions: number; active_users: number; lines: { added: number } }[] };
async function usage(scope: { team_id?: string } = {}): Promise<Usage> {
  const caller = await callerFor(t, await t.token({ user: DEMO.emails.ada }));
  return (await caller.metrics.aiUsage({ organization_id: DEMO.orgs.acme, from: DAY, to: DAY, ...scope })).data as Usage;
}
const claudeCode = (u: Usage) => u.by_tool.find((b) => b.tool === 'claude_code') ?? { sessions: 0, active_users: 0, lines: { added: 0 } };

async function counted(appId: string): Promise<Record<string, number>> {
  const rows = await t.runtime.sequelize.query<{ account: string; counted: number }>('SELECT account, counted FROM ai_vendor_days WHERE app_id = :appId AND day = :day', {
    replacements: { appId, day: DAY },
    type: QueryTypes.SELECT,
  });
  return Object.fromEntries(rows.map((r) => [r.account, Number(r.counted)]));
}

test('OTLP’s figures stand for a member’s day both report, whichever comes first; the vendor’s count for the others', async () => {
  const { app } = await t.runtime.writers.apps.create(DEMO.orgs.acme, 'claude_code', { name: `Claude Code ${unique()}`, vendor: { credential: `sk-ant-admin-${unique()}-0123456789`, baseUrl: `${anthropic.base}/anthropic` } });
  const pull = () => new VendorPulls(ChangeRunner.for(t.runtime.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(t.config)), { ...defaultHttp(outboundPolicy(t.config)), sleep: async () => undefined }).pull(app.id, [DAY]);
  const [ada, grace] = [DEMO.emails.ada, DEMO.emails.grace];
  const before = await usage();
  const alreadyActive = (
    await t.runtime.sequelize.query("SELECT DISTINCT user_key FROM ai_usage_days WHERE organization_id = :org AND day = :day AND tool = 'claude_code' AND user_key IN (:users)", {
      replacements: { org: DEMO.orgs.acme, day: DAY, users: [DEMO.users.ada, DEMO.users.grace] },
      type: QueryTypes.SELECT,
    })
  ).length;

  // OTLP first: ada's day. Then Anthropic reports grace (15 sessions, 342 lines, $2.28) and ada (5 sessions,
  // 1543 lines, $10.25).
  await sendOtlp(ada, { sessions: 1, linesAdded: 10, cost: 0.5 });
  reported = { page1: grace, page2: ada };
  await pull();
  expect(await counted(app.id)).toEqual({ [grace]: 1, [ada]: 0 });
  let now = await usage();
  expect(claudeCode(now).sessions - claudeCode(before).sessions).toBe(1 + 15);
  expect(now.lines.added - before.lines.added).toBe(10 + 342);
  expect(now.cost_usd - before.cost_usd).toBeCloseTo(0.5 + 2.28, 4);

  // The vendor first: grace's OTLP arrives after the pull counted her day; hers replaces Anthropic's.
  await sendOtlp(grace, { sessions: 2, linesAdded: 7, cost: 0.25 });
  expect(await counted(app.id)).toEqual({ [grace]: 0, [ada]: 0 });
  now = await usage();
  expect(claudeCode(now).sessions - claudeCode(before).sessions).toBe(1 + 2);
  expect(now.lines.added - before.lines.added).toBe(10 + 7);
  expect(now.cost_usd - before.cost_usd).toBeCloseTo(0.5 + 0.25, 4);
  // Both were active with Claude Code that day, once each, whoever said so.
  expect(claudeCode(now).active_users - claudeCode(before).active_users).toBe(2 - alreadyActive);

  // The day pulled again, now with an account no member has: OTLP still stands for both members, and the stranger
  // counts for the organization only.
  reported = { page1: 'contractor@elsewhere.test', page2: ada };
  await pull();
  expect(await counted(app.id)).toEqual({ 'contractor@elsewhere.test': 1, [ada]: 0 });
  const again = await usage();
  expect(again.sessions).toBe(now.sessions);
  expect(again.unattributed.sessions - now.unattributed.sessions).toBe(15);
  expect(again.active_users).toBe(now.active_users);
  expect(claudeCode(again).lines.added - claudeCode(now).lines.added).toBe(0);
});
