import type { z } from 'zod';
import type { LogsBatch, MetricsBatch } from '../services/telemetry/batch';
import { invalid } from '../errors';
import { decodeProtobuf, Signal } from './messages';
import { countSpans, LogsRequest, MetricsRequest, toLogsBatch, toMetricsBatch, TracesRequest } from './normalise';
import { logsRequest, metricsRequest, tracesRequest } from './schema';

export const OTLP_CONTENT_TYPES = ['application/x-protobuf', 'application/json'] as const;
export type OtlpContentType = (typeof OTLP_CONTENT_TYPES)[number];

export type OtlpRequest = { signal: 'metrics'; batch: MetricsBatch } | { signal: 'logs'; batch: LogsBatch } | { signal: 'traces'; spans: number };

const MESSAGE: Record<Signal, string> = {
  metrics: 'ExportMetricsServiceRequest',
  logs: 'ExportLogsServiceRequest',
  traces: 'ExportTraceServiceRequest',
};
/**
 * A body in either encoding as the service's batch; anything unreadable is a 400, which exporters do not retry.
 * OTLP/JSON is validated by schema.ts; protobuf by its decoding, against the `.proto` messages' own field types.
 */
export function readRequest(signal: Signal, contentType: OtlpContentType, body: Buffer): OtlpRequest {
  const json = contentType === 'application/json';
  // Attribute values nest: JSON nested thousands deep exhausts the stack, not the schema.
  return withinStack(signal, () => {
    if (signal === 'metrics') return { signal, batch: toMetricsBatch(json ? validate(metricsRequest, parseJson(body, signal), signal) : decoded<MetricsRequest>(signal, body)) };
    if (signal === 'logs') return { signal, batch: toLogsBatch(json ? validate(logsRequest, parseJson(body, signal), signal) : decoded<LogsRequest>(signal, body)) };
    return { signal, spans: countSpans(json ? validate(tracesRequest, parseJson(body, signal), signal) : decoded<TracesRequest>(signal, body)) };
  });
}

function withinStack<T>(signal: Signal, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof RangeError) throw invalid(`The ${MESSAGE[signal]} is nested too deeply to read`);
    throw err;
  }
}

function validate<T>(schema: z.ZodType<T>, value: unknown, signal: Signal): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalid(`Not a valid ${MESSAGE[signal]}: ${issue.path.join('.') || 'the body'} ${issue.message}`);
}

/** The message as normalise.ts reads it: protobufjs types decoded messages only as `Message`. */
function decoded<T extends MetricsRequest | LogsRequest | TracesRequest>(signal: Signal, body: Buffer): T {
  try {
    return decodeProtobuf(signal, body) as T;
  } catch (err) {
    // Truncated bytes, wrong wire types, or nesting past protobufjs's depth limit.
    throw invalid(`The body is not a protobuf ${MESSAGE[signal]} (${err instanceof Error ? err.message : 'undecodable'})`);
  }
}

function parseJson(body: Buffer, signal: Signal): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid(`The body is not JSON; send an OTLP/JSON ${MESSAGE[signal]}`);
  }
}
