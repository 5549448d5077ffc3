import { isRecord } from '../wire/record';
import { ScimError } from './errors';
import { MAX_RESULTS } from './discovery';

/** The query parameters of a SCIM list or read (RFC 7644 §3.4.2), checked. */
export interface ListQuery {
  filter?: string;
  /** 1-based. */
  startIndex: number;
  count: number;
  attributes?: string[];
  excludedAttributes?: string[];
}

const KNOWN = new Set(['filter', 'startindex', 'count', 'attributes', 'excludedattributes', 'sortby', 'sortorder']);

// Past this a page is past any organization's end; the database would refuse an offset beyond its integers.
const MAX_START_INDEX = 1_000_000_000;

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw new ScimError(400, 'invalidValue', `'${name}' must be an integer, not '${value}'`);
  const n = Number(value);
  if (n > MAX_START_INDEX) throw new ScimError(400, 'invalidValue', `'${name}' must be at most ${MAX_START_INDEX}`);
  return n;
}

function names(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(',').map((n) => n.trim()).filter(Boolean);
  return list.length ? list : undefined;
}

export function listQueryOf(query: Record<string, unknown>): ListQuery {
  const q: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(query)) {
    const k = key.toLowerCase();
    if (!KNOWN.has(k)) throw new ScimError(400, 'invalidValue', `Unknown query parameter '${key}'; use filter, startIndex, count, attributes or excludedAttributes`);
    if (typeof value !== 'string') throw new ScimError(400, 'invalidValue', `Query parameter '${key}' must be given once`);
    q[k] = value;
  }
  // Declared unsupported in ServiceProviderConfig (docs/scim.md: 501 where called).
  if (q.sortby !== undefined || q.sortorder !== undefined) throw new ScimError(501, undefined, 'Sorting is not supported (ServiceProviderConfig sort.supported is false)');
  if (q.attributes !== undefined && q.excludedattributes !== undefined) {
    throw new ScimError(400, 'invalidValue', "Give either 'attributes' or 'excludedAttributes', not both");
  }
  // RFC 7644 §3.4.2.4: a startIndex below 1 is 1, a negative count is 0, and a count above the maximum is lowered.
  return {
    filter: q.filter,
    startIndex: Math.max(1, integer('startIndex', q.startindex, 1)),
    count: Math.min(MAX_RESULTS, Math.max(0, integer('count', q.count, MAX_RESULTS))),
    attributes: names(q.attributes),
    excludedAttributes: names(q.excludedattributes),
  };
}

const ALWAYS = new Set(['id', 'schemas']);

/**
 * `attributes` / `excludedAttributes` (RFC 7644 §3.9) on a resource: names are case-insensitive, may be
 * sub-attributes (`name.givenName`) or carry the schema URN; `id` and `schemas` are always returned.
 */
export function project(answer: object, query: Pick<ListQuery, 'attributes' | 'excludedAttributes'>, urn: string): Record<string, unknown> {
  const resource: Record<string, unknown> = { ...answer };
  const paths = (list: string[]) =>
    list.map((n) => {
      const lower = n.toLowerCase();
      const bare = lower.startsWith(`${urn.toLowerCase()}:`) ? lower.slice(urn.length + 1) : lower;
      const [top, sub] = bare.split('.', 2);
      return { top, sub };
    });
  const keyOf = (object: Record<string, unknown>, lower: string) => Object.keys(object).find((k) => k.toLowerCase() === lower);
  if (query.attributes) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(resource)) if (ALWAYS.has(k)) out[k] = resource[k];
    for (const { top, sub } of paths(query.attributes)) {
      const key = keyOf(resource, top);
      if (!key) continue;
      const value = resource[key];
      if (!sub || !isRecord(value)) {
        out[key] = value;
        continue;
      }
      const subKey = keyOf(value, sub);
      if (!subKey) continue;
      const sofar = out[key];
      out[key] = { ...(isRecord(sofar) ? sofar : {}), [subKey]: value[subKey] };
    }
    return out;
  }
  if (query.excludedAttributes) {
    const out: Record<string, unknown> = { ...resource };
    for (const { top, sub } of paths(query.excludedAttributes)) {
      const key = keyOf(out, top);
      if (!key || ALWAYS.has(key)) continue;
      const value = out[key];
      if (!sub) delete out[key];
      else if (isRecord(value)) {
        const copy = { ...value };
        const subKey = keyOf(copy, sub);
        if (subKey) delete copy[subKey];
        out[key] = copy;
      }
    }
    return out;
  }
  return resource;
}
