/** The one Markdown report `npm run bench` prints on stdout (progress goes to stderr). */
import os from 'node:os';
import type { Measurement, PostMeasurement } from './load';
import type { HistoryRow } from './history/row';
import type { RecomputationRow } from './recomputation';

export interface Row {
  path: string;
  floor?: Measurement;
  /** The floor's answers served through express + tRPC + trpc-to-openapi + zod (floor/stack.ts). */
  stack?: Measurement;
  /** The stack floor plus a token looked up by its hash and two Redis limiters charged (floor/service.ts). */
  service?: Measurement;
  /** Why the floor has no figure (it does not serve the path, or answered an error). */
  floorNote?: string;
  api: Measurement;
  /**
   * With --baseline: the stack floor and the API measured once more, right after the first pair, so that a row is
   * compared with its baseline in two alternations (baseline.ts).
   */
  again?: { stack?: Measurement; api: Measurement };
}

// No response within the run: the rate is below one per run and every latency above the run's length.
const rate = (m: Measurement) =>
  m.rps === 0 ? `< ${(1 / m.seconds).toFixed(2)}` : m.rps >= 100 ? m.rps.toFixed(0) : m.rps >= 10 ? m.rps.toFixed(1) : m.rps.toFixed(2);
const ms = (m: Measurement, v: number) => (m.rps === 0 ? `> ${m.seconds * 1000}` : String(v));
const failures = (m: Measurement) => `${m.non2xx}${m.errors ? ` (+${m.errors} errors/timeouts)` : ''}`;

function ratio(of: Measurement, to?: Measurement): string {
  if (!to || to.rps === 0) return '–';
  return `${(of.rps / to.rps).toFixed(2)}`;
}

