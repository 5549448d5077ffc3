/**
 * Lists against a baseline saved from main (`--save-baseline`, then `--baseline` on a change): a row whose API
 * serves more than 20 % less than it did fails the run. Rows measured beside the stack floor are compared by
 * API ÷ stack floor, which the machine's other load moves far less than a bare rate; the others by req/s.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Row } from './report';

export const REGRESSION = 0.2;

interface Figure {
  /** API req/s ÷ stack floor req/s, when the stack floor served the path. */
  ofStack?: number;
  rps: number;
}

type Baseline = Record<string, Figure>;

const figureOf = (row: Row): Figure => ({ rps: row.api.rps, ofStack: row.stack && row.stack.rps > 0 ? row.api.rps / row.stack.rps : undefined });

export function saveBaseline(file: string, rows: Row[]): void {
  writeFileSync(file, `${JSON.stringify(Object.fromEntries(rows.map((r) => [r.path, figureOf(r)])), null, 1)}\n`);
}

export function readBaseline(file: string): Baseline {
  return JSON.parse(readFileSync(file, 'utf8')) as Baseline;
}

/** The rows that regressed, each as a line of the report; empty when none did. */
export function regressions(baseline: Baseline, rows: Row[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const before = baseline[row.path];
    if (!before) continue;
    const now = figureOf(row);
    const [was, is, unit] = before.ofStack !== undefined && now.ofStack !== undefined ? [before.ofStack, now.ofStack, '× stack floor'] : [before.rps, now.rps, 'req/s'];
    if (is < was * (1 - REGRESSION)) lines.push(`- \`${row.path}\`: ${is.toFixed(2)} ${unit}, was ${was.toFixed(2)} (${((is / was - 1) * 100).toFixed(0)} %)`);
  }
  return lines;
}
