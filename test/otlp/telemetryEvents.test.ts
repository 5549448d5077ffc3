import { startTestApp, TestApp, DEMO } from '../support/harness';
import { otelLogger } from '../support/peers/otel';
import { expectError } from '../support/assertions';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';

/**
 * `GET /v1/organizations/{id}/telemetry/events` (docs/telemetry.md): custom workflow events and the AI tools' events,
 * as the real OpenTelemetry exporter sends them, listed for the organization's admins with their filters.
 */
let t: TestApp;
let ada: string;
const E = DEMO.emails;
const since = new Date(Date.now() - 60_000).toISOString();

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_HOUR: '100000' });
  ada = await t.token({ user: E.ada });
  const baseUrl = await t.listen();
  const token = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
  const bot = otelLogger({ baseUrl, token, protocol: 'http/json', gzip: true, service: { name: 'release-bot', version: '1.4.0' } });
  // A millisecond apart at least: two events of one millisecond are in the order of their ids, which are random.
  const at = Date.now() - 1_000;
  bot.emit({ body: 'deploy.approved', timestamp: at, attributes: { 'user.email': E.grace, environment: 'production', change: 'CHG-1042' } });
  bot.emit({ eventName: 'deploy.rolled_back', timestamp: at + 1, attributes: { 'user.email': 'nobody@elsewhere.test', environment: 'staging' } });
  bot.emit({ body: { not: 'a name' }, attributes: { environment: 'nowhere' } });
  await bot.flush();
  await bot.shutdown();
  const claude = otelLogger({ baseUrl, token, protocol: 'http/protobuf' });
  claude.event('claude_code.api_request', { 'user.email': E.linus, 'session.id': 's-1', 'event.sequence': 7, model: 'claude-sonnet-4-5', cost_usd: 0.02 });
  await claude.flush();
  await claude.shutdown();
});
afterAll(async () => t.close());

const list = async (query: string) => {
  const res = await t.get(`/v1/organizations/${DEMO.orgs.acme}/telemetry/events?created_at[gte]=${since}&${query}`, ada);
  expect(res.status).toBe(200);
  return res.body;
};

test('an admin lists them, newest first, matched to members, attributes as sent; a record without a name was refused', async () => {
  const body = await list('order=asc');
  expect(body.data.map((e: { name: string }) => e.name)).toEqual(['deploy.approved', 'deploy.rolled_back', 'claude_code.api_request']);
  const [approved, rolledBack, apiRequest] = body.data;
  expect(approved).toMatchObject({
    organization_id: DEMO.orgs.acme,
    source: 'release-bot',
    user_id: DEMO.users.grace,
    session_id: null,
    attributes: { 'user.email': E.grace, environment: 'production', change: 'CHG-1042' },
  });
  expect(rolledBack).toMatchObject({ source: 'release-bot', user_id: null });
  expect(apiRequest).toMatchObject({ source: 'claude_code', user_id: DEMO.users.linus, session_id: 's-1', attributes: expect.objectContaining({ model: 'claude-sonnet-4-5', 'event.sequence': 7 }) });
  expect(body.meta.total).toBe(3);
});

test('filters: name, source and user_id', async () => {
  expect((await list('name=deploy.approved')).data.map((e: { id: string }) => e.id)).toHaveLength(1);
  expect((await list('source=release-bot')).meta.total).toBe(2);
  expect((await list(`user_id=${DEMO.users.linus}`)).data.map((e: { name: string }) => e.name)).toEqual(['claude_code.api_request']);
  expect((await list('source=nobody')).data).toEqual([]);
  expectError(await t.get(`/v1/organizations/${DEMO.orgs.acme}/telemetry/events?name=`, ada), 400, 'VALIDATION_ERROR', /'name' must not be empty/);
  expectError(await t.get(`/v1/organizations/${DEMO.orgs.acme}/telemetry/events?source=${'x'.repeat(201)}`, ada), 400, 'VALIDATION_ERROR', 'source must be at most 200 characters');
});

test('personal data: managers, collaborators, team-scoped tokens and other organizations are refused', async () => {
  const path = `/v1/organizations/${DEMO.orgs.acme}/telemetry/events`;
  const forbidden = 'You do not have permission to access this organization';
  expectError(await t.get(path, await t.token({ user: E.grace })), 403, 'FORBIDDEN', forbidden);
  expectError(await t.get(path, await t.token({ user: E.linus })), 403, 'FORBIDDEN', forbidden);
  expectError(await t.get(path, await t.token({ user: E.ada, teamIds: [DEMO.teams.mobile] })), 403, 'FORBIDDEN', forbidden);
  expectError(await t.get(path, await t.token({ user: E.margaret })), 403, 'FORBIDDEN', forbidden);
  expectError(await t.get('/v1/organizations/org_nope/telemetry/events', ada), 404, 'NOT_FOUND', 'Organization not found');
});
