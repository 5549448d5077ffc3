/**
 * A GitLab listing read newest first by update time (`order_by=updated_at&sort=desc&updated_after=<since>`), a page
 * at a time, with a cursor that survives a stop. The cursor is not a page number alone: items updated while the run
 * goes move to the listing's front, and page N of the next run would skip as many. Each page is asked for as
 * `updated_before=<the previous page's oldest time>` from its first page instead, so what moves to the front leaves
 * the listing behind the cursor and shifts nothing; only a page whose items all share one time steps on by page.
 * The bound is inclusive, so the items at that time come again: the cursor names them, and they are skipped.
 */
import { z } from 'zod';
import { ProviderFailure } from '../../outbound/providerHttp';
import type { HistoryWindow } from '../../services/history/historySource';
import { PER_PAGE } from './historyApi';

/** What the API is asked for: GitLab's own parameter names, as gitbeaker spells them. */
export interface ListingQuery {
  orderBy: 'updated_at';
  sort: 'desc';
  updatedAfter: string;
  updatedBefore?: string;
  page: number;
  perPage: number;
  showExpanded: true;
}

/** One answer of gitbeaker's with `showExpanded`: a page and GitLab's `X-Next-Page`. */
export interface ListedAnswer {
  data: readonly unknown[];
  paginationInfo: { next: number | null };
}

export interface ListedPage {
  /** The page's items updated within the window (at or after `since`), as GitLab sent them. */
  items: unknown[];
  /** How many items the page listed that the page before had not (those at its oldest time come again). */
  read: number;
  /** The cursor that reads this page again. */
  at: string;
  /** The cursor of the next page; null when this one was the window's last. */
  next: string | null;
}

const cursorShape = z.object({ before: z.string().nullable(), page: z.number().int().positive(), seen: z.array(z.number()).default([]) });
type Cursor = z.infer<typeof cursorShape>;

const stamped = z.looseObject({ id: z.number(), updated_at: z.string() });

/** GitLab writes times to the millisecond and keeps microseconds: a bound a millisecond later keeps the boundary's items. */
const MS = 1;

export async function* updatedListing(list: (query: ListingQuery) => Promise<ListedAnswer>, window: HistoryWindow, cursor: string | null, what: string): AsyncGenerator<ListedPage> {
  let at: Cursor = cursor === null ? { before: null, page: 1, seen: [] } : readCursor(cursor, what);
  for (;;) {
    const answer = await list({
      orderBy: 'updated_at',
      sort: 'desc',
      updatedAfter: window.since.toISOString(),
      ...(at.before === null ? {} : { updatedBefore: at.before }),
      page: at.page,
      perPage: PER_PAGE,
      showExpanded: true,
    });
    const listed = answer.data.map((item, i) => ({ item, ...stamp(item, `${what}: item ${i + 1} of page ${at.page}`) }));
    const newest = listed[0]?.at;
    const oldest = listed[listed.length - 1]?.at;
    let next: Cursor | null = null;
    if (answer.paginationInfo.next !== null && oldest !== undefined && newest !== undefined && oldest >= window.since) {
      const before = new Date(oldest.getTime() + MS);
      // A page all of one time: asking below it again would answer the same page.
      next =
        before >= newest
          ? { before: at.before, page: at.page + 1, seen: [] }
          : { before: before.toISOString(), page: 1, seen: listed.filter((l) => l.at.getTime() === oldest.getTime()).map((l) => l.id) };
    }
    const fresh = listed.filter((l) => !at.seen.includes(l.id));
    yield { items: fresh.filter((l) => l.at >= window.since).map((l) => l.item), read: fresh.length, at: JSON.stringify(at), next: next && JSON.stringify(next) };
    if (!next) return;
    at = next;
  }
}

/** The item's id and update time, which the listing's order and cursor read. */
function stamp(item: unknown, what: string): { id: number; at: Date } {
  const parsed = stamped.safeParse(item);
  const at = parsed.success ? new Date(parsed.data.updated_at) : null;
  if (!parsed.success || !at || Number.isNaN(at.getTime())) throw new ProviderFailure(`${what}: no id and updated_at time`);
  return { id: parsed.data.id, at };
}

function readCursor(cursor: string, what: string): Cursor {
  let parsed: ReturnType<typeof cursorShape.safeParse>;
  try {
    parsed = cursorShape.safeParse(JSON.parse(cursor));
  } catch {
    parsed = cursorShape.safeParse(undefined);
  }
  if (!parsed.success) throw new ProviderFailure(`${what}: the stored cursor ${cursor.slice(0, 80)} is not one this importer wrote`);
  return parsed.data;
}
