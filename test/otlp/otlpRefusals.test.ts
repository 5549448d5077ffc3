import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Express } from 'express';
import { QueryTypes } from 'sequelize';
import protobuf from 'protobufjs';
import request from 'supertest';
import { initModels } from '../../db/models';
import { createLogger } from '../../src/logger';
import { createRuntime, Runtime } from '../../src/runtime';
import { createOtlpToken } from '../../src/auth/tokens/otlpTokens';
import { createScimToken } from '../../src/auth/tokens/scimTokens';
import { revokeToken } from '../../src/auth/tokens/everyKind';
import { generateToken, OTLP_TOKEN_PREFIX } from '../../src/auth/tokenFormat';
import { requestType, responseType, Signal, statusType } from '../../src/otlp/messages';
import { readRequest } from '../../src/otlp/requests';
import { AI_MEASURES } from '../../src/services/telemetry/aiTools';
import { startTestApp, TestApp, DEMO, SERVICES } from '../support/harness';
import { otelLogger, otelMeter } from '../support/peers/otel';

/**
 * Every refusal OTLP/HTTP specifies (docs/telemetry.md), on the bodies the OpenTelemetry SDK's own exporters send: the
 * status an exporter acts on, a google.rpc.Status in the request's encoding saying what to fix, and nothing
 * stored. Then what is accepted only in part (histograms, spans, never-stored attributes), retries, and two
 * instances turning one cumulative series into the same deltas.
 */

const BODY_LIMIT_KB = 64;
const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ OTLP_BODY_LIMIT_KB: String(BODY_LIMIT_KB), OTLP_RATE_LIMIT_PER_MINUTE: '100000' });
  token = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
});
afterAll(async () => t.close());

// ---- What an exporter sends ------------------------------------------------------------------------------------

/**
 * The bodies a real exporter sends while `run` uses it, recorded by a stand-in collector that answers each with an
 * empty (full) success; uncompressed, so a test can replay, cut or compress them itself.
 */
async function captured(run: (baseUrl: string) => Promise<void>): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      const json = req.headers['content-type'] === JSON_TYPE;
      res.writeHead(200, { 'Content-Type': json ? JSON_TYPE : PROTOBUF }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return bodies;
}

const ADA = { 'user.email': DEMO.emails.ada, 'user.account_uuid': 'acc-ada', 'organization.id': 'anthropic-org-1', 'terminal.type': 'vscode' };

/** One delta export of a Claude Code session's counters, as the protobuf (or JSON) exporter encodes it. */
async function counterExport(session: string, protocol: 'http/protobuf' | 'http/json' = 'http/protobuf'): Promise<Buffer> {
  const [body] = await captured(async (baseUrl) => {
    const meter = otelMeter({ baseUrl, token: 'unused', protocol });
    meter.add('claude_code.session.count', 1, { ...ADA, 'session.id': session });
    meter.add('claude_code.token.usage', 1200, { ...ADA, 'session.id': session, type: 'input', model: 'claude-sonnet-4-5' });
    await meter.flush();
  });
  return body;
}

// ---- Sending, and reading the answer ---------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  body: Buffer;
}

interface Sending {
  body?: Buffer | string;
  contentType?: string;
  encoding?: string;
  /** A bearer token; null sends no Authorization header. */
  token?: string | null;
}

async function send(app: Express, method: 'post' | 'get' | 'put', path: string, s: Sending = {}): Promise<Answer> {
  let req = request(app)[method](path);
  if (s.contentType) req = req.set('Content-Type', s.contentType);
  if (s.encoding) req = req.set('Content-Encoding', s.encoding);
  const bearer = s.token === undefined ? token : s.token;
  if (bearer !== null) req = req.set('Authorization', `Bearer ${bearer}`);
  // The body's bytes as given (superagent would serialize a Buffer as JSON under a JSON type), and the answer's
  // bytes as they came, whatever their type: protobuf is decoded here, not by supertest.
  req = req.serialize((body) => body).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
  const res = s.body === undefined ? await req : await req.send(s.body);
  return { status: res.status, headers: res.headers, contentType: String(res.headers['content-type'] ?? ''), body: res.body as Buffer };
}

const post = (path: string, s: Sending, app: Express = t.runtime.app) => send(app, 'post', path, s);

/** A google.rpc.Status answer as {code, message}, read in the encoding it declares. */
function statusOf(answer: Answer): { code: number; message: string } {
  if (answer.contentType.startsWith(PROTOBUF)) {
    return statusType.toObject(statusType.decode(answer.body), { longs: Number, defaults: true }) as { code: number; message: string };
  }
  expect(answer.contentType).toMatch(/^application\/json/);
  return JSON.parse(answer.body.toString('utf8'));
}

