import { z } from 'zod';

/**
 * The OTLP requests in their OTLP/JSON shape (lowerCamelCase; 64-bit integers as strings or numbers; enums as
 * numbers or names). Unknown fields are ignored, as OTLP asks of receivers. Protobuf bodies need no such schema:
 * protobufjs decodes them by the `.proto` messages themselves, whose fields have these names (normalise.ts).
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
export const TEMPORALITY = { unspecified: 0, delta: 1, cumulative: 2 } as const;
const temporality = z.union([
  z.number().int(),
  z.enum(['AGGREGATION_TEMPORALITY_UNSPECIFIED', 'AGGREGATION_TEMPORALITY_DELTA', 'AGGREGATION_TEMPORALITY_CUMULATIVE']).transform((name) =>
    name === 'AGGREGATION_TEMPORALITY_DELTA' ? TEMPORALITY.delta : name === 'AGGREGATION_TEMPORALITY_CUMULATIVE' ? TEMPORALITY.cumulative : TEMPORALITY.unspecified,
  ),
]);

const metric = z.object({
  name: z.string(),
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
