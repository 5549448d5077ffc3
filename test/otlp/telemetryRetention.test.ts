import { QueryTypes } from 'sequelize';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { otelLogger, otelMeter } from '../support/peers/otel';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import { ChangeSql } from '../../src/persistence/changes/changeSql';
import { timestampSql } from '../../src/persistence/query/selectSql';

/** docs/telemetry.md's retention: raw bodies OTLP_RAW_RETENTION_DAYS, points and events TELEMETRY_RETENTION_DAYS, rollups for good. */
let t: TestApp;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestApp({ OTLP_RAW_RETENTION_DAYS: '7', TELEMETRY_RETENTION_DAYS: '400' });
  const baseUrl = await t.listen();
  const token = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
  const meter = otelMeter({ baseUrl, token, protocol: 'http/protobuf', temporality: 'cumulative' });
  meter.add('claude_code.session.count', 2, { 'user.email': DEMO.emails.ada, 'session.id': 'r-1' });
  await meter.flush();
  await meter.shutdown();
  const logger = otelLogger({ baseUrl, token, protocol: 'http/json' });
  logger.event('claude_code.user_prompt', { 'user.email': DEMO.emails.ada, 'session.id': 'r-1', 'event.sequence': 1 });
  await logger.flush();
  await logger.shutdown();
});
afterAll(async () => t.close());

const now = Date.now();
async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['telemetry_batches', 'telemetry_points', 'telemetry_events', 'telemetry_series', 'ai_usage_days']) {
    const where = table === 'ai_usage_days' ? ` WHERE day >= '${new Date(now).toISOString().slice(0, 10)}'` : table === 'telemetry_events' ? " WHERE source = 'claude_code'" : table === 'telemetry_points' ? " WHERE tool = 'claude_code' AND end_at > '2026-11-01'" : '';
    const [row] = await t.runtime.sequelize.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}${where}`, { type: QueryTypes.SELECT });
    out[table] = Number(row.n);
  }
  return out;
}

test('bodies go after 7 days, points, events and series after 400; the rollups stay', async () => {
  const sent = await counts();
  expect(sent).toMatchObject({ telemetry_batches: 3, telemetry_events: 1, telemetry_series: 1, ai_usage_days: 1 });
  expect(sent.telemetry_points).toBeGreaterThanOrEqual(1);

  expect(await t.runtime.retention.prune(new Date(now + 6 * DAY))).toMatchObject({ telemetry_batches: 0, telemetry_points: 0 });
  expect(await counts()).toEqual(sent);

  expect((await t.runtime.retention.prune(new Date(now + 8 * DAY))).telemetry_batches).toBe(3);
  expect(await counts()).toEqual({ ...sent, telemetry_batches: 0 });

  const purged = await t.runtime.retention.prune(new Date(now + 401 * DAY));
  expect(purged.telemetry_events).toBeGreaterThanOrEqual(1);
  expect(await counts()).toEqual({ telemetry_batches: 0, telemetry_points: 0, telemetry_events: 0, telemetry_series: 0, ai_usage_days: 1 });
});

test('the writer spells a time as the query builder does on this database, so its rows compare with every reader’s', async () => {
  const dates = [new Date(1), new Date('1999-12-31T23:59:59.999Z'), new Date('2026-11-25T06:05:00.120Z'), new Date('2554-07-21T23:34:33.709Z')];
  const spelled = await t.runtime.sequelize.transaction(async (transaction) => dates.map((d) => new ChangeSql(transaction).time(d)));
  expect(spelled).toEqual(dates.map((d) => timestampSql(t.runtime.sequelize, d)));
});