/** A success answer (Export*ServiceResponse) as OTLP/JSON: 64-bit counts as decimal strings. */
function responseOf(signal: Signal, answer: Answer): { partialSuccess?: Record<string, string | number | undefined> } {
  if (answer.contentType.startsWith(PROTOBUF)) {
    const type = responseType(signal);
    return type.toObject(type.decode(answer.body), { longs: String }) as { partialSuccess?: Record<string, string> };
  }
  return JSON.parse(answer.body.toString('utf8'));
}

const GRPC = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, UNAUTHENTICATED: 16 };

/** A refusal exactly: its status, a Status body in `contentType` saying what to fix, nothing else. */
function expectRefusal(answer: Answer, status: number, code: number, contentType: string, message: RegExp): string {
  expect({ status: answer.status, contentType: answer.contentType }).toEqual({ status, contentType: expect.stringMatching(new RegExp(`^${contentType}`)) });
  const body = statusOf(answer);
  expect(body).toEqual({ code, message: expect.stringMatching(message), ...(answer.contentType.startsWith(PROTOBUF) ? { details: [] } : {}) });
  // Only 429 and 503 ask for a retry; an exporter drops what it was told is bad.
  if (status !== 429 && status !== 503) expect(answer.headers['retry-after']).toBeUndefined();
  return body.message;
}

// ---- What is stored --------------------------------------------------------------------------------------------

const TABLES = ['telemetry_batches', 'telemetry_points', 'telemetry_events', 'telemetry_series', 'telemetry_accounts', 'ai_usage_days', 'ai_usage_org_days'];

async function select<T extends object>(sql: string, replacements: Record<string, unknown> = {}, runtime: Runtime = t.runtime): Promise<T[]> {
  return runtime.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });
}

