/** One request against one server: a single probe (for totals and a correctness check), then the load. */
import autocannon from 'autocannon';
import type { Connection } from 'mysql2/promise';
import { scalar } from './database';

export interface Probe {
  status: number;
  body?: { data?: unknown[]; meta?: Record<string, unknown> };
}

export async function probe(url: string, headers: Record<string, string>): Promise<Probe> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as Probe['body'] };
  } catch {
    return { status: res.status };
  }
}

/** Key order does not matter on the wire; the API and the floor build items differently. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Where the two answers differ, in a few words, or undefined. Both claim the same data, so any difference is a
 * bug in one of them (or the floor's plan), worth knowing before comparing their speed.
 */
export function difference(floor: Probe, api: Probe): string | undefined {
  if (floor.status !== api.status) return `status: floor ${floor.status}, API ${api.status}`;
  for (const key of ['total', 'total_pages', 'page', 'per_page', 'sort', 'order']) {
    const f = floor.body?.meta?.[key];
    const a = api.body?.meta?.[key];
    if (f !== a) return `meta.${key}: floor ${JSON.stringify(f)}, API ${JSON.stringify(a)}`;
  }
  const f = floor.body?.data ?? [];
  const a = api.body?.data ?? [];
  if (f.length !== a.length) return `data: floor ${f.length} items, API ${a.length}`;
  const at = f.findIndex((item, i) => canonical(item) !== canonical(a[i]));
  if (at >= 0) return `data[${at}]: floor ${canonical(f[at]).slice(0, 120)} / API ${canonical(a[at]).slice(0, 120)}`;
  return undefined;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  seconds: number;
}

export async function measure(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<Measurement> {
  const result = await autocannon({ url, headers, connections, duration: seconds });
  return {
    // Responses over the run's length: unlike the per-second average, it shows a fraction for lists that
    // answer less than once a second.
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    seconds,
  };
}

export interface PostMeasurement extends Measurement {
  /** Bodies sent (each at most once). */
  sent: number;
  /** Answered with a 2xx over the whole load, warm-up included. */
  ok: number;
  /** Seconds of load before the measured window opened. */
  warmUp: number;
  /** Every body was sent before the window's time was up: the window is shorter than asked. */
  exhausted: boolean;
  /** Statuses of the non-2xx answers in the window, with how many. */
  statuses: Record<string, number>;
}

/**
 * How long an ingest request may take before it counts as a timeout. OTLP exporters give up after 10 s
 * (OTEL_EXPORTER_OTLP_TIMEOUT) and send again; the benchmark waits longer, to measure how fast the server
 * works through its queue rather than how often senders would give up (the p99 column shows that).
 */
export const INGEST_TIMEOUT_S = 120;

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);

/**
 * POSTs each of `bodies` once, in order, over `connections` connections: a body is never sent twice, so a server
 * that remembers what it has seen (OTLP batches) does the full work every time. Each request names its body's
 * index in `x-bench-body` (the ingest floor inserts that body's rows).
 *
 * One load, measured in a window of `seconds` that opens once the server is warm and saturated: after `warmUp`
 * seconds and once every connection has had an answer. A request that takes seconds (a large batch queued
 * behind 31 others) would otherwise make a run of a few seconds count the time the first answers take, not
 * the server's pace. When the bodies run out first, the window closes with the last answer.
 */
export async function measureBodies(
  url: string,
  headers: Record<string, string>,
  bodies: Buffer[],
  connections: number,
  seconds: number,
  warmUp: number,
  /** Headers of each body of its own (a signature, a delivery id), beside `headers`. */
  bodyHeaders?: Record<string, string>[],
): Promise<PostMeasurement> {
  // autocannon gives each connection an equal share of maxOverallRequests; a share of 0 would mean "no limit".
  if (bodies.length < connections) throw new Error(`${bodies.length} bodies for ${connections} connections: at least one each is needed`);
  let next = 0;
  const started = Date.now();
  let opened: number | undefined;
  let answers = 0;
  const window: { at: number; ms: number; status: number }[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options: autocannon.Options = {
      url,
      connections,
      // An upper bound: the load stops when the window closes or the bodies run out.
      duration: warmUp + seconds + 2 * INGEST_TIMEOUT_S,
      timeout: INGEST_TIMEOUT_S,
      maxOverallRequests: bodies.length,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            // Never more calls than bodies (each connection stops at its share); the guard only keeps it so.
            const index = Math.min(next++, bodies.length - 1);
            return { ...request, headers: { ...headers, ...bodyHeaders?.[index], 'x-bench-body': String(index) }, body: bodies[index] };
          },
        },
      ],
    };
    const instance = autocannon(options, (err: unknown, res: autocannon.Result) => (err ? reject(err as Error) : resolve(res)));
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      const now = Date.now();
      answers++;
      if (opened === undefined && answers >= connections && now - started >= warmUp * 1000) {
        opened = now;
        setTimeout(() => instance.stop(), seconds * 1000).unref();
        return;
      }
      if (opened !== undefined && now - opened <= seconds * 1000) window.push({ at: now, ms, status });
    });
  });
  const sent = Math.min(next, bodies.length);
  const last = window.length ? window[window.length - 1].at : (opened ?? started);
  const exhausted = sent >= bodies.length && (opened === undefined || last - opened < seconds * 1000 - 500);
  const length = opened === undefined ? 0 : exhausted ? Math.max(0.001, (last - opened) / 1000) : seconds;
  const latencies = window.map((r) => r.ms).sort((a, b) => a - b);
  const failed = window.filter((r) => r.status < 200 || r.status > 299).map((r) => r.status);
  return {
    rps: length ? window.length / length : 0,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    non2xx: failed.length,
    errors: result.errors,
    seconds: length || seconds,
    sent,
    ok: result['2xx'],
    warmUp: ((opened ?? Date.now()) - started) / 1000,
    exhausted,
    statuses: Object.fromEntries([...new Set(failed)].map((status) => [String(status), failed.filter((f) => f === status).length])),
  };
}

/**
 * Waits until the database has no query of ours running. A server keeps executing what a finished run left
 * queued (slow counts, deep pages), which would otherwise be billed to the next run.
 */
export async function settle(db: Connection, database: string, maxMs = 30_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const busy = Number(
      await scalar(
        db,
        "SELECT COUNT(*) FROM information_schema.processlist WHERE db = ? AND command = 'Query' AND id <> CONNECTION_ID()",
        [database],
      ),
    );
    if (busy === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}