export function table(rows: Row[]): string {
  const lines = [
    '| request | floor req/s | stack req/s | service req/s | API req/s | ratio | API / stack | API / service | API p50 ms | API p99 ms | non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of rows) {
    const floor = row.floor ? rate(row.floor) : `– (${row.floorNote ?? 'not run'})`;
    const [stack, service] = [row.stack, row.service].map((m) => (m ? rate(m) : '–'));
    lines.push(
      `| \`${row.path}\` | ${floor} | ${stack} | ${service} | ${rate(row.api)} | ${ratio(row.api, row.floor)} | ${ratio(row.api, row.stack)} | ${ratio(row.api, row.service)} | ` +
        `${ms(row.api, row.api.p50)} | ${ms(row.api, row.api.p99)} | ${failures(row.api)} |`,
    );
  }
  return lines.join('\n');
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * What issue 61 asks of the lists, read off the table: API ÷ service floor, every page-1 and deep page at least
 * 0.8 and their median at least 0.9; API ÷ stack floor and ÷ floor (medians) as information.
 */
export function listSummary(rows: Row[]): string {
  const lists = rows.filter((r) => r.floor && r.stack && r.service && r.floor.rps > 0 && r.stack.rps > 0 && r.service.rps > 0 && !r.path.includes('/metrics/'));
  if (lists.length === 0) return '';
  const ofService = lists.map((r) => ({ path: r.path, value: r.api.rps / r.service!.rps }));
  const lowest = ofService.reduce((a, b) => (b.value < a.value ? b : a));
  const below = ofService.filter((r) => r.value < 0.8).length;
  const deep = ofService.filter((r) => r.path.includes('&page='));
  const first = ofService.filter((r) => !r.path.includes('&page='));
  const med = (list: { value: number }[]) => (list.length ? median(list.map((r) => r.value)).toFixed(2) : '–');
  const of = (floor: 'stack' | 'floor') => median(lists.map((r) => r.api.rps / r[floor]!.rps)).toFixed(2);
  return [
    '',
    `Lists (${lists.length} rows the floors serve): API ÷ service floor median ${med(ofService)} (page 1: ${med(first)}, deep pages: ${med(deep)}), ` +
      `lowest ${lowest.value.toFixed(2)} (\`${lowest.path}\`), ${below} row${below === 1 ? '' : 's'} under 0.8; API ÷ stack floor median ${of('stack')}, ÷ floor ${of('floor')}.`,
  ].join('\n');
}

/** An ingest row: one kind of body (OTLP, a tracker's delivery) POSTed to the ingest floor and to the API. */
export interface IngestRow {
  path: string;
  /** Points, log records or deliveries per request, and what they are called. */
  items: number;
  itemName: string;
  bodyKb: number;
  /** How the body is encoded: protobuf (OTLP), JSON (a tracker's webhook). */
  encoding: string;
  floor: PostMeasurement;
  /** The same writes behind the fixed stack and the work no receiver can skip (the tracker row's). */
  stack?: PostMeasurement;
  api: PostMeasurement;
}

/** One request on one process and on N (the API's WEB_CONCURRENCY, the floor's FLOOR_WORKERS), measured back to back. */
export interface ClusterRow {
  path: string;
  workers: number;
  floor: { one: Measurement; many: Measurement };
  api: { one: Measurement; many: Measurement };
  /** Cores busy during the API runs (CPU seconds ÷ seconds): its processes, the database, the load generator. */
  cores: { one: Cores; many: Cores };
}

export interface Cores {
  api: number;
  database: number;
  load: number;
}

const cores = (c: Cores) => `${c.api.toFixed(2)} + ${c.database.toFixed(2)} + ${c.load.toFixed(2)}`;

export function clusterTable(rows: ClusterRow[]): string {
  const lines = [
    '| request | processes | floor req/s ×1 | floor req/s ×N | floor gain | API req/s ×1 | API req/s ×N | API gain | API ×N p50 ms | API ×N p99 ms | non-2xx | cores ×1: API + DB + load | cores ×N: API + DB + load |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of rows) {
    const { floor, api } = row;
    lines.push(
      `| \`${row.path}\` | ${row.workers} | ${rate(floor.one)} | ${rate(floor.many)} | ${ratio(floor.many, floor.one)} | ${rate(api.one)} | ${rate(api.many)} | ` +
        `${ratio(api.many, api.one)} | ${ms(api.many, api.many.p50)} | ${ms(api.many, api.many.p99)} | ${failures(api.many)} | ` +
        `${cores(row.cores.one)} | ${cores(row.cores.many)} |`,
    );
  }
  return lines.join('\n');
}

export function ingestTable(rows: IngestRow[]): string {
  const lines = [
    '| request | per request | floor items/s | stack items/s | API items/s | API req/s | ratio | API / stack | API p50 ms | API p99 ms | non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const perSecond = (m: PostMeasurement, items: number) => (m.rps === 0 ? `< ${(items / m.seconds).toFixed(0)}` : (m.rps * items).toFixed(0));
  for (const row of rows) {
    lines.push(
      `| \`POST ${row.path}\` | ${row.items} ${row.itemName} (${row.bodyKb.toFixed(0)} KB ${row.encoding}) | ${perSecond(row.floor, row.items)} | ` +
        `${row.stack ? perSecond(row.stack, row.items) : '–'} | ${perSecond(row.api, row.items)} | ${rate(row.api)} | ${ratio(row.api, row.floor)} | ` +
        `${row.stack ? ratio(row.api, row.stack) : '–'} | ${ms(row.api, row.api.p50)} | ${ms(row.api, row.api.p99)} | ${failures(row.api)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The history rows (scripts/bench/history/): a year of one provider read and stored by the floor and by the import CLI,
 * each a process of its own; items per second of wall time (start-up included) and each process's peak RSS.
 */
export function historyTable(rows: HistoryRow[]): string {
  const lines = [
    '| import | a year of | items stored | floor items/s | importer items/s | ratio | floor s | importer s | floor peak RSS | importer peak RSS |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  const perSecond = (items: number, seconds: number) => (items / seconds).toFixed(0);
  for (const row of rows) {
    const sizes = Object.entries(row.sizes).map(([what, n]) => `${n.toLocaleString('en-US')} ${what.replaceAll('_', ' ')}`).join(', ');
    const { floor, importer } = row;
    lines.push(
      `| \`${row.path}\` | ${sizes} | ${importer.items.toLocaleString('en-US')} | ${perSecond(floor.items, floor.seconds)} | ${perSecond(importer.items, importer.seconds)} | ` +
        `${(importer.items / importer.seconds / (floor.items / floor.seconds)).toFixed(2)} | ${floor.seconds.toFixed(1)} | ${importer.seconds.toFixed(1)} | ${mb(floor.rssPeakMb)} | ${mb(importer.rssPeakMb)} |`,
    );
  }
  return lines.join('\n');
}

/** The recomputation row (scripts/bench/recomputation.ts): a change of the bot accounts, then putting it back. */
export function recomputationTable(row: RecomputationRow): string {
  const lines = ['| recomputation | --bots | pull requests recomputed | seconds | pull requests/s | peak RSS |', '|---|---|--:|--:|--:|--:|'];
  for (const [what, run] of [['set', row.set], ['put back', row.putBack]] as const) {
    lines.push(`| \`${row.path}\`: ${what} | \`${run.bots}\` | ${row.pullRequests.toLocaleString('en-US')} | ${run.seconds.toFixed(1)} | ${(row.pullRequests / run.seconds).toFixed(0)} | ${mb(run.rssPeakMb)} |`);
  }
  return lines.join('\n');
}

/** One answer of a burst: its status, or why none came; how long it took; what a 200 or a 503 said. */
export interface BurstAnswer {
  /** The status, or why there was none: the connection refused, cut before the answer ended, or no answer in time. */
  status: number | 'refused' | 'cut' | 'timed out';
  ms: number;
  /** A 503 that said when to ask again (Retry-After). */
  retryAfter?: boolean;
  /** A 200 whose by_adoption_tier was not null. */
  tiers?: boolean;
}

/** A burst row: one caller's concurrent requests on an API started for them (scripts/bench/burst/figures.ts). */
export interface BurstRow {
  caller: string;
  answers: BurstAnswer[];
  /** The API's resident memory when the burst began, and its peak until the answers were in. */
  rss: { start?: number; peak: number };
  /** The process after the burst: up (GET /readyz 200), or how it ended. */
  after: string;
}

const counted = (counts: Map<string, number>) => [...counts].map(([what, n]) => `${n} ${what}`).join(', ');

export function burstTable(rows: BurstRow[]): string {
  const lines = [
    '| burst | requests | 200 | 503 with Retry-After | no answer | other | 200s with tiers | p50 ms of 200s | max ms of 200s | API RSS at start | API RSS peak | API after |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const row of rows) {
    const ok = row.answers.filter((a) => a.status === 200);
    const busy = row.answers.filter((a) => a.status === 503 && a.retryAfter);
    const [none, other] = [new Map<string, number>(), new Map<string, number>()];
    for (const a of row.answers) {
      if (a.status === 200 || (a.status === 503 && a.retryAfter)) continue;
      const [counts, what] = typeof a.status === 'number' ? [other, `× ${a.status}${a.status === 503 ? ' without Retry-After' : ''}`] : [none, a.status];
      counts.set(what, (counts.get(what) ?? 0) + 1);
    }
    const noAnswer = row.answers.length - ok.length - busy.length - [...other.values()].reduce((a, b) => a + b, 0);
    const times = ok.map((a) => a.ms);
    lines.push(
      `| ${row.caller} | ${row.answers.length} | ${ok.length} | ${busy.length} | ${noAnswer ? `${noAnswer} (${counted(none)})` : '0'} | ${other.size ? counted(other) : '–'} | ` +
        `${ok.filter((a) => a.tiers).length} of ${ok.length} | ${times.length ? median(times).toFixed(0) : '–'} | ${times.length ? Math.max(...times).toFixed(0) : '–'} | ` +
        `${mb(row.rss.start)} | ${mb(row.rss.peak)} | ${row.after} |`,
    );
  }
  return lines.join('\n');
}

export interface Context {
  connections: number;
  seconds: number;
  floorCount: string;
  mariadb: string;
  database: string;
  rss: { start?: number; peak: number; final?: number };
  floorPeakRss: number;
  differences: string[];
  /** Said under the table: how the ingest rows ran (bodies run out, rows checked). */
  notes?: string[];
}

const mb = (v: number | undefined) => (v === undefined ? '?' : `${v.toFixed(0)} MB`);

export function footer(c: Context): string {
  const gb = (os.totalmem() / 1024 ** 3).toFixed(1);
  const lines = [
    '',
    `API RSS: ${mb(c.rss.start)} after start-up, ${mb(c.rss.peak)} peak during the run, ${mb(c.rss.final)} at the end ` +
      `(floor peak ${mb(c.floorPeakRss)}).`,
    `Load: ${c.connections} connections, ${c.seconds} s per request and server; floor totals: ${c.floorCount === 'cached' ? 'counted once per scope' : 'SELECT COUNT(*) per request'}.`,
    `Machine: ${os.availableParallelism()} CPUs (nproc), ${gb} GB memory, Node ${process.version}, MariaDB ${c.mariadb}; database ${c.database}.`,
  ];
  if (c.notes?.length) lines.push('', ...c.notes);
  if (c.differences.length) {
    lines.push('', 'Floor and API answered differently (probed once before the load):', ...c.differences.map((d) => `- ${d}`));
  }
  return lines.join('\n');
}
