import { QueryTypes } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { otelLogger, otelMeter, SenderOptions } from '../support/peers/otel';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';

/**
 * Claude Code's telemetry sent by the OpenTelemetry JS SDK's own exporters (docs/telemetry.md), in every encoding the
 * exporters offer, becomes exact daily AI usage rollups; retries and redeliveries change nothing.
 */
let t: TestApp;
let baseUrl: string;
let acmeToken: string;

const ADA = { 'user.email': DEMO.emails.ada, 'user.account_uuid': 'acc-ada', 'organization.id': 'anthropic-org-1', 'session.id': 'sess-1', 'terminal.type': 'vscode' };

beforeAll(async () => {
  t = await startTestApp({ OTLP_RATE_LIMIT_PER_MINUTE: '100000' });
  baseUrl = await t.listen();
  acmeToken = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
});
afterAll(async () => t.close());

type Sums = Record<string, number>;

/** The organization's rollups summed per figure (today's UTC day and later: the demo data ends before). */
async function usage(organizationId = DEMO.orgs.acme, userKey?: string): Promise<Sums> {
  const columns = ['sessions', 'prompts', 'api_requests', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens', 'cost_usd', 'lines_added', 'lines_removed', 'commits', 'pull_requests', 'edits_accepted', 'edits_rejected', 'active_seconds_user', 'active_seconds_cli'];
  const [row] = await t.runtime.sequelize.query<Sums>(
    `SELECT ${columns.map((c) => `COALESCE(SUM(${c}), 0) AS ${c}`).join(', ')} FROM ai_usage_days WHERE organization_id = :organizationId AND day >= :today${userKey === undefined ? '' : ' AND user_key = :userKey'}`,
    { replacements: { organizationId, today: new Date().toISOString().slice(0, 10), userKey }, type: QueryTypes.SELECT },
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

async function count(table: string): Promise<number> {
  const [row] = await t.runtime.sequelize.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`, { type: QueryTypes.SELECT });
  return Number(row.n);
}

/** What a Claude Code session reports in one export interval. */
function recordSession(meter: ReturnType<typeof otelMeter>, attributes: Record<string, string>, scale = 1) {
  meter.add('claude_code.session.count', 1 * scale, attributes);
  meter.add('claude_code.token.usage', 1200 * scale, { ...attributes, type: 'input', model: 'claude-sonnet-4-5' });
  meter.add('claude_code.token.usage', 300 * scale, { ...attributes, type: 'output', model: 'claude-sonnet-4-5' });
  meter.add('claude_code.token.usage', 5000 * scale, { ...attributes, type: 'cacheRead', model: 'claude-sonnet-4-5' });
  meter.add('claude_code.token.usage', 700 * scale, { ...attributes, type: 'cacheCreation', model: 'claude-sonnet-4-5' });
  meter.add('claude_code.cost.usage', 0.25 * scale, { ...attributes, model: 'claude-sonnet-4-5' });
  meter.add('claude_code.lines_of_code.count', 40 * scale, { ...attributes, type: 'added' });
  meter.add('claude_code.lines_of_code.count', 8 * scale, { ...attributes, type: 'removed' });
  meter.add('claude_code.commit.count', 1 * scale, attributes);
  meter.add('claude_code.pull_request.count', 1 * scale, attributes);
  meter.add('claude_code.code_edit_tool.decision', 3 * scale, { ...attributes, tool_name: 'Edit', decision: 'accept', source: 'config', language: 'TypeScript' });
  meter.add('claude_code.code_edit_tool.decision', 1 * scale, { ...attributes, tool_name: 'Write', decision: 'reject', source: 'user_reject', language: 'TypeScript' });
  meter.add('claude_code.active_time.total', 120 * scale, { ...attributes, type: 'user' });
  meter.add('claude_code.active_time.total', 300 * scale, { ...attributes, type: 'cli' });
}

const SESSION_SUMS = {
  sessions: 1,
  input_tokens: 1200,
  output_tokens: 300,
  cache_read_tokens: 5000,
  cache_creation_tokens: 700,
  cost_usd: 0.25,
  lines_added: 40,
  lines_removed: 8,
  commits: 1,
  pull_requests: 1,
  edits_accepted: 3,
  edits_rejected: 1,
  active_seconds_user: 120,
  active_seconds_cli: 300,
};
const times = (sums: Record<string, number>, n: number) => Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v * n]));
const plus = (a: Sums, b: Record<string, number>) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v + (b[k] ?? 0)]));

const ENCODINGS: [SenderOptions['protocol'], boolean][] = [
  ['http/protobuf', true],
  ['http/protobuf', false],
  ['http/json', true],
  ['http/json', false],
];

describe('metrics from the real exporters', () => {
  test.each(ENCODINGS)('%s (gzip %s), delta: the rollups gain exactly what was sent, attributed to the member', async (protocol, gzip) => {
    const before = await usage();
    const meter = otelMeter({ baseUrl, token: acmeToken, protocol, gzip });
    recordSession(meter, { ...ADA, 'session.id': `delta-${protocol}-${gzip}` });
    await meter.flush();
    recordSession(meter, { ...ADA, 'session.id': `delta-${protocol}-${gzip}` }, 2);
    await meter.flush();
    await meter.shutdown();
    expect(await usage()).toEqual(plus(before, times(SESSION_SUMS, 3)));
  });

  test.each(ENCODINGS)('%s (gzip %s), cumulative: each export adds only what is new, and shutdown’s repeat adds nothing', async (protocol, gzip) => {
    const before = await usage();
    const meter = otelMeter({ baseUrl, token: acmeToken, protocol, gzip, temporality: 'cumulative' });
    const attributes = { ...ADA, 'session.id': `cumulative-${protocol}-${gzip}` };
    recordSession(meter, attributes);
    await meter.flush();
    await meter.flush();
    recordSession(meter, attributes, 4);
    await meter.flush();
    await meter.shutdown();
    expect(await usage()).toEqual(plus(before, times(SESSION_SUMS, 5)));
  });

  test('a sender restarted (a new start time) starts its series afresh', async () => {
    const before = await usage();
    const attributes = { ...ADA, 'session.id': 'restarted' };
    const first = otelMeter({ baseUrl, token: acmeToken, protocol: 'http/protobuf', temporality: 'cumulative' });
    recordSession(first, attributes, 2);
    await first.flush();
    await first.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = otelMeter({ baseUrl, token: acmeToken, protocol: 'http/protobuf', temporality: 'cumulative' });
    recordSession(second, attributes, 1);
    await second.flush();
    await second.shutdown();
    expect(await usage()).toEqual(plus(before, times(SESSION_SUMS, 3)));
  });
});

describe('events from the real exporters', () => {
  test.each(ENCODINGS)('%s (gzip %s): prompts and API requests count once each, stored as events without prompt text', async (protocol, gzip) => {
    const before = await usage();
    const eventsBefore = await count('telemetry_events');
    const logger = otelLogger({ baseUrl, token: acmeToken, protocol, gzip });
    const session = `events-${protocol}-${gzip}`;
    logger.event('claude_code.user_prompt', { ...ADA, 'session.id': session, 'event.sequence': 1, prompt_length: 42, prompt: 'SECRET PROMPT TEXT' });
    logger.event('claude_code.api_request', { ...ADA, 'session.id': session, 'event.sequence': 2, model: 'claude-sonnet-4-5', cost_usd: 0.01, input_tokens: 10, output_tokens: 5 });
    logger.event('claude_code.tool_result', { ...ADA, 'session.id': session, 'event.sequence': 3, tool_name: 'Bash', success: 'true', tool_parameters: '{"command":"cat ~/.ssh/id_rsa"}' });
    await logger.flush();
    await logger.shutdown();
    expect(await usage()).toEqual(plus(before, { prompts: 1, api_requests: 1 }));
    expect(await count('telemetry_events')).toBe(eventsBefore + 3);
    const stored = await t.runtime.sequelize.query<{ attributes: string }>('SELECT attributes FROM telemetry_events', { type: QueryTypes.SELECT });
    for (const row of stored) {
      expect(row.attributes).not.toContain('SECRET PROMPT TEXT');
      expect(row.attributes).not.toContain('id_rsa');
    }
  });
});

describe('many senders at once', () => {
  test('24 laptops exporting at the same moment: every batch is stored, none deadlocks into an error', async () => {
    const before = await usage();
    const meters = Array.from({ length: 24 }, (_, i) => {
      const meter = otelMeter({ baseUrl, token: acmeToken, protocol: 'http/protobuf', gzip: i % 2 === 0, temporality: i % 3 === 0 ? 'cumulative' : 'delta' });
      recordSession(meter, { ...ADA, 'session.id': `burst-${i}` });
      return meter;
    });
    await Promise.all(meters.map((m) => m.flush()));
    await Promise.all(meters.map((m) => m.shutdown()));
    expect(await usage()).toEqual(plus(before, times(SESSION_SUMS, 24)));
  });
});
