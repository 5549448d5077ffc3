import path from 'node:path';
import protobuf from 'protobufjs';
import { projectRoot } from '../projectRoot';

/**
 * The OTLP messages, loaded with protobufjs from the `.proto` files under `proto/` (the OTLP repository's own,
 * unmodified), so field numbers and types are the specification's and nothing is generated or hand-written.
 */
const PROTO_DIR = path.join(projectRoot(), 'proto');
const FILES = [
  'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'google/rpc/status.proto',
];

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  // Imports name paths from the proto root; protobufjs's bundled google/protobuf files answer the well-known ones.
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(PROTO_DIR, target));
  return root.loadSync(FILES);
}

const root = loadRoot();

export type Signal = 'metrics' | 'logs' | 'traces';

const COLLECTOR = {
  metrics: 'opentelemetry.proto.collector.metrics.v1.ExportMetrics',
  logs: 'opentelemetry.proto.collector.logs.v1.ExportLogs',
  traces: 'opentelemetry.proto.collector.trace.v1.ExportTrace',
} as const;

export const requestType = (signal: Signal) => root.lookupType(`${COLLECTOR[signal]}ServiceRequest`);
export const responseType = (signal: Signal) => root.lookupType(`${COLLECTOR[signal]}ServiceResponse`);
export const statusType = root.lookupType('google.rpc.Status');

/**
 * A decoded request: a protobufjs message, whose fields have the OTLP/JSON names (normalise.ts reads both).
 * Throws on bytes that are not the message (truncated, wrong wire types).
 */
export function decodeProtobuf(signal: Signal, body: Buffer): unknown {
  return requestType(signal).decode(body);
}

/** A response message in the request's encoding: protobuf bytes, or OTLP/JSON. */
export function encodeMessage(type: protobuf.Type, value: Record<string, unknown>, json: boolean): Buffer {
  const message = type.fromObject(value);
  if (json) return Buffer.from(JSON.stringify(type.toObject(message, { longs: String, enums: Number })));
  return Buffer.from(type.encode(message).finish());
}
