/**
 * Rows against a baseline saved from main (`--save-baseline`, then `--baseline` on a change): a row whose API
 * serves more than 20 % less than it did fails the run. Rows measured beside the stack floor are compared by
 * API ÷ stack floor, and ingest rows (`POST …`) by API ÷ ingest floor, which the machine's other load moves far
 * less than a bare rate; the others by req/s.
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

/** Every row by its name in the report: a list's path, an ingest row's `POST path`. */
const figures = (rows: Row[], ingest: IngestRow[]): [string, Figure][] => [
  ...rows.map((r): [string, Figure] => [r.path, figureOf(r)]),
  ...ingest.map((r): [string, Figure] => [`POST ${r.path}`, ingestFigureOf(r)]),
];

export function saveBaseline(file: string, rows: Row[], ingest: IngestRow[] = []): void {
  writeFileSync(file, `${JSON.stringify(Object.fromEntries(figures(rows, ingest)), null, 1)}\n`);
}

export function readBaseline(file: string): Baseline {
  return JSON.parse(readFileSync(file, 'utf8')) as Baseline;
}

/** The rows that regressed, each as a line of the report; empty when none did. */
export function regressions(baseline: Baseline, rows: Row[], ingest: IngestRow[] = []): string[] {
  const lines: string[] = [];
  for (const [name, now] of figures(rows, ingest)) {
    const before = baseline[name];
    if (!before) continue;
    const [was, is, unit] =
      before.ofStack !== undefined && now.ofStack !== undefined
        ? [before.ofStack, now.ofStack, '× stack floor']
        : before.ofFloor !== undefined && now.ofFloor !== undefined
          ? [before.ofFloor, now.ofFloor, '× ingest floor']
          : [before.rps, now.rps, 'req/s'];
    if (is < was * (1 - REGRESSION)) lines.push(`- \`${name}\`: ${is.toFixed(2)} ${unit}, was ${was.toFixed(2)} (${((is / was - 1) * 100).toFixed(0)} %)`);
  }
  return lines;
}
