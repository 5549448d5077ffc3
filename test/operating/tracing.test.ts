import http from 'node:http';
import net from 'node:net';
import { startServiceProcess } from '../support/serviceProcess';
import { startTestApp, TestApp, DEMO } from '../support/harness';
import { eventually } from '../support/peers/receiver';
import { createScimToken } from '../../src/auth/tokens/scimTokens';

/**
 * docs/operating.md's tracing: the real process (`src/main.ts`) with OTEL_EXPORTER_OTLP_ENDPOINT set sends its spans, as
 * the OpenTelemetry SDK's OTLP/HTTP JSON exporter encodes them, to a local receiver: incoming requests with their
 * express route, and (on MySQL) the statements, masked. No token, e-mail or secret is in any span. SIGTERM sends what
 * is left before the process exits.
 */

let t: TestApp;
let collector: http.Server;
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestApp();
  collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/collector/v1/traces') received.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', () => resolve()));
});
afterAll(async () => {
  collector?.close();
  await t?.close();
});

/** OTLP's SpanKind: a request this process answered. */
const SERVER = 2;

interface Span {
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** Every span received so far, from OTLP/JSON's resourceSpans → scopeSpans → spans. */
function spans(): Span[] {
  const batches = received as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] }[];
  return batches.flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
}

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : String(Object.values(value)[0]);
};

test('the service traces itself to an OTLP/HTTP collector, with nothing secret or personal in its spans', async () => {
  const address = collector.address() as net.AddressInfo;
  const env: NodeJS.ProcessEnv = {
    ...(t.config.DATABASE_URL ? { DATABASE_URL: t.config.DATABASE_URL, SECRETS_KEY: t.config.SECRETS_KEY!.toString('hex') } : { SQLITE_PATH: t.config.SQLITE_PATH }),
    // Under a path of its own: this process checks every response it serves under /v1 against the OpenAPI document.
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}/collector`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'platform-api-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_HOUR: '100000000',
  };
  const token = await t.token();
  const scim = (await createScimToken({ organizationId: DEMO.orgs.acme })).token;
  const service = await startServiceProcess('the traced service', env);
  const { process: proc, origin: base } = service;
  try {
    expect((await fetch(`${base}/v1/users/${DEMO.users.ada}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const filter = encodeURIComponent(`userName eq "${DEMO.emails.ada}"`);
    expect((await fetch(`${base}/scim/v2/Users?filter=${filter}`, { headers: { authorization: `Bearer ${scim}` } })).status).toBe(200);

    const served = (prefix: string) => spans().some((s) => s.kind === SERVER && (attribute(s, 'url.path') ?? attribute(s, 'http.target') ?? '').startsWith(prefix));
    await eventually('the spans of both requests', () => served('/v1/users/') && served('/scim/v2/Users'), 15_000);
    const all = spans();
    const resource = (received[0] as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] } }[] }).resourceSpans[0].resource;
    expect(resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue).toBe('platform-api-under-test');
    if (t.config.DATABASE_URL) {
      const statements = all.map((s) => attribute(s, 'db.statement') ?? attribute(s, 'db.query.text')).filter((v): v is string => v !== undefined);
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.some((sql) => /SELECT/i.test(sql))).toBe(true);
    }
    // Nothing a client sent in secret, and no e-mail, anywhere in what was exported.
    const exported = JSON.stringify(received);
    for (const secret of [token, scim, DEMO.emails.ada, encodeURIComponent(DEMO.emails.ada)]) expect(exported).not.toContain(secret);

    // The last spans go out on SIGTERM, before the process exits.
    const before = received.length;
    expect((await fetch(`${base}/v1/organizations`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    proc.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(received.length).toBeGreaterThan(before);
    expect(JSON.stringify(received.slice(before))).toContain('/v1/organizations');
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
}, 90_000);