/** Rows per telemetry table, and the sums rows could change without being added: rollups and series state. */
async function snapshot(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) out[table] = Number((await select<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  Object.assign(out, await usage(false));
  const [series] = await select<{ v: number }>('SELECT COALESCE(SUM(last_value), 0) AS v FROM telemetry_series');
  out.series_last_values = Number(series.v);
  return out;
}

/** The rollups summed per measure: Acme's from today (the demo data ends before), or every row of every day. */
async function usage(todayOnly = true): Promise<Record<string, number>> {
  const [row] = await select<Record<string, number>>(
    `SELECT ${AI_MEASURES.map((m) => `COALESCE(SUM(${m}), 0) AS ${m}`).join(', ')} FROM ai_usage_days${todayOnly ? ' WHERE organization_id = :org AND day >= :today' : ''}`,
    { org: DEMO.orgs.acme, today: new Date().toISOString().slice(0, 10) },
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

/** Sends, and checks that the refusal stored nothing at all. */
async function refused(sending: () => Promise<Answer>): Promise<Answer> {
  const before = await snapshot();
  const answer = await sending();
  expect(await snapshot()).toEqual(before);
  return answer;
}

const readable = (value: unknown): string => {
  if (!Buffer.isBuffer(value)) return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  return (value[0] === 0x1f && value[1] === 0x8b ? gunzipSync(value) : value).toString('utf8');
};

/** Every table of the database whose rows hold `text` anywhere, gzip-compressed blobs read inflated. */
async function tablesHolding(text: string): Promise<string[]> {
  const tables = (await t.runtime.sequelize.getQueryInterface().showAllTables()) as (string | { tableName: string })[];
  const holding: string[] = [];
  for (const table of tables.map((x) => (typeof x === 'string' ? x : x.tableName))) {
    const rows = await select<Record<string, unknown>>(`SELECT * FROM ${table}`);
    if (rows.some((row) => Object.values(row).some((v) => readable(v).includes(text)))) holding.push(table);
  }
  return holding;
}

// ---- Unreadable bodies -------------------------------------------------------------------------------------------

describe('a body that cannot be read: 400, never retried', () => {
  test('undecodable protobuf (a real export cut short): a protobuf Status naming the message', async () => {
    const real = await counterExport('undecodable');
    const answer = await refused(() => post('/otlp/v1/metrics', { body: real.subarray(0, real.length - 5), contentType: PROTOBUF }));
    expectRefusal(answer, 400, GRPC.INVALID_ARGUMENT, PROTOBUF, /^The body is not a protobuf ExportMetricsServiceRequest/);
  });

  test('malformed JSON: a JSON Status', async () => {
    const answer = await refused(() => post('/otlp/v1/logs', { body: '{"resourceLogs": [', contentType: JSON_TYPE }));
    expectRefusal(answer, 400, GRPC.INVALID_ARGUMENT, JSON_TYPE, /^The body is not JSON; send an OTLP\/JSON ExportLogsServiceRequest/);
  });

  test('JSON of the wrong shape: the field at fault is named', async () => {
    const answer = await refused(() => post('/otlp/v1/metrics', { body: JSON.stringify({ resourceMetrics: { scopeMetrics: [] } }), contentType: JSON_TYPE }));
    expectRefusal(answer, 400, GRPC.INVALID_ARGUMENT, JSON_TYPE, /^Not a valid ExportMetricsServiceRequest: resourceMetrics /);
  });

  test("a protobuf attribute nested 50,000 arrays deep (more than this app's body limit, so read directly): protobufjs's depth limit refuses it as invalid", () => {
    // Written field by field (any encoder would recurse as deep): ExportLogsServiceRequest > ResourceLogs >
    // ScopeLogs > LogRecord (time 1, attribute 6) > KeyValue (key 1, value 2) > AnyValue (array 5) > ArrayValue (values 1) > …
    const field = (number: number, bytes: Buffer) => Buffer.concat([Buffer.from(protobuf.Writer.create().uint32((number << 3) | 2).uint32(bytes.length).finish()), bytes]);
    let value = Buffer.alloc(0);
    for (let depth = 0; depth < 50_000; depth++) value = field(5, field(1, value));
    const time = Buffer.from(protobuf.Writer.create().uint32((1 << 3) | 1).fixed64(Date.now() * 1e6).finish());
    const record = Buffer.concat([time, field(6, Buffer.concat([field(1, Buffer.from('deep')), field(2, value)]))]);
    const body = field(1, field(2, field(2, record)));
    expect(() => readRequest('logs', PROTOBUF, body)).toThrow(
      expect.objectContaining({ kind: 'invalid', message: 'The body is not a protobuf ExportLogsServiceRequest (max depth exceeded)' }),
    );
  });

  test('a body that is not gzip although Content-Encoding says so', async () => {
    const real = await counterExport('not-gzip');
    const answer = await refused(() => post('/otlp/v1/metrics', { body: real, contentType: PROTOBUF, encoding: 'gzip' }));
    expectRefusal(answer, 400, GRPC.INVALID_ARGUMENT, PROTOBUF, /not valid gzip; send it gzip-compressed as Content-Encoding says, or without that header/);
  });
});

describe('an encoding the service does not take: 415', () => {
  test('text/plain', async () => {
    const answer = await refused(() => post('/otlp/v1/metrics', { body: 'claude_code.session.count 1', contentType: 'text/plain' }));
    expectRefusal(answer, 415, GRPC.INVALID_ARGUMENT, JSON_TYPE, /^Send application\/x-protobuf or application\/json \(got text\/plain\); set OTEL_EXPORTER_OTLP_PROTOCOL/);
  });

  test('Content-Encoding br, answered in the request’s protobuf', async () => {
    const real = await counterExport('brotli');
    const answer = await refused(() => post('/otlp/v1/metrics', { body: real, contentType: PROTOBUF, encoding: 'br' }));
    expectRefusal(answer, 415, GRPC.INVALID_ARGUMENT, PROTOBUF, /^Content-Encoding br is not accepted; send gzip \(OTEL_EXPORTER_OTLP_COMPRESSION=gzip\) or no encoding/);
  });
});

describe('too large: 413, before and after decompression', () => {
  const TOO_LARGE = new RegExp(`^The body is larger than ${BODY_LIMIT_KB * 1024} bytes \\(OTLP_BODY_LIMIT_KB\\).*export smaller batches`);

  test('a gzip bomb (10 MB of zeros in a few KB) stops at the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(BODY_LIMIT_KB * 1024);
    const answer = await refused(() => post('/otlp/v1/metrics', { body: bomb, contentType: PROTOBUF, encoding: 'gzip' }));
    expectRefusal(answer, 413, GRPC.RESOURCE_EXHAUSTED, PROTOBUF, TOO_LARGE);
  });

  test('an uncompressed body over the limit', async () => {
    const answer = await refused(() => post('/otlp/v1/logs', { body: JSON.stringify({ resourceLogs: [], padding: 'x'.repeat(BODY_LIMIT_KB * 1024) }), contentType: JSON_TYPE }));
    expectRefusal(answer, 413, GRPC.RESOURCE_EXHAUSTED, JSON_TYPE, TOO_LARGE);
  });

  test('a declared Content-Length over the limit is refused before the body is sent', async () => {
    const origin = new URL(await t.listen());
    const answer = await refused(
      () =>
        new Promise<Answer>((resolve, reject) => {
          const req = http.request({
            host: origin.hostname,
            port: origin.port,
            method: 'POST',
            path: '/otlp/v1/metrics',
            headers: { 'Content-Type': PROTOBUF, 'Content-Length': String(10 * 1024 * 1024), Authorization: `Bearer ${token}` },
          });
          req.on('response', (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              resolve({ status: res.statusCode!, headers: res.headers, contentType: String(res.headers['content-type']), body: Buffer.concat(chunks) });
              req.destroy();
            });
          });
          req.on('error', reject);
          // A first chunk only: the answer must come without the other 10 MB.
          req.write(Buffer.alloc(1024));
        }),
    );
    expectRefusal(answer, 413, GRPC.RESOURCE_EXHAUSTED, PROTOBUF, TOO_LARGE);
  });
});

