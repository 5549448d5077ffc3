/**
 * Rows against a baseline saved from main (`--save-baseline`, then `--baseline` on a change): a row whose API
 * serves more than 20 % less than it did fails the run. Rows measured beside the stack floor are compared by
 * API ÷ stack floor, and ingest rows (`POST …`) by API ÷ ingest floor, which the machine's other load moves far
 * less than a bare rate; the others by req/s. With --baseline every list and metric row is measured twice, the
 * stack floor and the API alternated (stack, API, stack, API, 10 s each at least), and a row is flagged only when
 * it is slower in both alternations: one slow run (a neighbour's load, a collection at the wrong moment) is noise.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { IngestRow, Row } from './report';

export const REGRESSION = 0.2;

interface Figure {
  /** API req/s ÷ stack floor req/s, when the stack floor served the path. */
  ofStack?: number;
  /** API req/s ÷ ingest floor req/s, for an ingest row. */
  ofFloor?: number;
  rps: number;
}

type Baseline = Record<string, Figure>;

const figureOf = (row: Row): Figure => ({ rps: row.api.rps, ofStack: row.stack && row.stack.rps > 0 ? row.api.rps / row.stack.rps : undefined });
const ingestFigureOf = (row: IngestRow): Figure => ({ rps: row.api.rps, ofFloor: row.floor.rps > 0 ? row.api.rps / row.floor.rps : undefined });

/** Every row by its name in the report (a list's path, an ingest row's `POST path`), with each alternation's figure. */
const figures = (rows: Row[], ingest: IngestRow[]): [string, Figure[]][] => [
  ...rows.map((r): [string, Figure[]] => [r.path, [figureOf(r), ...(r.again ? [figureOf({ ...r, ...r.again })] : [])]]),
  ...ingest.map((r): [string, Figure[]] => [`POST ${r.path}`, [ingestFigureOf(r)]]),
];

export function saveBaseline(file: string, rows: Row[], ingest: IngestRow[] = []): void {
  writeFileSync(file, `${JSON.stringify(Object.fromEntries(figures(rows, ingest).map(([name, [first]]) => [name, first])), null, 1)}\n`);
}

export function readBaseline(file: string): Baseline {
  return JSON.parse(readFileSync(file, 'utf8')) as Baseline;
}

/** What a row is compared by: API ÷ stack floor, API ÷ ingest floor, or req/s, whichever both have. */
function compared(before: Figure, now: Figure): [was: number, is: number, unit: string] {
  if (before.ofStack !== undefined && now.ofStack !== undefined) return [before.ofStack, now.ofStack, '× stack floor'];
  if (before.ofFloor !== undefined && now.ofFloor !== undefined) return [before.ofFloor, now.ofFloor, '× ingest floor'];
  return [before.rps, now.rps, 'req/s'];
}

/** The rows that regressed (in every alternation measured), each as a line of the report; empty when none did. */
export function regressions(baseline: Baseline, rows: Row[], ingest: IngestRow[] = []): string[] {
  const lines: string[] = [];
  for (const [name, alternations] of figures(rows, ingest)) {
    const before = baseline[name];
    if (!before) continue;
    const seen = alternations.map((now) => compared(before, now));
    if (!seen.every(([was, is]) => is < was * (1 - REGRESSION))) continue;
    const [was, , unit] = seen[0];
    const change = (is: number) => `${((is / was - 1) * 100).toFixed(0)} %`;
    lines.push(`- \`${name}\`: ${seen.map(([, is]) => is.toFixed(2)).join(' and ')} ${unit}, was ${was.toFixed(2)} (${seen.map(([, is]) => change(is)).join(', ')})`);
  }
  return lines;
}
