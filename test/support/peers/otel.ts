import { MeterProvider, PeriodicExportingMetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { LoggerProvider, BatchLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter, AggregationTemporalityPreference } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPLogExporter as ProtobufLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import type { Attributes } from '@opentelemetry/api';

/**
 * Senders built from the OpenTelemetry JS SDK and its own OTLP exporters (the encodings and requests real
 * clients make), configured as Claude Code configures them: resource `service.name=claude-code`, meter and
 * logger scope `com.anthropic.claude_code`, delta temporality unless a test asks for the SDK's cumulative.
 */
export interface SenderOptions {
  baseUrl: string;
  token: string;
  protocol: 'http/protobuf' | 'http/json';
  gzip?: boolean;
  temporality?: 'delta' | 'cumulative';
  service?: { name: string; version: string };
}

const CLAUDE_CODE = { name: 'claude-code', version: '2.0.37' };

function exporterOptions(o: SenderOptions, signal: 'metrics' | 'logs') {
  return {
    url: `${o.baseUrl}/otlp/v1/${signal}`,
    headers: { Authorization: `Bearer ${o.token}` },
    compression: o.gzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
  };
}

/** A meter whose `flush()` exports everything recorded since the last flush in one request, and fails if it was refused. */
export function otelMeter(o: SenderOptions) {
  const options = {
    ...exporterOptions(o, 'metrics'),
    temporalityPreference: o.temporality === 'cumulative' ? AggregationTemporalityPreference.CUMULATIVE : AggregationTemporalityPreference.DELTA,
  };
  const exporter = o.protocol === 'http/protobuf' ? new ProtobufMetricExporter(options) : new JsonMetricExporter(options);
  // The reader reports a failed export to the global error handler, not to forceFlush: the test sees it here.
  const failures: unknown[] = [];
  const watched: PushMetricExporter = {
    export: (metrics, done) =>
      exporter.export(metrics, (result) => {
        if (result.error) failures.push(result.error);
        done(result);
      }),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: (kind) => exporter.selectAggregationTemporality(kind),
    selectAggregation: (kind) => exporter.selectAggregation(kind),
  };
  const reader = new PeriodicExportingMetricReader({ exporter: watched, exportIntervalMillis: 3_600_000 });
  const service = o.service ?? CLAUDE_CODE;
  const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': service.name, 'service.version': service.version }), readers: [reader] });
  const meter = provider.getMeter(`com.anthropic.${service.name.replace('-', '_')}`, service.version);
  const counters = new Map<string, ReturnType<typeof meter.createCounter>>();
  return {
    add(name: string, value: number, attributes: Attributes) {
      let counter = counters.get(name);
      if (!counter) counters.set(name, (counter = meter.createCounter(name)));
      counter.add(value, attributes);
    },
    gauge(name: string, value: number, attributes: Attributes) {
      meter.createGauge(name).record(value, attributes);
    },
    histogram(name: string, value: number, attributes: Attributes) {
      meter.createHistogram(name).record(value, attributes);
    },
    /** Exports what was recorded; throws what the service answered if it refused the request. */
    async flush() {
      await provider.forceFlush();
      if (failures.length) throw failures.splice(0)[0];
    },
    async shutdown() {
      await provider.shutdown();
      if (failures.length) throw failures.splice(0)[0];
    },
  };
}

/** A logger that batches events and exports them on `flush()`, as Claude Code's events exporter does. */
export function otelLogger(o: SenderOptions) {
  const options = exporterOptions(o, 'logs');
  const exporter = o.protocol === 'http/protobuf' ? new ProtobufLogExporter(options) : new JsonLogExporter(options);
  const failures: unknown[] = [];
  const watched = {
    export: (records: Parameters<typeof exporter.export>[0], done: Parameters<typeof exporter.export>[1]) =>
      exporter.export(records, (result) => {
        if (result.error) failures.push(result.error);
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
  const service = o.service ?? CLAUDE_CODE;
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': service.name, 'service.version': service.version }),
    processors: [new BatchLogRecordProcessor({ exporter: watched, scheduledDelayMillis: 3_600_000, maxExportBatchSize: 512 })],
  });
  const logger = provider.getLogger(`com.anthropic.${service.name.replace('-', '_')}`, service.version);
  return {
    /** An event as Claude Code emits one: body and `event.name` are its name, with `event.timestamp`. */
    event(name: string, attributes: Attributes, at = new Date()) {
      logger.emit({ body: name, timestamp: at, attributes: { 'event.name': name.replace(/^[a-z_]+\./, ''), 'event.timestamp': at.toISOString(), ...attributes } });
    },
    emit: (record: Parameters<typeof logger.emit>[0]) => logger.emit(record),
    async flush() {
      await provider.forceFlush();
      if (failures.length) throw failures.splice(0)[0];
    },
    shutdown: () => provider.shutdown(),
  };
}