describe('credentials: 401, each refusal saying what to send', () => {
  test('no Authorization, an unknown, a revoked, an API and a SCIM token', async () => {
    const revoked = await createOtlpToken({ organizationId: DEMO.orgs.acme });
    await revokeToken(revoked.id);
    const cases: [string | null, RegExp][] = [
      [null, /^Send the organization's OTLP token: OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer otlp_…"/],
      [generateToken(OTLP_TOKEN_PREFIX), /^Invalid OTLP token$/],
      [revoked.token, /^This OTLP token has been revoked$/],
      [await t.token(), /^API tokens are not accepted on \/otlp; use an OTLP token/],
      [(await createScimToken({ organizationId: DEMO.orgs.acme })).token, /^SCIM tokens are not accepted on \/otlp; use an OTLP token/],
    ];
    const body = await counterExport('unauthenticated');
    const messages = new Set<string>();
    for (const [bearer, message] of cases) {
      const answer = await refused(() => post('/otlp/v1/metrics', { body, contentType: PROTOBUF, token: bearer }));
      messages.add(expectRefusal(answer, 401, GRPC.UNAUTHENTICATED, PROTOBUF, message));
      const json = await refused(() => post('/otlp/v1/logs', { body: '{}', contentType: JSON_TYPE, token: bearer }));
      expectRefusal(json, 401, GRPC.UNAUTHENTICATED, JSON_TYPE, message);
    }
    expect(messages.size).toBe(cases.length);
  });
});

describe('over the per-token limit: 429 with Retry-After', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ OTLP_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await limited.close();
    // The models follow the newest connection; give them back to this file's app.
    initModels(t.runtime.sequelize);
  });

  test('the fourth request in a minute is refused in its own encoding; another token is not', async () => {
    const sender = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
    const body = await counterExport('limited');
    for (let i = 0; i < 3; i++) {
      expect((await post('/otlp/v1/metrics', { body, contentType: PROTOBUF, token: sender }, limited.runtime.app)).status).toBe(200);
    }
    const counts = async () => Number((await select<{ n: number }>('SELECT COUNT(*) AS n FROM telemetry_batches', {}, limited.runtime))[0].n);
    const before = await counts();
    const answer = await post('/otlp/v1/metrics', { body: await counterExport('limited-4'), contentType: PROTOBUF, token: sender }, limited.runtime.app);
    expect(await counts()).toBe(before);
    expectRefusal(answer, 429, GRPC.RESOURCE_EXHAUSTED, PROTOBUF, /^Rate limit of 3 requests exceeded; retry after \d+ seconds$/);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const json = await post('/otlp/v1/logs', { body: '{}', contentType: JSON_TYPE, token: sender }, limited.runtime.app);
    expectRefusal(json, 429, GRPC.RESOURCE_EXHAUSTED, JSON_TYPE, /^Rate limit of 3 requests exceeded/);
    expect(Number(json.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const other = (await createOtlpToken({ organizationId: DEMO.orgs.acme })).token;
    expect((await post('/otlp/v1/metrics', { body: await counterExport('limited-other'), contentType: PROTOBUF, token: other }, limited.runtime.app)).status).toBe(200);
  });
});

