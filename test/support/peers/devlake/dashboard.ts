import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Apache DevLake's DORA dashboard, whose panels' SQL (MySQL's) test/metrics/devlakeDora.test.ts runs over our data:
 * grafana/dashboards/DORA.json of apache/incubator-devlake at commit 420e494b4ede9a16c4bfb59de099c797bcd7f5f1.
 *
 * The dashboard is read where it lies, never copied into this repository: DEVLAKE_DORA_DASHBOARD names the file, by
 * default ../shared/peers/devlake/DORA.json beside the repository. It must be that commit's file (its SHA-256 below),
 * since the hand-worked figures are that version's. Without it the comparison is skipped, saying where to put it;
 * with REQUIRE_DEVLAKE_DASHBOARD=1 it fails instead.
 *
 * Each query is the panel's `rawSql` untouched but for Grafana's macros and variables, replaced by the fixed values
 * Grafana would put in their place for the window and project asked (grafana.com/docs/grafana/latest/datasources/mysql,
 * "Macros"): `$__timeFrom()` and `$__timeTo()` by `FROM_UNIXTIME(<seconds>)`, `$__timeFilter(expr)` by
 * `expr BETWEEN FROM_UNIXTIME(<from>) AND FROM_UNIXTIME(<to>)`, `$project` and `${project}` by the project's name
 * quoted (a multi-value variable of one value), `$dora_report` by the report year chosen. Anything else that looks
 * like a macro fails the reading, so a new one is never run half-replaced.
 */
export const DEVLAKE_COMMIT = '420e494b4ede9a16c4bfb59de099c797bcd7f5f1';
const DORA_JSON_SHA256 = 'e1d37032f8d1965bd116d11a2dc89257196ab3d95304d8e87c78758e6a87df7b';
const DEFAULT_PATH = path.resolve(__dirname, '../../../../../shared/peers/devlake/DORA.json');

/** The four stat panels the dashboard shows the keys in: id and title in DORA.json. */
export const PANELS = {
  deploymentFrequency: { id: 11, title: 'Deployment Frequency' },
  leadTime: { id: 12, title: 'Median Lead Time for Changes In Hours' },
  changeFailureRate: { id: 14, title: 'Change Failure Rate' },
  // "Failed Deployment Recovery Time" with the 2023 report, "Median Time to Restore Service" with the 2021 one.
  recovery: { id: 17, title: '${title_value} In Hours' },
} as const;
export type Panel = keyof typeof PANELS;

/** The dashboard's `dora_report` variable: which report's definitions and bands its panels use. */
export type DoraReport = '2021' | '2023';

export interface DashboardQuery {
  project: string;
  /** Whole UTC days, both included, as our API's `from` and `to`. */
  from: string;
  to: string;
  report: DoraReport;
}

interface GrafanaPanel {
  id?: number;
  title?: string;
  targets?: { rawSql?: string }[];
  panels?: GrafanaPanel[];
}

export interface Dashboard {
  file: string;
  /** The panel's SQL with the macros replaced for this question. */
  sql(panel: Panel, query: DashboardQuery): string;
}

/** The dashboard, or why it cannot be read (the file is missing). A file of another version throws. */
export function devlakeDashboard(): Dashboard | { missing: string } {
  const file = process.env.DEVLAKE_DORA_DASHBOARD || DEFAULT_PATH;
  if (!fs.existsSync(file)) {
    return { missing: `no DevLake DORA dashboard at ${file}: put grafana/dashboards/DORA.json of apache/incubator-devlake@${DEVLAKE_COMMIT} there, or name it in DEVLAKE_DORA_DASHBOARD` };
  }
  const text = fs.readFileSync(file);
  const digest = createHash('sha256').update(text).digest('hex');
  if (digest !== DORA_JSON_SHA256) throw new Error(`${file} is not DORA.json of apache/incubator-devlake@${DEVLAKE_COMMIT} (SHA-256 ${digest}, expected ${DORA_JSON_SHA256})`);
  const panels = flatten((JSON.parse(text.toString('utf8')) as { panels: GrafanaPanel[] }).panels);
  return {
    file,
    sql(panel, query) {
      const { id, title } = PANELS[panel];
      const found = panels.find((p) => p.id === id);
      const rawSql = found?.targets?.[0]?.rawSql;
      if (found?.title !== title || !rawSql) throw new Error(`${file}: no panel ${id} "${title}" with SQL`);
      return withMacros(rawSql, query);
    },
  };
}

const flatten = (panels: GrafanaPanel[]): GrafanaPanel[] => panels.flatMap((p) => [p, ...flatten(p.panels ?? [])]);

/** Grafana's expansion of the macros and variables the four panels use, for one window and project. */
export function withMacros(rawSql: string, query: DashboardQuery): string {
  const from = `FROM_UNIXTIME(${Date.parse(`${query.from}T00:00:00Z`) / 1000})`;
  // Grafana's range for a last day runs to its final second.
  const to = `FROM_UNIXTIME(${Date.parse(`${query.to}T23:59:59Z`) / 1000})`;
  const project = `'${query.project.replace(/'/g, "''")}'`;
  const sql = replaceTimeFilters(rawSql, from, to)
    .replaceAll('$__timeFrom()', from)
    .replaceAll('$__timeTo()', to)
    .replaceAll('${project}', project)
    .replaceAll('$project', project)
    .replaceAll('$dora_report', query.report);
  // Comments may name anything; only the statement must be free of macros.
  const left = sql
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n')
    .match(/\$[_{a-zA-Z][\w:}]*/g);
  if (left) throw new Error(`macros left unreplaced: ${[...new Set(left)].join(', ')}`);
  return sql;
}

/** `$__timeFilter(expr)`, whose expression may hold parentheses of its own (`max(cdc.finished_date)`). */
function replaceTimeFilters(sql: string, from: string, to: string): string {
  const macro = '$__timeFilter(';
  let out = '';
  let rest = sql;
  for (let at = rest.indexOf(macro); at >= 0; at = rest.indexOf(macro)) {
    let depth = 1;
    let end = at + macro.length;
    for (; depth > 0; end++) {
      if (end >= rest.length) throw new Error('unbalanced $__timeFilter(');
      if (rest[end] === '(') depth++;
      if (rest[end] === ')') depth--;
    }
    const expression = rest.slice(at + macro.length, end - 1);
    out += `${rest.slice(0, at)}${expression} BETWEEN ${from} AND ${to}`;
    rest = rest.slice(end);
  }
  return out + rest;
}
