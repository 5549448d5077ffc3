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
