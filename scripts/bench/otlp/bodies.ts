/**
 * Request bodies for the ingest rows of `npm run bench`: Claude Code's telemetry as the OpenTelemetry JS SDK
 * records it and as its OTLP/HTTP protobuf exporters encode it. Points come from a MeterProvider with delta
 * temporality (Claude Code's), events from a LoggerProvider; each body is what one export would send, encoded
 * by the serializers the `exporter-{metrics,logs}-otlp-proto` packages call. All of it happens before the load.
 *
 * A body carries SESSIONS_PER_BODY sessions of as many members (one resource, one scope, as a collector batching
 * many laptops would forward them), ITEMS_PER_SESSION points or events each: 500 items, a realistic export batch
 * (the SDK's BatchLogRecordProcessor sends up to 512). Every session id, and every timestamp, is new, so no body
 * repeats another and the service's idempotency (batch hash, point and event keys) never skips one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ProtobufLogsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import type { Attributes } from '@opentelemetry/api';

export type IngestSignal = 'metrics' | 'logs';

/** A member of the benchmark's organization whose e-mail the telemetry carries. */
export interface Member {
  userId: string;
  email: string;
}

export const SESSIONS_PER_BODY = 50;
export const ITEMS_PER_SESSION = 10;
export const ITEMS_PER_BODY = SESSIONS_PER_BODY * ITEMS_PER_SESSION;

const VERSION = '2.0.37';
const RESOURCE = { 'service.name': 'claude-code', 'service.version': VERSION, 'os.type': 'linux', 'os.version': '6.8.0', 'host.arch': 'x64' };
const SCOPE = 'com.anthropic.claude_code';
const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001'];
const TERMINALS = ['vscode', 'iTerm.app', 'tmux', 'cursor', 'Apple_Terminal'];
const VENDOR_ORG = '4f3c2a1e-8d7b-4e6f-9a0b-1c2d3e4f5a6b';

const hex = (s: string) => createHash('sha256').update(s).digest('hex');
/** A stable UUID-shaped account id per e-mail, as Claude Code's `user.account_uuid` is per account. */
export const accountUuidOf = (email: string) => {
  const h = hex(`bench-account:${email}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)];
const between = (min: number, max: number) => Math.round(min + Math.random() * (max - min));

/** Claude Code's standard attributes, on every point and event (code.claude.com/docs/en/monitoring-usage). */
function sessionAttributes(member: Member): Attributes {
  return {
    'user.id': hex(`device:${member.email}`),
    'session.id': randomUUID(),
    'app.version': VERSION,
    'organization.id': VENDOR_ORG,
    'user.email': member.email,
    'user.account_uuid': accountUuidOf(member.email),
    'terminal.type': pick(TERMINALS),
  };
}

const memberOf = (members: Member[], body: number, session: number) => members[(body * SESSIONS_PER_BODY + session) % members.length];

/** A reader the benchmark collects from itself, asking for Claude Code's delta temporality. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/**
 * `count` metrics bodies. Each session adds 10 points: a session, input/output/cache-read/cache-creation tokens
 * of one model, its cost, lines added and removed, user and CLI active time; each collection is one delta
 * export (its points start where the last one ended).
 */
export async function metricsBodies(members: Member[], count: number): Promise<Buffer[]> {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ resource: resourceFromAttributes(RESOURCE), readers: [reader] });
  const meter = provider.getMeter(SCOPE, VERSION);
  const sessions = meter.createCounter('claude_code.session.count', { description: 'Count of CLI sessions started', unit: 'count' });
  const tokens = meter.createCounter('claude_code.token.usage', { description: 'Number of tokens used', unit: 'tokens' });
  const cost = meter.createCounter('claude_code.cost.usage', { description: 'Cost of the Claude Code session', unit: 'USD' });
  const lines = meter.createCounter('claude_code.lines_of_code.count', { description: "Count of lines of code modified, with the 'type' attribute indicating whether lines were added or removed", unit: 'count' });
  const active = meter.createCounter('claude_code.active_time.total', { description: 'Total active time in seconds', unit: 's' });
  const bodies: Buffer[] = [];
  for (let b = 0; b < count; b++) {
    for (let s = 0; s < SESSIONS_PER_BODY; s++) {
      const a = sessionAttributes(memberOf(members, b, s));
      const model = pick(MODELS);
      sessions.add(1, a);
      tokens.add(between(200, 20_000), { ...a, type: 'input', model });
      tokens.add(between(100, 8_000), { ...a, type: 'output', model });
      tokens.add(between(1_000, 200_000), { ...a, type: 'cacheRead', model });
      tokens.add(between(100, 30_000), { ...a, type: 'cacheCreation', model });
      cost.add(Math.random() * 2, { ...a, model });
      lines.add(between(0, 400), { ...a, type: 'added' });
      lines.add(between(0, 120), { ...a, type: 'removed' });
      active.add(between(10, 900), { ...a, type: 'user' });
      active.add(between(30, 3_600), { ...a, type: 'cli' });
    }
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length) throw new Error(`collecting metrics: ${String(errors[0])}`);
    bodies.push(encoded(ProtobufMetricsSerializer.serializeRequest(resourceMetrics), 'metrics'));
  }
  await provider.shutdown();
  return bodies;
}

/**
 * `count` logs bodies. Each session adds 10 events: a prompt, then nine API requests, as Claude Code emits them
 * (body and `event.name` name the event, `event.sequence` numbers it in its session), a few milliseconds apart,
 * ending before `endMs`.
 */
export function logsBodies(members: Member[], count: number, endMs = Date.now()): Buffer[] {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ resource: resourceFromAttributes(RESOURCE), processors: [new SimpleLogRecordProcessor({ exporter })] });
  const logger = provider.getLogger(`${SCOPE}.events`, VERSION);
  let at = endMs - count * ITEMS_PER_BODY * 3;
  const bodies: Buffer[] = [];
  for (let b = 0; b < count; b++) {
    for (let s = 0; s < SESSIONS_PER_BODY; s++) {
      const a = sessionAttributes(memberOf(members, b, s));
      const model = pick(MODELS);
      const event = (name: string, sequence: number, attributes: Attributes) => {
        const time = new Date((at += 3));
        logger.emit({
          body: `claude_code.${name}`,
          timestamp: time,
          attributes: { ...a, 'event.name': name, 'event.timestamp': time.toISOString(), 'event.sequence': sequence, ...attributes },
        });
      };
      event('user_prompt', 0, { prompt_length: between(20, 4_000) });
      for (let i = 1; i < ITEMS_PER_SESSION; i++) {
        event('api_request', i, {
          model,
          cost_usd: Math.random() / 5,
          duration_ms: between(800, 60_000),
          input_tokens: between(10, 5_000),
          output_tokens: between(10, 4_000),
          cache_read_tokens: between(0, 150_000),
          cache_creation_tokens: between(0, 20_000),
        });
      }
    }
    bodies.push(encoded(ProtobufLogsSerializer.serializeRequest(exporter.getFinishedLogRecords()), 'logs'));
    exporter.reset();
  }
  void provider.shutdown();
  return bodies;
}

function encoded(bytes: Uint8Array | undefined, signal: IngestSignal): Buffer {
  if (!bytes?.length) throw new Error(`the ${signal} serializer produced no body`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
