import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { RedisInstrumentation } from '@opentelemetry/instrumentation-redis';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';

/**
 * Query parameters whose values stay out of spans: a SCIM filter names users by e-mail, a tRPC call's input may too,
 * and an OpenID callback carries a code and its state. The rest (page, sort, dates) are kept.
 */
const REDACTED_QUERY_PARAMETERS = ['filter', 'input', 'code', 'state', 'return_to', 'id_token', 'access_token', 'token', 'sig', 'Signature'];

/**
 * Traces of the service itself (docs/operating.md), started by src/main.ts when OTEL_EXPORTER_OTLP_ENDPOINT is set, before
 * anything it instruments is loaded: incoming and outgoing HTTP, express's routing, mysql2 statements and Redis
 * commands. The exporter reads the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _TIMEOUT and their
 * _TRACES_ forms); OTEL_EXPORTER_OTLP_PROTOCOL=http/json sends JSON, else protobuf. OTEL_SERVICE_NAME (default
 * platform-api) and OTEL_RESOURCE_ATTRIBUTES name the service. Spans carry no secret and no personal data: SQL
 * with its values masked, Redis commands without their keys, no headers, the query parameters above redacted.
 */
export function startTracing(): { shutdown(): Promise<void> } {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  const exporter = protocol === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  const provider = new NodeTracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': 'platform-api' }))
      .merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        redactedQueryParamsServer: REDACTED_QUERY_PARAMETERS,
        // Load balancers' probes would be most of the spans and say nothing.
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz',
      }),
      new ExpressInstrumentation(),
      new MySQL2Instrumentation({ maskStatement: true }),
      new RedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}
