import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IngestRow, listSummary, Row } from '../../scripts/bench/report';
import { readBaseline, regressions, saveBaseline } from '../../scripts/bench/baseline';

/** What `npm run bench` concludes from its rows: the ratios issue 23 sets targets on, and regressions against main. */

const at = (rps: number) => ({ rps, p50: 10, p99: 20, non2xx: 0, errors: 0, seconds: 2 });
const row = (p: string, floor: number, stack: number, api: number): Row => ({ path: p, floor: at(floor), stack: at(stack), api: at(api) });

const rows = [
  row('/v1/teams?sort=name', 1000, 800, 640),
  row('/v1/teams?sort=name&page=52', 900, 700, 350),
  row('/v1/git/apps?sort=name', 2000, 1000, 900),
  { path: '/v1/metrics/dora?organization_id=o', api: at(500) },
];

test('the list summary: API ÷ stack floor median, by page 1 and deep pages, the lowest row, rows under 0.6, API ÷ floor median', () => {
  expect(listSummary(rows)).toBe(
    '\nLists (3 rows the floors serve): API ÷ stack floor median 0.80 (page 1: 0.85, deep pages: 0.50), lowest 0.50 ' +
      '(`/v1/teams?sort=name&page=52`), 1 row under 0.6; API ÷ floor median 0.45.',
  );
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
