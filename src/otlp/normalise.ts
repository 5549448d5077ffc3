import type { AttributeValue, Attributes, LogRecord, LogsBatch, MetricPoint, MetricsBatch, Refusal } from '../services/telemetry/batch';
import { TEMPORALITY } from './schema';

/**
 * An OTLP request in either encoding as the telemetry service's batch. Both arrive with the same field names:
 * OTLP/JSON as validated by schema.ts, protobuf as protobufjs decodes it from the `.proto` messages. They differ
 * in three ways, which the readers below absorb: protobufjs keeps unset fields' defaults on a message's prototype
 * (so only own fields were sent), gives 64-bit integers as Long, and bytes as bytes.
 */

interface Long {
  high: number;
  low: number;
  toNumber(): number;
}
type Int64 = string | number | Long;
type Maybe<T> = T | null | undefined;

interface AnyValue {
  stringValue?: Maybe<string>;
  boolValue?: Maybe<boolean>;
  intValue?: Maybe<Int64>;
  doubleValue?: Maybe<number | string>;
  bytesValue?: Maybe<string | Uint8Array>;
  arrayValue?: Maybe<{ values?: Maybe<AnyValue[]> }>;
  kvlistValue?: Maybe<{ values?: Maybe<KeyValue[]> }>;
}
interface KeyValue {
  key: string;
  value?: Maybe<AnyValue>;
}
interface Resource {
  attributes?: Maybe<KeyValue[]>;
}
interface Scope {
  name?: Maybe<string>;
}
interface NumberPoint {
  attributes?: Maybe<KeyValue[]>;
  startTimeUnixNano?: Maybe<Int64>;
  timeUnixNano?: Maybe<Int64>;
  asDouble?: Maybe<number | string>;
  asInt?: Maybe<Int64>;
}
interface Points<P> {
  dataPoints?: Maybe<P[]>;
}
interface Metric {
  name: string;
  sum?: Maybe<Points<NumberPoint> & { aggregationTemporality?: Maybe<number> }>;
  gauge?: Maybe<Points<NumberPoint>>;
  histogram?: Maybe<Points<unknown>>;
  exponentialHistogram?: Maybe<Points<unknown>>;
  summary?: Maybe<Points<unknown>>;
}
export interface MetricsRequest {
  resourceMetrics?: Maybe<{ resource?: Maybe<Resource>; scopeMetrics?: Maybe<{ scope?: Maybe<Scope>; metrics?: Maybe<Metric[]> }[]> }[]>;
}
interface Log {
  timeUnixNano?: Maybe<Int64>;
  observedTimeUnixNano?: Maybe<Int64>;
  body?: Maybe<AnyValue>;
  attributes?: Maybe<KeyValue[]>;
  eventName?: Maybe<string>;
}
export interface LogsRequest {
  resourceLogs?: Maybe<{ resource?: Maybe<Resource>; scopeLogs?: Maybe<{ scope?: Maybe<Scope>; logRecords?: Maybe<Log[]> }[]> }[]>;
}
export interface TracesRequest {
  resourceSpans?: Maybe<{ scopeSpans?: Maybe<{ spans?: Maybe<unknown[]> }[]> }[]>;
}

const hasOwn = Object.prototype.hasOwnProperty;
/** A field as sent: an own property (protobufjs's defaults live on the prototype), not null. */
function sent<T extends object, K extends keyof T>(message: T, field: K): NonNullable<T[K]> | undefined {
  return hasOwn.call(message, field) ? (message[field] ?? undefined) : undefined;
}

/** Nanoseconds since the epoch as milliseconds, exactly (a double holds nanoseconds only to about 256). */
function toMs(nanos: Maybe<Int64>): number {
  if (nanos === undefined || nanos === null) return 0;
  if (typeof nanos === 'number') return Math.floor(nanos / 1e6);
  if (typeof nanos === 'string') return Number(BigInt(nanos) / 1_000_000n);
  // A fixed64 Long is high × 2^32 + low, and 2^32 = 4294 × 10^6 + 967,296: every term below stays under 2^53.
  const high = nanos.high >>> 0;
  return high * 4294 + Math.floor((high * 967_296 + (nanos.low >>> 0)) / 1e6);
}

const toNumber = (value: Int64): number => (typeof value === 'object' ? value.toNumber() : Number(value));

