import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BurstAnswer, burstTable, IngestRow, listSummary, Row } from '../../scripts/bench/report';
import { readBaseline, regressions, saveBaseline } from '../../scripts/bench/baseline';
import { parseOptions, UsageError } from '../../scripts/bench/options';
import { gcShare, sumOf } from '../../scripts/bench/gcShare';
import { burstFromDays } from '../../scripts/bench/burst/figures';

/** What `npm run bench` concludes from its rows: the ratios issue 61 sets targets on, and regressions against main. */

const at = (rps: number) => ({ rps, p50: 10, p99: 20, non2xx: 0, errors: 0, seconds: 2 });
const row = (p: string, floor: number, stack: number, api: number): Row => ({ path: p, floor: at(floor), stack: at(stack), api: at(api) });

const rows = [
  row('/v1/teams?sort=name', 1000, 800, 640),
  row('/v1/teams?sort=name&page=52', 900, 700, 350),
  row('/v1/git/apps?sort=name', 2000, 1000, 900),
  { path: '/v1/metrics/dora?organization_id=o', api: at(500) },
];

test('the list summary: API ÷ service floor median, by page 1 and deep pages, the lowest row, rows under 0.8, API ÷ stack floor and ÷ floor medians', () => {
  // The service floor authenticates and limits as the API does: 640 ÷ 760, 350 ÷ 700 and 900 ÷ 1000.
  const measured = [...rows.slice(0, 3).map((r, i) => ({ ...r, service: at([760, 700, 1000][i]) })), rows[3]];
  expect(listSummary(measured)).toBe(
    '\nLists (3 rows the floors serve): API ÷ service floor median 0.84 (page 1: 0.87, deep pages: 0.50), lowest 0.50 ' +
      '(`/v1/teams?sort=name&page=52`), 1 row under 0.8; API ÷ stack floor median 0.80, ÷ floor 0.45.',
  );
  // A run without the service floor (an older baseline's rows) has no list summary.
  expect(listSummary(rows)).toBe('');
});

test('a baseline saved from main flags a row more than 20 % slower, by API ÷ stack floor where there is one', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'main.json');
  saveBaseline(file, rows);
  const baseline = readBaseline(file);
  // The machine got busier: every server 30 % slower, the ratios unchanged: no regression.
  const busier = rows.map((r) => ({ ...r, floor: r.floor && at(r.floor.rps * 0.7), stack: r.stack && at(r.stack.rps * 0.7), api: at(r.api.rps * 0.7) }));
  expect(regressions(baseline, busier.slice(0, 3))).toEqual([]);
  // One list slower against the same stack floor, and the metric (no stack floor) by its rate.
  const slower = [row('/v1/teams?sort=name', 1000, 800, 500), rows[1], rows[2], { path: rows[3].path, api: at(390) }];
  expect(regressions(baseline, slower)).toEqual([
    '- `/v1/teams?sort=name`: 0.63 × stack floor, was 0.80 (-22 %)',
    '- `/v1/metrics/dora?organization_id=o`: 390.00 req/s, was 500.00 (-22 %)',
  ]);
});

test('measured twice against a baseline (stack floor and API alternated): flagged only when slower in both alternations', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'main.json');
  saveBaseline(file, rows);
  const baseline = readBaseline(file);
  const twice = (r: Row, again: { stack?: number; api: number }): Row => ({ ...r, again: { stack: again.stack === undefined ? undefined : at(again.stack), api: at(again.api) } });
  // The first run of /v1/teams slow (0.63), the second as before (0.80): noise. Both slow: a regression.
  const noisy = twice(row('/v1/teams?sort=name', 1000, 800, 500), { stack: 800, api: 640 });
  const slow = twice(row('/v1/teams?sort=name&page=52', 900, 700, 250), { stack: 720, api: 260 });
  const metric = twice({ path: rows[3].path, api: at(390) }, { api: 520 });
  expect(regressions(baseline, [noisy, slow, rows[2], metric])).toEqual(['- `/v1/teams?sort=name&page=52`: 0.36 and 0.36 × stack floor, was 0.50 (-29 %, -28 %)']);
  // What is saved is the first alternation's figure.
  saveBaseline(file, [slow]);
  expect(readBaseline(file)['/v1/teams?sort=name&page=52'].ofStack).toBeCloseTo(250 / 700);
});

test('--baseline needs runs of 10 s or more', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'main.json');
  fs.writeFileSync(file, '{}');
  expect(() => parseOptions(['--baseline', file, '--seconds', '3'])).toThrow(new UsageError('--baseline compares runs of 10 s or more (got 3 s): shorter ones vary more than the 20 % it flags'));
  expect(() => parseOptions(['--baseline', file, '--quick'])).toThrow(UsageError);
  expect(parseOptions(['--baseline', file])?.seconds).toBe(10);
});

