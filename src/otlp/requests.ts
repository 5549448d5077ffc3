import type { z } from 'zod';
import type { LogsBatch, MetricsBatch } from '../services/telemetry/batch';
import { invalid } from '../errors';
import { decodeProtobuf, Signal } from './messages';
import { countSpans, logsRequest, metricsRequest, toLogsBatch, toMetricsBatch, tracesRequest } from './schema';

export const OTLP_CONTENT_TYPES = ['application/x-protobuf', 'application/json'] as const;
export type OtlpContentType = (typeof OTLP_CONTENT_TYPES)[number];

export type OtlpRequest = { signal: 'metrics'; batch: MetricsBatch } | { signal: 'logs'; batch: LogsBatch } | { signal: 'traces'; spans: number };

const MESSAGE: Record<Signal, string> = {
  metrics: 'ExportMetricsServiceRequest',
  logs: 'ExportLogsServiceRequest',
  traces: 'ExportTraceServiceRequest',
};
/** A body in either encoding as one validated shape; anything unreadable is a 400, which exporters do not retry. */
export function readRequest(signal: Signal, contentType: OtlpContentType, body: Buffer): OtlpRequest {
  const decoded = decode(signal, contentType, body);
  if (signal === 'metrics') return { signal, batch: toMetricsBatch(validate(metricsRequest, decoded, signal)) };
  if (signal === 'logs') return { signal, batch: toLogsBatch(validate(logsRequest, decoded, signal)) };
  return { signal, spans: countSpans(validate(tracesRequest, decoded, signal)) };
}

function validate<T>(schema: z.ZodType<T>, decoded: unknown, signal: Signal): T {
  let parsed: z.ZodSafeParseResult<T>;
  try {
    parsed = schema.safeParse(decoded);
  } catch {
    // zod walks attribute values recursively: a body nested thousands deep exhausts the stack, not the schema.
    throw invalid(`The ${MESSAGE[signal]} is nested too deeply to read`);
  }
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalid(`Not a valid ${MESSAGE[signal]}: ${issue.path.join('.') || 'the body'} ${issue.message}`);
}

function decode(signal: Signal, contentType: OtlpContentType, body: Buffer): unknown {
  if (contentType === 'application/x-protobuf') {
    try {
      return decodeProtobuf(signal, body);
    } catch (err) {
      throw invalid(`The body is not a protobuf ${MESSAGE[signal]} (${err instanceof Error ? err.message : 'undecodable'})`);
    }
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid(`The body is not JSON; send an OTLP/JSON ${MESSAGE[signal]}`);
  }
}