function plainValue(value: Maybe<AnyValue>): AttributeValue {
  if (!value) return null;
  const string = sent(value, 'stringValue');
  if (string !== undefined) return string;
  const bool = sent(value, 'boolValue');
  if (bool !== undefined) return bool;
  const int = sent(value, 'intValue');
  if (int !== undefined) return toNumber(int);
  const double = sent(value, 'doubleValue');
  if (double !== undefined) return toNumber(double);
  const bytes = sent(value, 'bytesValue');
  if (bytes !== undefined) return typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('base64');
  const array = sent(value, 'arrayValue');
  if (array) return (array.values ?? []).map(plainValue);
  const kvlist = sent(value, 'kvlistValue');
  if (kvlist) return plainAttributes(kvlist.values);
  return null;
}

function plainAttributes(list: Maybe<KeyValue[]>): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list ?? []) out[key] = plainValue(value);
  return out;
}

/** Larger values are refused: sums of them would leave the range a database DOUBLE column holds. */
const MAX_VALUE = 1e15;

/** Metric kinds the service does not store, and why, as `partialSuccess` will say. */
const UNSTORED_KINDS = ['histogram', 'exponentialHistogram', 'summary'] as const;

function pointsOf(m: Metric, context: { resource: Attributes; scope: string }, refused: Refusal[]): MetricPoint[] {
  for (const kind of UNSTORED_KINDS) {
    const count = m[kind]?.dataPoints?.length ?? 0;
    if (count) refused.push({ count, reason: `${m.name}: ${kind} points are not stored; send counters (Sum) or gauges` });
  }
  const sum = m.sum ? { kind: 'sum' as const, points: m.sum.dataPoints ?? [], cumulative: m.sum.aggregationTemporality === TEMPORALITY.cumulative } : undefined;
  const gauge = m.gauge ? { kind: 'gauge' as const, points: m.gauge.dataPoints ?? [], cumulative: false } : undefined;
  const out: MetricPoint[] = [];
  // An unnamed metric is nobody's series; protobuf cannot tell an empty name from none.
  const unusable = !m.name ? 'without a name' : m.name.includes('\u0000') ? 'whose name holds a NUL character' : undefined;
  if (unusable) {
    const count = (sum?.points.length ?? 0) + (gauge?.points.length ?? 0);
    if (count) refused.push({ count, reason: `${count} point(s) of a metric ${unusable}` });
    return out;
  }
  for (const series of [sum, gauge]) {
    if (!series) continue;
    let unusable = 0;
    for (const p of series.points) {
      const raw = sent(p, 'asDouble') ?? sent(p, 'asInt');
      const value = raw === undefined ? NaN : toNumber(raw);
      const timeMs = toMs(p.timeUnixNano);
      if (!(Math.abs(value) <= MAX_VALUE) || timeMs <= 0) {
        unusable++;
        continue;
      }
      out.push({ name: m.name, kind: series.kind, cumulative: series.cumulative, startMs: toMs(p.startTimeUnixNano), timeMs, value, attributes: plainAttributes(p.attributes), ...context });
    }
    if (unusable) refused.push({ count: unusable, reason: `${m.name}: ${unusable} point(s) without a time, or a value that is not a number of at most 1e15` });
  }
  return out;
}

export function toMetricsBatch(request: MetricsRequest): MetricsBatch {
  const refused: Refusal[] = [];
  const points: MetricPoint[] = [];
  for (const rm of request.resourceMetrics ?? []) {
    const resourceAttributes = plainAttributes(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      const context = { resource: resourceAttributes, scope: sm.scope?.name ?? '' };
      for (const m of sm.metrics ?? []) points.push(...pointsOf(m, context, refused));
    }
  }
  return { points, refused };
}

export function toLogsBatch(request: LogsRequest): LogsBatch {
  const refused: Refusal[] = [];
  const records: LogRecord[] = [];
  for (const rl of request.resourceLogs ?? []) {
    const resourceAttributes = plainAttributes(rl.resource?.attributes);
    for (const sl of rl.scopeLogs ?? []) {
      let timeless = 0;
      for (const r of sl.logRecords ?? []) {
        const timeMs = toMs(r.timeUnixNano) || toMs(r.observedTimeUnixNano);
        if (timeMs <= 0) {
          timeless++;
          continue;
        }
        records.push({ timeMs, eventName: r.eventName || undefined, body: plainValue(r.body), attributes: plainAttributes(r.attributes), resource: resourceAttributes });
      }
      if (timeless) refused.push({ count: timeless, reason: `${timeless} log record(s) without a time or an observed time` });
    }
  }
  return { records, refused };
}

export function countSpans(request: TracesRequest): number {
  let spans = 0;
  for (const rs of request.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
  return spans;
}
