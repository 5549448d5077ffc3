/**
 * The share of the API's CPU time spent collecting garbage, read from its own Prometheus figures (prom-client's
 * default metrics on METRICS_PORT: `nodejs_gc_duration_seconds_sum` over all kinds, `process_cpu_seconds_total`).
 * With --gc-share the benchmark's API runs with METRICS_PORT set, as in service with Prometheus scraping it.
 */
export interface ProcessTimes {
  gcSeconds: number;
  cpuSeconds: number;
}

/** Sums every sample of `name` in a Prometheus text exposition (one per label set). */
export function sumOf(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}

/** The API's times now; undefined when its metrics do not answer (the row's figures go on without them). */
export async function processTimes(metricsUrl: string | undefined): Promise<ProcessTimes | undefined> {
  if (!metricsUrl) return undefined;
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return undefined;
    const text = await res.text();
    return { gcSeconds: sumOf(text, 'nodejs_gc_duration_seconds_sum'), cpuSeconds: sumOf(text, 'process_cpu_seconds_total') };
  } catch {
    return undefined;
  }
}

/** GC seconds ÷ CPU seconds between two readings; undefined when no CPU was spent. */
export function gcShare(before: ProcessTimes, after: ProcessTimes): number | undefined {
  const cpu = after.cpuSeconds - before.cpuSeconds;
  return cpu > 0 ? (after.gcSeconds - before.gcSeconds) / cpu : undefined;
}