describe('methods and paths', () => {
  test.each(['get', 'put'] as const)('%s /otlp/v1/metrics: 405 with Allow: POST', async (method) => {
    const answer = await refused(() => send(t.runtime.app, method, '/otlp/v1/metrics', method === 'put' ? { body: '{}', contentType: JSON_TYPE } : {}));
    expectRefusal(answer, 405, GRPC.UNIMPLEMENTED, JSON_TYPE, new RegExp(`^${method.toUpperCase()} is not allowed here; OTLP exporters POST to /otlp/v1/metrics`));
    expect(answer.headers.allow).toBe('POST');
  });

  test('a PUT of protobuf is answered in protobuf', async () => {
    const answer = await refused(() => send(t.runtime.app, 'put', '/otlp/v1/logs', { body: Buffer.alloc(0), contentType: PROTOBUF }));
    expectRefusal(answer, 405, GRPC.UNIMPLEMENTED, PROTOBUF, /^PUT is not allowed here/);
    expect(answer.headers.allow).toBe('POST');
  });

  test.each([
    ['/otlp/v1/profiles', PROTOBUF],
    ['/otlp/v1development/profiles', PROTOBUF],
    ['/otlp/v2/metrics', JSON_TYPE],
  ])('POST %s: 404 naming the endpoints (%s)', async (path, contentType) => {
    const answer = await refused(() => post(path, { body: contentType === PROTOBUF ? Buffer.alloc(0) : '{}', contentType }));
    expectRefusal(answer, 404, GRPC.NOT_FOUND, contentType, new RegExp(`^No OTLP endpoint POST ${path}; exporters send to POST /otlp/v1/metrics, /otlp/v1/logs or /otlp/v1/traces`));
  });
});

// ---- Accepted in part ------------------------------------------------------------------------------------------

