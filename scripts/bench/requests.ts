/**
 * What is measured: read from the API's own OpenAPI document rather than listed here, so a list endpoint or
 * sort field added later is benchmarked without anyone remembering to add it.
 */
import type { Fixtures } from './database';
import { NON_DEFAULT_SETTINGS, RowSettings } from './metricSettings';

export interface ListRequest {
  /** Path and query, as requested from both servers. */
  path: string;
  /** The path before its deep page was chosen: what --filter matches. */
  base: string;
  /** Measured on an API started with COUNT_CACHE_TTL_MS=0: no answer is kept (concurrent ones still share one). */
  cacheOff?: boolean;
  /** Measured with the organization's settings of what counts set so (metricSettings.ts), and put back after. */
  settings?: RowSettings;
}

interface Param {
  name: string;
  in: string;
  schema?: { enum?: string[] };
}

interface OpenApiDoc {
  servers?: { url: string }[];
  paths: Record<string, { get?: { parameters?: Param[] } }>;
}

/** Page 1 of every list (a GET with a `sort` parameter), once per sort field, in the document's order. */
export async function listRequests(apiUrl: string, fixtures: Fixtures, log: (s: string) => void): Promise<ListRequest[]> {
  const res = await fetch(`${apiUrl}/v1/openapi.json`);
  if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  const doc = (await res.json()) as OpenApiDoc;
  const prefix = doc.servers?.[0]?.url ?? '/v1';
  const requests: ListRequest[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const sorts = item.get?.parameters?.find((p) => p.name === 'sort' && p.in === 'query')?.schema?.enum;
    if (!sorts) continue;
    let missing: string | undefined;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = (fixtures as unknown as Record<string, string | undefined>)[name];
      if (value === undefined) missing = name;
      return encodeURIComponent(value ?? '');
    });
    if (missing) {
      log(`skipping ${template}: no demo value for {${missing}}`);
      continue;
    }
    for (const sort of sorts) {
      const base = `${prefix}${path}?sort=${sort}`;
      requests.push({ path: base, base });
    }
  }
  return requests;
}

/** Every metric of docs/metrics.md and docs/metrics.md#ai-review-and-cost-figures (financial: the bench's caller is its organization's admin). */
const METRICS = ['dora', 'pull-requests', 'flow', 'activity', 'ai-usage', 'ai-impact', 'collaboration', 'financial'];
const DAY_MS = 86_400_000;
/** The metrics measured once more under settings of what counts that are not the defaults (issue 60). */
const UNDER_SETTINGS = ['dora'];

/**
 * Every metric of the caller's organization and of its largest team, over the 28 and the 366 days ending on the
 * data's last day, in the document's prefix, as dashboards ask (the figures cache on); and each year again with the
 * cache off, so that it measures computing a year cold; DORA's years cold once more under non-default settings of
 * what counts, as they are computed right after an admin changes them. Not lists: measured on the API alone.
 */
export function metricRequests(fixtures: Fixtures, prefix = '/v1'): ListRequest[] {
  const to = fixtures.last_day;
  const daysBefore = (n: number) => new Date(Date.parse(`${to}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
  return METRICS.flatMap((metric) => {
    const years: string[] = [];
    const rows = [`organization_id=${fixtures.organization_id}`, `team_id=${fixtures.team_id}`].flatMap((scope): ListRequest[] => {
      const path = (span: number) => `${prefix}/metrics/${metric}?${scope}&from=${daysBefore(span)}&to=${to}`;
      const year = path(365);
      years.push(year);
      return [{ path: path(27), base: path(27) }, { path: year, base: year }, { path: year, base: year, cacheOff: true }];
    });
    // After both scopes' rows: the settings are set once before these and put back once after them.
    if (!UNDER_SETTINGS.includes(metric)) return rows;
    return [...rows, ...years.map((year) => ({ path: year, base: year, cacheOff: true, settings: NON_DEFAULT_SETTINGS }))];
  });
}

/** The page at about 80 % of a list (capped at 5000), or undefined when that is page 1. */
export function deepPage(request: ListRequest, total: number, perPage: number): ListRequest | undefined {
  const page = Math.min(5000, Math.floor((0.8 * total) / perPage) + 1);
  return page > 1 ? { path: `${request.base}&page=${page}`, base: request.base } : undefined;
}

export function matchesFilters(request: ListRequest, filters: string[]): boolean {
  return filters.length === 0 || filters.some((f) => request.base.includes(f));
}
