import { isRecord } from '../wire/record';

/** What a list envelope says about its paging. */
export interface PageMeta {
  page: number;
  per_page: number;
  total_pages: number;
}

function isPageMeta(value: unknown): value is PageMeta {
  return isRecord(value) && typeof value.page === 'number' && typeof value.per_page === 'number' && typeof value.total_pages === 'number';
}

/**
 * The RFC 8288 `Link` header of a list page: `first`, `prev`, `next` and `last`, each the request's own path
 * and query with only `page` changed (path-absolute, so no Host header is trusted). `prev` is left out on the
 * first page and `next` on the last; past the end, `prev` points at the last page. An empty list links
 * `first` and `last` to page 1.
 */
export function pageLinks(path: string, query: URLSearchParams, meta: PageMeta): string {
  const last = Math.max(1, meta.total_pages);
  const target = (page: number) => {
    const params = new URLSearchParams(query);
    params.set('page', String(page));
    return `<${path}?${params.toString()}>`;
  };
  const links: [string, number][] = [['first', 1]];
  if (meta.page > 1) links.push(['prev', Math.min(meta.page - 1, last)]);
  if (meta.page < meta.total_pages) links.push(['next', meta.page + 1]);
  links.push(['last', last]);
  return links.map(([rel, page]) => `${target(page)}; rel="${rel}"`).join(', ');
}

/** The Link header for a procedure's result when it is a list envelope; undefined otherwise. */
export function linkHeaderFor(result: unknown, path: string, query: URLSearchParams): string | undefined {
  const meta = isRecord(result) ? result.meta : undefined;
  return isPageMeta(meta) ? pageLinks(path, query, meta) : undefined;
}