describe('accepted in part: 200 with partialSuccess', () => {
  test('histogram points beside counters: the histogram refused by name, the counters stored', async () => {
    const session = `histogram-${randomBytes(4).toString('hex')}`;
    const [body] = await captured(async (baseUrl) => {
      const meter = otelMeter({ baseUrl, token: 'unused', protocol: 'http/protobuf' });
      meter.add('claude_code.session.count', 1, { ...ADA, 'session.id': session });
      meter.add('claude_code.token.usage', 500, { ...ADA, 'session.id': session, type: 'output', model: 'claude-sonnet-4-5' });
      meter.histogram('claude_code.api_request.duration_ms', 1200, { ...ADA, 'session.id': session, model: 'claude-sonnet-4-5' });
      meter.histogram('claude_code.api_request.duration_ms', 300, { ...ADA, 'session.id': session, model: 'claude-haiku-4-5' });
      await meter.flush();
    });
    const before = await usage();
    const answer = await post('/otlp/v1/metrics', { body, contentType: PROTOBUF });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/x-protobuf/);
    expect(responseOf('metrics', answer)).toEqual({
      partialSuccess: { rejectedDataPoints: '2', errorMessage: expect.stringMatching(/^claude_code\.api_request\.duration_ms: histogram points are not stored; send counters \(Sum\) or gauges/) },
    });
    const names = await select<{ name: string }>('SELECT name FROM telemetry_points WHERE attributes LIKE :session ORDER BY name', { session: `%${session}%` });
    expect(names.map((r) => r.name)).toEqual(['claude_code.session.count', 'claude_code.token.usage']);
    expect(await usage()).toEqual({ ...before, sessions: before.sessions + 1, output_tokens: before.output_tokens + 500 });
  });

  test.each([PROTOBUF, JSON_TYPE])('a metric without a name (%s): its points refused by reason, the named one stored', async (contentType) => {
    const now = `${Date.now()}000000`;
    const point = { timeUnixNano: now, startTimeUnixNano: now, asDouble: 0.25, attributes: [{ key: 'user.email', value: { stringValue: DEMO.emails.ada } }] };
    const metric = (name: string) => ({ name, sum: { aggregationTemporality: 1, dataPoints: [point] } });
    const message = { resourceMetrics: [{ scopeMetrics: [{ metrics: [metric(''), metric('claude_code.cost.usage')] }] }] };
    const type = requestType('metrics');
    const body = contentType === PROTOBUF ? Buffer.from(type.encode(type.fromObject(message)).finish()) : Buffer.from(JSON.stringify(message));
    const before = await usage();
    const answer = await post('/otlp/v1/metrics', { body, contentType });
    expect(answer.status).toBe(200);
    const { partialSuccess } = responseOf('metrics', answer);
    expect({ rejected: Number(partialSuccess?.rejectedDataPoints), message: partialSuccess?.errorMessage }).toEqual({ rejected: 1, message: '1 point(s) of a metric without a name' });
    expect(await usage()).toEqual({ ...before, cost_usd: before.cost_usd + 0.25 });
  });

  test('values a database column could not sum (1e300, Infinity) are refused by name; the rest is stored', async () => {
    const now = `${Date.now()}000000`;
    const point = (value: number | string) => ({ timeUnixNano: now, startTimeUnixNano: now, asDouble: value, attributes: [{ key: 'user.email', value: { stringValue: DEMO.emails.ada } }] });
    const body = Buffer.from(
      JSON.stringify({
        resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'claude_code.cost.usage', sum: { aggregationTemporality: 1, dataPoints: [point(1e300), point('Infinity'), point(0.5)] } }] }] }],
      }),
    );
    const before = await usage();
    const answer = await post('/otlp/v1/metrics', { body, contentType: JSON_TYPE });
    expect(answer.status).toBe(200);
    expect(responseOf('metrics', answer)).toEqual({ partialSuccess: { rejectedDataPoints: '2', errorMessage: expect.stringMatching(/^claude_code\.cost\.usage: 2 point\(s\) without a time, or a value that is not a number of at most 1e15/) } });
    expect(await usage()).toEqual({ ...before, cost_usd: before.cost_usd + 0.5 });
  });

  test.each(['http/protobuf', 'http/json'] as const)(
    '%s log records with prompt text and tool parameters: dropped, said so, and found in no row of any table',
    async (protocol) => {
      const secret = `SECRET-PROMPT-${randomBytes(6).toString('hex')}`;
      const parameters = `{"command":"cat ~/.ssh/id_rsa-${randomBytes(6).toString('hex')}"}`;
      const session = `privacy-${randomBytes(4).toString('hex')}`;
      const [body] = await captured(async (baseUrl) => {
        const logger = otelLogger({ baseUrl, token: 'unused', protocol });
        logger.event('claude_code.user_prompt', { ...ADA, 'session.id': session, 'event.sequence': 1, prompt_length: secret.length, prompt: secret });
        logger.event('claude_code.tool_result', { ...ADA, 'session.id': session, 'event.sequence': 2, tool_name: 'Bash', success: 'true', tool_parameters: parameters });
        await logger.flush();
      });
      expect(body.toString('utf8')).toContain(secret);
      const contentType = protocol === 'http/json' ? JSON_TYPE : PROTOBUF;
      const answer = await post('/otlp/v1/logs', { body: gzipSync(body), contentType, encoding: 'gzip' });
      expect(answer.status).toBe(200);
      expect(answer.contentType.startsWith(contentType)).toBe(true);
      const { partialSuccess } = responseOf('logs', answer);
      // Protobuf leaves a zero count out; OTLP/JSON may write it as "0".
      expect(['0', 0, undefined]).toContain(partialSuccess?.rejectedLogRecords);
      expect(partialSuccess?.errorMessage).toMatch(/^2 attribute\(s\) of log records dropped: prompt text, tool input and API bodies are never stored$/);

      const events = await select<{ name: string; attributes: string }>('SELECT name, attributes FROM telemetry_events WHERE session_id = :session ORDER BY name', { session });
      expect(events.map((e) => e.name)).toEqual(['claude_code.tool_result', 'claude_code.user_prompt']);
      expect(await tablesHolding(secret)).toEqual([]);
      expect(await tablesHolding(parameters)).toEqual([]);
      expect(await tablesHolding('id_rsa-')).toEqual([]);
      const [batch] = await select<{ content_type: string; sanitized: number | boolean; body_gzip: Buffer }>(
        'SELECT content_type, sanitized, body_gzip FROM telemetry_batches ORDER BY id DESC LIMIT 1',
      );
      expect({ contentType: batch.content_type, sanitized: Number(batch.sanitized) }).toEqual({ contentType: JSON_TYPE, sanitized: 1 });
      const kept = JSON.parse(gunzipSync(batch.body_gzip).toString('utf8'));
      expect(kept.events.map((e: { name: string }) => e.name).sort()).toEqual(['claude_code.tool_result', 'claude_code.user_prompt']);
      expect(kept.events.find((e: { name: string }) => e.name === 'claude_code.user_prompt').attributes).toMatchObject({ prompt_length: secret.length, 'session.id': session });
    },
  );

  test('text SQL could trip on (quotes, backslashes, emoji; a NUL inside an attribute) is stored exactly as the exporter sent it', async () => {
    const tricky = `it's \\ "quoted" 🚀 ${randomBytes(4).toString('hex')}`;
    const [body] = await captured(async (baseUrl) => {
      const logger = otelLogger({ baseUrl, token: 'unused', protocol: 'http/protobuf' });
      logger.event(`release.${tricky}`, { ...ADA, 'session.id': tricky, 'event.sequence': 1, note: `${tricky}\u0000` });
      await logger.flush();
    });
    const answer = await post('/otlp/v1/logs', { body, contentType: PROTOBUF });
    expect(answer.status).toBe(200);
    const events = await select<{ name: string; session_id: string; attributes: string }>('SELECT name, session_id, attributes FROM telemetry_events WHERE name = :name', { name: `release.${tricky}` });
    expect(events.map((e) => ({ name: e.name, session: e.session_id, note: JSON.parse(e.attributes).note }))).toEqual([{ name: `release.${tricky}`, session: tricky, note: `${tricky}\u0000` }]);
  });

  test('a NUL character in an event or metric name (no column may hold one): those records refused by reason, the rest stored', async () => {
    const session = `nul-${randomBytes(4).toString('hex')}`;
    const [logs] = await captured(async (baseUrl) => {
      const logger = otelLogger({ baseUrl, token: 'unused', protocol: 'http/protobuf' });
      logger.event('release.deployed', { ...ADA, 'session.id': session, 'event.sequence': 1 });
      logger.event('release.\u0000deployed', { ...ADA, 'session.id': session, 'event.sequence': 2 });
      await logger.flush();
    });
    const logsAnswer = await post('/otlp/v1/logs', { body: logs, contentType: PROTOBUF });
    expect(responseOf('logs', logsAnswer)).toEqual({ partialSuccess: { rejectedLogRecords: '1', errorMessage: expect.stringMatching(/without NUL characters/) } });
    expect(await select('SELECT name FROM telemetry_events WHERE session_id = :session', { session })).toEqual([{ name: 'release.deployed' }]);

    const [metrics] = await captured(async (baseUrl) => {
      const meter = otelMeter({ baseUrl, token: 'unused', protocol: 'http/json' });
      meter.add('claude_code.session.count', 1, { ...ADA, 'session.id': session });
      meter.add('claude_code.\u0000session.count', 1, { ...ADA, 'session.id': session });
      await meter.flush();
    });
    const before = await usage();
    const metricsAnswer = await post('/otlp/v1/metrics', { body: metrics, contentType: JSON_TYPE });
    expect(responseOf('metrics', metricsAnswer)).toEqual({ partialSuccess: { rejectedDataPoints: expect.anything(), errorMessage: '1 point(s) of a metric whose name holds a NUL character' } });
    expect(Number(responseOf('metrics', metricsAnswer).partialSuccess?.rejectedDataPoints)).toBe(1);
    expect(await usage()).toEqual({ ...before, sessions: before.sessions + 1 });
  });

  /** An ExportTraceServiceRequest of `n` spans, encoded from the OTLP .proto (no trace exporter is installed here). */
  function traces(n: number, json: boolean): Buffer {
    const now = BigInt(Date.now()) * 1_000_000n;
    const traceId = randomBytes(16);
    const spans = Array.from({ length: n }, (_, i) => ({
      traceId: json ? traceId.toString('hex') : traceId,
      spanId: json ? randomBytes(8).toString('hex') : randomBytes(8),
      name: `tool.call.${i}`,
      kind: 1,
      startTimeUnixNano: String(now - 5_000_000n),
      endTimeUnixNano: String(now),
      attributes: [{ key: 'tool_name', value: { stringValue: 'Bash' } }],
    }));
    const message = { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] }, scopeSpans: [{ scope: { name: 'com.anthropic.claude_code' }, spans }] }] };
    if (json) return Buffer.from(JSON.stringify(message));
    const type = requestType('traces');
    return Buffer.from(type.encode(type.fromObject(message)).finish());
  }

  test.each([
    [PROTOBUF, false],
    [JSON_TYPE, true],
  ])('traces (%s): every span refused with a message, only the batch row stored', async (contentType, json) => {
    const before = await snapshot();
    const answer = await post('/otlp/v1/traces', { body: traces(3, json), contentType });
    expect(answer.status).toBe(200);
    expect(answer.contentType.startsWith(contentType)).toBe(true);
    expect(responseOf('traces', answer)).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: '3 span(s) not stored: this service keeps metrics and log records; send spans to a tracing backend' },
    });
    expect(await snapshot()).toEqual({ ...before, telemetry_batches: before.telemetry_batches + 1 });
  });
});