test('ingest rows join the baseline by their POST and compare by API ÷ ingest floor', () => {
  const posted = (rps: number) => ({ ...at(rps), sent: 100, ok: 100, warmUp: 3, exhausted: false, statuses: {} });
  const ingest = (floor: number, api: number): IngestRow => ({ path: '/ingest/jira/{app_id}', items: 1, itemName: 'delivery', encoding: 'JSON', bodyKb: 11, floor: posted(floor), api: posted(api) });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'main.json');
  saveBaseline(file, rows, [ingest(400, 200)]);
  const baseline = readBaseline(file);
  expect(baseline['POST /ingest/jira/{app_id}']).toEqual({ rps: 200, ofFloor: 0.5 });
  // Both slower on a busier machine: the same ratio, no regression; the API alone slower: a regression.
  expect(regressions(baseline, rows, [ingest(280, 140)])).toEqual([]);
  expect(regressions(baseline, rows, [ingest(400, 150)])).toEqual(['- `POST /ingest/jira/{app_id}`: 0.38 × ingest floor, was 0.50 (-25 %)']);
});

test('the GC share of CPU, from the API\'s own Prometheus figures: every kind of collection summed', () => {
  const exposition = (gc: [number, number], cpu: number) =>
    [
      '# HELP nodejs_gc_duration_seconds Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
      '# TYPE nodejs_gc_duration_seconds histogram',
      'nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 3',
      `nodejs_gc_duration_seconds_sum{kind="minor"} ${gc[0]}`,
      'nodejs_gc_duration_seconds_count{kind="minor"} 12',
      `nodejs_gc_duration_seconds_sum{kind="major"} ${gc[1]}`,
      `process_cpu_seconds_total ${cpu}`,
      'process_cpu_seconds_total_other 99',
    ].join('\n');
  expect(sumOf(exposition([0.5, 0.25], 10), 'nodejs_gc_duration_seconds_sum')).toBe(0.75);
  expect(sumOf(exposition([0.5, 0.25], 10), 'process_cpu_seconds_total')).toBe(10);
  const at = (text: string) => ({ gcSeconds: sumOf(text, 'nodejs_gc_duration_seconds_sum'), cpuSeconds: sumOf(text, 'process_cpu_seconds_total') });
  expect(gcShare(at(exposition([0.5, 0.25], 10)), at(exposition([1.5, 0.75], 20)))).toBeCloseTo(0.15);
  expect(gcShare(at(exposition([0.5, 0.25], 10)), at(exposition([0.5, 0.25], 10)))).toBeUndefined();
});

test('a burst row: answers by status, the 200s with tiers, their p50 and max, the API\'s RSS and whether it is still up', () => {
  const answers = (...groups: [number, BurstAnswer][]) => groups.flatMap(([n, a]) => Array.from({ length: n }, (_, i) => ({ ...a, ms: a.ms + i })));
  const member = answers([28, { status: 200, ms: 1000, tiers: false }], [4, { status: 503, ms: 5, retryAfter: true }]);
  const admin = answers([20, { status: 200, ms: 2000, tiers: true }], [12, { status: 503, ms: 4, retryAfter: true }]);
  // A process that died mid-burst: answers cut, then refused; a 500 and a 503 that said nothing of when to come back.
  const dead = answers([1, { status: 200, ms: 3700, tiers: false }], [2, { status: 'cut', ms: 900 }], [27, { status: 'refused', ms: 2 }], [1, { status: 500, ms: 10 }], [1, { status: 503, ms: 10 }]);
  expect(
    burstTable([
      { caller: 'collaborator (linus@demo.test)', answers: member, rss: { start: 101.4, peak: 160.6 }, after: 'up (/readyz 200)' },
      { caller: 'admin (ada@demo.test)', answers: admin, rss: { start: 100, peak: 170 }, after: 'up (/readyz 200)' },
      { caller: 'collaborator (linus@demo.test)', answers: dead, rss: { peak: 213 }, after: 'exited (SIGABRT)' },
    ]).split('\n'),
  ).toEqual([
    '| burst | requests | 200 | 503 with Retry-After | no answer | other | 200s with tiers | p50 ms of 200s | max ms of 200s | API RSS at start | API RSS peak | API after |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    '| collaborator (linus@demo.test) | 32 | 28 | 4 | 0 | – | 0 of 28 | 1014 | 1027 | 101 MB | 161 MB | up (/readyz 200) |',
    '| admin (ada@demo.test) | 32 | 20 | 12 | 0 | – | 20 of 20 | 2010 | 2019 | 100 MB | 170 MB | up (/readyz 200) |',
    '| collaborator (linus@demo.test) | 32 | 1 | 0 | 29 (2 cut, 27 refused) | 1 × 500, 1 × 503 without Retry-After | 0 of 1 | 3700 | 3700 | ? | 213 MB | exited (SIGABRT) |',
  ]);
});

test('--burst: requests per burst row, each over its own window of at most a year ending on the data\'s last day', () => {
  expect(parseOptions([])?.burst).toBe(32);
  expect(parseOptions(['--burst', '4'])?.burst).toBe(4);
  expect(() => parseOptions(['--burst', '0'])).toThrow(new UsageError('--burst must be a positive integer (got "0")'));
  expect(() => parseOptions(['--burst', '367'])).toThrow(new UsageError('--burst is at most 366 (got 367): each request asks for its own window of at most 366 days'));
  const days = burstFromDays('2026-10-30', 32);
  expect(new Set(days).size).toBe(32);
  // The year ending on the last day (366 days, the longest window the API accepts), then a day shorter each.
  expect([days[0], days[1], days[31]]).toEqual(['2025-10-30', '2025-10-31', '2025-11-30']);
  expect(burstFromDays('2026-10-30', 366)[365]).toBe('2026-10-30');
});
