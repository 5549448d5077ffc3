/**
 * Claude Code's managed-settings.json (its `env` block) sending metrics and events to this service's `/otlp` with
 * `token`. Delta temporality: the points arrive as the deltas that are stored, with no cumulative series to track
 * between requests.
 */
export function managedSettings(publicBase: string, token: string): { env: Record<string, string> } {
  return {
    env: {
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: `${publicBase}/otlp`,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token}`,
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
    },
  };
}
