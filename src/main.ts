/**
 * The process's entry (`npm start`, `npm run dev`, each worker of a cluster). With OTEL_EXPORTER_OTLP_ENDPOINT set,
 * tracing starts before the service's modules load, so http, express, mysql2 and redis are instrumented as they are
 * required (src/observability/tracing.ts); unset, not one module of it is loaded.
 */
async function start(): Promise<void> {
  const tracing = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? (await import('./observability/tracing')).startTracing() : undefined;
  const { run } = await import('./service');
  await run({ beforeExit: tracing?.shutdown });
}

start().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
