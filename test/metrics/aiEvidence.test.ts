import { Commit } from '../../db/models';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { defaultHttp } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { VendorPulls } from '../../src/services/aiVendors/vendorPulls';
import { providerCatalog } from '../../src/integrations/catalog';
import cursorUsage from '../support/peers/cursor/daily-usage-data.json';
import { ScriptedPeer } from '../support/peers/scriptedPeer';
import { sendPastPoints } from '../support/peers/otlpJson';
import { deliverReviewHistory, Step } from '../support/data/reviewHistory';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * A commit is AI-assisted on evidence only (docs/metrics.md#ai-impact), worked by hand. Every commit is pushed first
 * (GitHub's webhooks); the usage arrives after, and marks the commits of its day as it is stored:
 * - e1 (ada, March 2): ada only talked to Claude Code that day (a session and a prompt, no line): not AI-assisted;
 * - e2 (ada, March 3): Claude Code's co-author trailer and footer: `trailer`;
 * - e3 (grace, March 4): Cursor's Admin API reports lines she accepted that day (its documented row): `vendor_lines`;
 * - e4 (margaret, March 5): her Claude Code telemetry reports 25 lines it added that day: `telemetry`, and pull
 *   request #1, whose head it is, becomes AI-assisted with it.
 */
const HISTORY: Step[] = [
  { do: 'push', key: 'e1', by: 'ada', at: '2026-03-02T10:00:00Z', message: 'Explain the cache in its comment' },
  { do: 'push', key: 'e2', by: 'ada', at: '2026-03-03T10:00:00Z', message: 'Add a cache\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  { do: 'push', key: 'e3', by: 'grace', at: '2026-03-04T10:00:00Z', message: 'Refactor the reader' },
  { do: 'push', key: 'e4', by: 'margaret', at: '2026-03-05T08:00:00Z', message: 'Tidy up' },
  { do: 'open', pr: 1, by: 'margaret', at: '2026-03-05T09:00:00Z', head: 'e4' },
  { do: 'merge', pr: 1, by: 'margaret', at: '2026-03-05T13:00:00Z' },
];

let t: TestApp;
let cursor: ScriptedPeer;
/** The documented row of Cursor's `POST /teams/daily-usage-data`, as grace's March 4; `lines` false: a day she only chatted. */
let cursorDay = { lines: true };

beforeAll(async () => {
  t = await startTestApp({ COUNT_CACHE_TTL_MS: '0', WEBHOOK_ALLOW_PRIVATE: '1', INGEST_RATE_LIMIT_PER_MINUTE: '100000', INGEST_RATE_LIMIT_PER_HOUR: '100000' });
  cursor = new ScriptedPeer(() => {
    const [documented] = cursorUsage.data;
    const day = Date.parse('2026-03-04T00:00:00Z');
    const chatOnly = { totalLinesAdded: 0, totalLinesDeleted: 0, acceptedLinesAdded: 0, acceptedLinesDeleted: 0, totalApplies: 0, totalAccepts: 0, totalRejects: 0, totalTabsShown: 0, totalTabsAccepted: 0 };
    const row = { ...documented, ...(cursorDay.lines ? {} : chatOnly), email: DEMO.emails.grace, date: day, day: '2026-03-04' };
    return { status: 200, body: { data: [row], period: { startDate: day, endDate: day + 86_400_000 } } };
  });
  await cursor.start();
});
afterAll(async () => {
  await cursor.stop();
  await t.close();
});

const WEEK = { from: '2026-03-02', to: '2026-03-08' };

async function pullCursor(organizationId: string, app?: string): Promise<string> {
  const id = app ?? (await t.runtime.writers.apps.create(organizationId, 'cursor', { name: 'Cursor', vendor: { credential: 'key_cursor_0123456789', baseUrl: `${cursor.base}/cursor` } })).app.id;
  const pulls = new VendorPulls(ChangeRunner.for(t.runtime.sequelize), providerCatalog(), new SecretBox(() => secretsKeyFor(t.config)), { ...defaultHttp(outboundPolicy(t.config)), sleep: async () => undefined });
  expect((await pulls.pull(id, ['2026-03-04'])).stored).toEqual([{ day: '2026-03-04', accounts: 1, matched: 1 }]);
  return id;
}

const evidence = async (organizationId: string) =>
  (await Commit.findAll({ where: { organization_id: organizationId }, attributes: ['ai_evidence'], order: [['created_at', 'ASC']] })).map((c) => c.ai_evidence);

test('a chat is no evidence; a trailer, Cursor’s accepted lines and Claude Code’s lines each are, said which, the commits marked as the usage arrives after them', async () => {
  const { organizationId } = await deliverReviewHistory(t, 'github', HISTORY);
  const token = await t.token();
  const aiImpact = async () => (await t.get(`/v1/metrics/ai-impact?${new URLSearchParams({ organization_id: organizationId, ...WEEK })}`, token)).body.data;
  expect(await evidence(organizationId)).toEqual([null, 'trailer', null, null]);

  // Claude Code's documented metrics (code.claude.com/docs/en/monitoring-usage): ada's session and active time, no line.
  await sendPastPoints(t, organizationId, [
    { service: 'claude-code', name: 'claude_code.session.count', email: DEMO.emails.ada, at: '2026-03-02T15:00:00Z', value: 1 },
    { service: 'claude-code', name: 'claude_code.active_time.total', email: DEMO.emails.ada, at: '2026-03-02T15:00:00Z', value: 600, attributes: { type: 'user' } },
  ]);
  const app = await pullCursor(organizationId);
  await sendPastPoints(t, organizationId, [{ service: 'claude-code', name: 'claude_code.lines_of_code.count', email: DEMO.emails.margaret, at: '2026-03-05T11:00:00Z', value: 25, attributes: { type: 'added' } }]);

  expect(await evidence(organizationId)).toEqual([null, 'trailer', 'vendor_lines', 'telemetry']);
  const data = await aiImpact();
  expect(data.ai_assisted_commits).toEqual({ count: 3, commits: 4, share: 0.75, by_evidence: { trailer: 1, telemetry: 1, vendor_lines: 1 } });
  // #1 (4 hours) by its head e4, in the AI side of the split.
  expect(data.ai_assisted_prs).toEqual({ count: 1, merged: 1, share: 1 });
  expect(data.time_to_merge_hours).toEqual({ ai: { median: 4, p75: 4, n: 1 }, other: { median: null, p75: null, n: 0 } });

  // Cursor's day pulled again, grace having only chatted: e3 loses its evidence, and the counts with it.
  cursorDay = { lines: false };
  try {
    await pullCursor(organizationId, app);
  } finally {
    cursorDay = { lines: true };
  }
  expect(await evidence(organizationId)).toEqual([null, 'trailer', null, 'telemetry']);
  expect((await aiImpact()).ai_assisted_commits).toEqual({ count: 2, commits: 4, share: 0.5, by_evidence: { trailer: 1, telemetry: 1, vendor_lines: 0 } });
});

test('the strongest evidence is kept: a day with Cursor’s lines and then Claude Code’s is telemetry’s, a marked commit stays trailer', async () => {
  const { organizationId } = await deliverReviewHistory(t, 'github', [
    { do: 'push', key: 'f1', by: 'grace', at: '2026-03-04T09:00:00Z', message: 'Read faster' },
    { do: 'push', key: 'f2', by: 'grace', at: '2026-03-04T10:00:00Z', message: 'Read faster still\n\nCo-Authored-By: Claude <noreply@anthropic.com>' },
  ]);
  await pullCursor(organizationId);
  expect(await evidence(organizationId)).toEqual(['vendor_lines', 'trailer']);
  await sendPastPoints(t, organizationId, [{ service: 'claude-code', name: 'claude_code.commit.count', email: DEMO.emails.grace, at: '2026-03-04T16:00:00Z', value: 1 }]);
  expect(await evidence(organizationId)).toEqual(['telemetry', 'trailer']);
  const data = (await t.get(`/v1/metrics/ai-impact?${new URLSearchParams({ organization_id: organizationId, ...WEEK })}`, await t.token())).body.data;
  expect(data.ai_assisted_commits).toEqual({ count: 2, commits: 2, share: 1, by_evidence: { trailer: 1, telemetry: 1, vendor_lines: 0 } });
});
