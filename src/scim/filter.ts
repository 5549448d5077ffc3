import { Filter, parse } from 'scim2-parse-filter';
import { ScimError } from './errors';

/**
 * Past these a filter is no identity provider's: the databases refuse statements nested deeper than about a
 * thousand expressions (SQLite's limit), which would be a 500; a client gets a 400 saying so instead.
 */
export const MAX_FILTER_DEPTH = 20;
export const MAX_FILTER_TERMS = 100;

const invalidFilter = (detail: string) => new ScimError(400, 'invalidFilter', detail);

/** A `filter` parameter or PATCH value path (RFC 7644 §3.4.2.2), parsed; what it names is checked where it is run. */
export function parseFilter(text: string): Filter {
  let filter: Filter;
  try {
    filter = parse(text);
  } catch (e) {
    throw invalidFilter(
      `The filter '${text.slice(0, 200)}' cannot be parsed (${e instanceof Error ? e.message : String(e)}); filters look like userName eq "ada@example.com" ` +
        'or (name.familyName sw "L" and active eq true)',
    );
  }
  const { depth, terms } = sizeOf(filter);
  if (depth > MAX_FILTER_DEPTH) throw invalidFilter(`The filter nests ${depth} levels deep; at most ${MAX_FILTER_DEPTH} are allowed`);
  if (terms > MAX_FILTER_TERMS) throw invalidFilter(`The filter has ${terms} comparisons; at most ${MAX_FILTER_TERMS} are allowed`);
  return filter;
}

/** How deep a parsed filter nests and how many comparisons it holds (walked with a stack of its own). */
function sizeOf(filter: Filter): { depth: number; terms: number } {
  let depth = 0;
  let terms = 0;
  const pending: [Filter, number][] = [[filter, 1]];
  while (pending.length > 0) {
    const [f, level] = pending.pop()!;
    depth = Math.max(depth, level);
    if (f.op === 'and' || f.op === 'or') for (const child of f.filters) pending.push([child, level + 1]);
    else if (f.op === 'not') pending.push([f.filter, level + 1]);
    else if (f.op === '[]') pending.push([f.valFilter, level + 1]);
    else terms++;
  }
  return { depth, terms };
}