// ---- Retries -------------------------------------------------------------------------------------------------

describe('a retried batch', () => {
  test.each([
    ['metrics', 'http/protobuf'],
    ['metrics', 'http/json'],
    ['logs', 'http/protobuf'],
  ] as const)('%s (%s) sent twice: 200 both times, the second changes nothing', async (signal, protocol) => {
    const session = `retry-${signal}-${protocol}-${randomBytes(4).toString('hex')}`;
    const [body] =
      signal === 'metrics'
        ? [await counterExport(session, protocol)]
        : await captured(async (baseUrl) => {
            const logger = otelLogger({ baseUrl, token: 'unused', protocol });
            logger.event('claude_code.user_prompt', { ...ADA, 'session.id': session, 'event.sequence': 1, prompt_length: 12 });
            logger.event('claude_code.api_request', { ...ADA, 'session.id': session, 'event.sequence': 2, model: 'claude-sonnet-4-5', cost_usd: 0.5, input_tokens: 10 });
            await logger.flush();
          });
    const contentType = protocol === 'http/json' ? JSON_TYPE : PROTOBUF;
    const points = () => select('SELECT * FROM telemetry_points ORDER BY series_key, start_at, end_at');
    const before = await snapshot();
    const first = await post(`/otlp/v1/${signal}`, { body, contentType });
    expect(first.status).toBe(200);
    const once = await snapshot();
    expect(once).not.toEqual(before);
    const storedOnce = await points();
    const second = await post(`/otlp/v1/${signal}`, { body, contentType });
    expect({ status: second.status, contentType: second.contentType, body: second.body }).toEqual({ status: 200, contentType: first.contentType, body: first.body });
    expect(await snapshot()).toEqual(once);
    expect(await points()).toEqual(storedOnce);
  });
});

