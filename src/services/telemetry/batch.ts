/**
 * What a telemetry request carries once its transport has decoded and validated it (docs/telemetry.md), whatever the
 * encoding: metric points and log records, each with its resource's attributes beside its own.
 */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

/**
 * An attribute as text a column may hold: a string, trimmed, not blank, without a NUL (SQLite reads a statement
 * only up to one; MariaDB would store it). Attribute values are kept as JSON, where a NUL is escaped.
 */
export const columnText = (v: AttributeValue | undefined): string | undefined => (typeof v === 'string' && v.trim() && !v.includes('\u0000') ? v.trim() : undefined);

export interface MetricPoint {
  name: string;
  /** A Sum is a counter: its delta is what happened in [start, time]. A Gauge is a reading at `time`. */
  kind: 'sum' | 'gauge';
  /** A cumulative Sum counts from its start time; each point repeats everything before it. */
  cumulative: boolean;
  /** Milliseconds since the epoch (OTLP sends nanoseconds); 0 when the sender gave none. */
  startMs: number;
  timeMs: number;
  value: number;
  attributes: Attributes;
  resource: Attributes;
  /** The instrumentation scope's name, part of a series' identity. */
  scope: string;
}

export interface LogRecord {
  /** When it happened (or, failing that, when the sender observed it), in milliseconds since the epoch. */
  timeMs: number;
  /** `eventName` (OTLP 1.5+), when the sender set it. */
  eventName: string | undefined;
  body: AttributeValue;
  attributes: Attributes;
  resource: Attributes;
}

export interface MetricsBatch {
  points: MetricPoint[];
  /** Points the transport could not take (Histogram, Summary …), each counted with why. */
  refused: Refusal[];
}

export interface LogsBatch {
  records: LogRecord[];
  refused: Refusal[];
}

export interface Refusal {
  count: number;
  reason: string;
}

/** The request as received, kept for replay unless it carried content that is never stored. */
export interface RawBody {
  signal: 'metrics' | 'logs' | 'traces';
  /** The decompressed bytes, as the sender encoded them. */
  bytes: Buffer;
  contentType: 'application/x-protobuf' | 'application/json';
}
