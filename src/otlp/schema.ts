import { z } from 'zod';
import type { AttributeValue, Attributes, LogRecord, LogsBatch, MetricPoint, MetricsBatch, Refusal } from '../services/telemetry/batch';

/**
 * The OTLP requests in their OTLP/JSON shape (lowerCamelCase; 64-bit integers as strings or numbers; enums as
 * numbers), which protobuf bodies are decoded into too: one schema for both encodings. Unknown fields are
 * ignored, as OTLP asks of receivers.
 */
const uint64 = z.union([z.string().regex(/^\d{1,20}$/, 'must be a decimal integer'), z.number().int().nonnegative()]);
const int64 = z.union([z.string().regex(/^-?\d{1,19}$/, 'must be a decimal integer'), z.number().int()]);
const double = z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])]);

type AnyValueIn = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  bytesValue?: string;
  arrayValue?: { values?: AnyValueIn[] };
  kvlistValue?: { values?: KeyValueIn[] };
};
type KeyValueIn = { key: string; value?: AnyValueIn };

const anyValue: z.ZodType<AnyValueIn> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: int64.optional(),
    doubleValue: double.optional(),
    bytesValue: z.string().optional(),
    arrayValue: z.object({ values: z.array(anyValue).optional() }).optional(),
    kvlistValue: z.object({ values: z.array(keyValue).optional() }).optional(),
  }),
);
const keyValue: z.ZodType<KeyValueIn> = z.lazy(() => z.object({ key: z.string(), value: anyValue.optional() }));
const attributes = z.array(keyValue).optional();
const resource = z.object({ attributes }).optional();
const scope = z.object({ name: z.string().optional() }).optional();

const numberPoint = z.object({
  attributes,
  startTimeUnixNano: uint64.optional(),
  timeUnixNano: uint64.optional(),
  asDouble: double.optional(),
  asInt: int64.optional(),
});
const dataPoints = z.object({ dataPoints: z.array(z.unknown()).optional() });
const TEMPORALITY = { unspecified: 0, delta: 1, cumulative: 2 } as const;
const temporality = z.union([
  z.number().int(),
  z.enum(['AGGREGATION_TEMPORALITY_UNSPECIFIED', 'AGGREGATION_TEMPORALITY_DELTA', 'AGGREGATION_TEMPORALITY_CUMULATIVE']).transform((name) =>
    name === 'AGGREGATION_TEMPORALITY_DELTA' ? TEMPORALITY.delta : name === 'AGGREGATION_TEMPORALITY_CUMULATIVE' ? TEMPORALITY.cumulative : TEMPORALITY.unspecified,
  ),
]);

const metric = z.object({
  name: z.string().min(1, 'a metric needs a name'),
  sum: z.object({ dataPoints: z.array(numberPoint).optional(), aggregationTemporality: temporality.optional() }).optional(),
  gauge: z.object({ dataPoints: z.array(numberPoint).optional() }).optional(),
  histogram: dataPoints.optional(),
  exponentialHistogram: dataPoints.optional(),
  summary: dataPoints.optional(),
});

export const metricsRequest = z.object({
  resourceMetrics: z
    .array(z.object({ resource, scopeMetrics: z.array(z.object({ scope, metrics: z.array(metric).optional() })).optional() }))
    .optional(),
});

const logRecord = z.object({
  timeUnixNano: uint64.optional(),
  observedTimeUnixNano: uint64.optional(),
  body: anyValue.optional(),
  attributes,
  eventName: z.string().optional(),
});

export const logsRequest = z.object({
  resourceLogs: z
    .array(z.object({ resource, scopeLogs: z.array(z.object({ scope, logRecords: z.array(logRecord).optional() })).optional() }))
    .optional(),
});

export const tracesRequest = z.object({
  resourceSpans: z
    .array(z.object({ scopeSpans: z.array(z.object({ spans: z.array(z.unknown()).optional() })).optional() }))
    .optional(),
});

const toMs = (nanos: string | number | undefined): number => {
  if (nanos === undefined) return 0;
  return typeof nanos === 'number' ? Math.floor(nanos / 1e6) : Number(BigInt(nanos) / 1_000_000n);
};

const toNumber = (value: number | string): number => (typeof value === 'number' ? value : Number(value));

function plainValue(value: AnyValueIn | undefined): AttributeValue {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return toNumber(value.intValue);
  if (value.doubleValue !== undefined) return toNumber(value.doubleValue);
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  if (value.kvlistValue) return plainAttributes(value.kvlistValue.values);
  return null;
}

function plainAttributes(list: KeyValueIn[] | undefined): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list ?? []) out[key] = plainValue(value);
  return out;
}

type MetricIn = z.infer<typeof metric>;

/** Larger values are refused: sums of them would leave the range a database DOUBLE column holds. */
const MAX_VALUE = 1e15;

/** Metric kinds the service does not store, and why, as `partialSuccess` will say. */
const UNSTORED_KINDS = ['histogram', 'exponentialHistogram', 'summary'] as const;

function pointsOf(m: MetricIn, context: { resource: Attributes; scope: string }, refused: Refusal[]): MetricPoint[] {
  for (const kind of UNSTORED_KINDS) {
    const count = m[kind]?.dataPoints?.length ?? 0;
    if (count) refused.push({ count, reason: `${m.name}: ${kind} points are not stored; send counters (Sum) or gauges` });
  }
  const sum = m.sum ? { kind: 'sum' as const, points: m.sum.dataPoints ?? [], cumulative: m.sum.aggregationTemporality === TEMPORALITY.cumulative } : undefined;
  const gauge = m.gauge ? { kind: 'gauge' as const, points: m.gauge.dataPoints ?? [], cumulative: false } : undefined;
  const out: MetricPoint[] = [];
  if (m.name.includes('\u0000')) {
    const count = (sum?.points.length ?? 0) + (gauge?.points.length ?? 0);
    if (count) refused.push({ count, reason: `${count} point(s) of a metric whose name holds a NUL character` });
    return out;
  }
  for (const series of [sum, gauge]) {
    if (!series) continue;
    let unusable = 0;
    for (const p of series.points) {
      const raw = p.asDouble ?? p.asInt;
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

export function toMetricsBatch(request: z.infer<typeof metricsRequest>): MetricsBatch {
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

export function toLogsBatch(request: z.infer<typeof logsRequest>): LogsBatch {
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

export function countSpans(request: z.infer<typeof tracesRequest>): number {
  let spans = 0;
  for (const rs of request.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
  return spans;
}