// ---- Two instances -------------------------------------------------------------------------------------------

describe('two instances on one database', () => {
  /** Successive exports of one cumulative series set: each repeats the totals so far. */
  async function cumulativeExports(session: string): Promise<Buffer[]> {
    const attributes = { ...ADA, 'session.id': session };
    const steps = [
      { input: 100, cost: 0.5 },
      { input: 250, cost: 0.25 },
      { input: 50, cost: 0.125 },
      { input: 1000, cost: 1 },
    ];
    const bodies = await captured(async (baseUrl) => {
      const meter = otelMeter({ baseUrl, token: 'unused', protocol: 'http/protobuf', temporality: 'cumulative' });
      for (const step of steps) {
        meter.add('claude_code.token.usage', step.input, { ...attributes, type: 'input', model: 'claude-sonnet-4-5' });
        meter.add('claude_code.cost.usage', step.cost, { ...attributes, model: 'claude-sonnet-4-5' });
        await meter.flush();
        // Points are kept to the millisecond: successive exports a few apart, as the real ones (a minute apart) are.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    expect(bodies).toHaveLength(steps.length);
    return bodies;
  }
  const FINAL = { input_tokens: 1400, cost_usd: 1.875 };

  let second: Runtime;
  beforeAll(() => {
    second = createRuntime(t.config, createLogger('silent'), { rateLimitKeyPrefix: `test:${randomBytes(6).toString('hex')}` });
  });
  afterAll(async () => {
    await second.close();
    initModels(t.runtime.sequelize);
  });

  const added = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(Object.entries(after).filter(([k, v]) => v !== before[k]).map(([k, v]) => [k, v - before[k]]));

  test('a cumulative series’ exports sent alternately to each: the rollups hold exactly the final totals', async () => {
    const bodies = await cumulativeExports(`cluster-alternate-${randomBytes(4).toString('hex')}`);
    const before = await usage();
    for (const [i, body] of bodies.entries()) {
      const app = i % 2 ? second.app : t.runtime.app;
      expect((await post('/otlp/v1/metrics', { body, contentType: PROTOBUF }, app)).status).toBe(200);
    }
    expect(added(before, await usage())).toEqual(FINAL);
  });

  // Many instances means MariaDB (docs/operating.md); on SQLite each process queues its own writes and a second
  // process writing at the same moment gets SQLITE_BUSY, so there the copies go one after another.
  const atOnce = Boolean(SERVICES.databaseUrl);
  test(`each export sent twice to both ${atOnce ? 'at once' : 'one after another (SQLite: one writing process by design)'}: still exactly the final totals`, async () => {
    const bodies = await cumulativeExports(`cluster-race-${randomBytes(4).toString('hex')}`);
    const before = await usage();
    const apps = [t.runtime.app, second.app, t.runtime.app, second.app];
    for (const body of bodies) {
      const sendTo = (app: Express) => post('/otlp/v1/metrics', { body, contentType: PROTOBUF }, app);
      const answers = atOnce ? await Promise.all(apps.map(sendTo)) : await apps.reduce<Promise<Answer[]>>(async (done, app) => [...(await done), await sendTo(app)], Promise.resolve([]));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    }
    expect(added(before, await usage())).toEqual(FINAL);
  });
});
