/**
 * A provider's pages as the history runner stores them (docs/history.md#how-a-run-goes): consecutive pages of one
 * scope's kind joined until they bring enough to be worth a change of their own. Some listings come in pieces far
 * smaller than a page: GitLab reads a merge request's notes and approvals apart from its listing, Bitbucket a pull
 * request's activity log, so a year came as a thousand changes of one or two items, each paying its transaction,
 * cursor, lease and data versions. Joined, a batch is stored as one page would be: with the last page's cursor, so a run
 * stopped before its commit reads the batch's pages again and finds its rows.
 */
import type { HistoryPage } from './historySource';

export interface BatchLimits {
  /** A batch is stored once it holds this many things to write (pull requests, reviews, tasks, incidents, messages). */
  items: number;
  /** …or once its first page has waited this long for the rest: progress and the lease move with what is stored. */
  heldMs: number;
}

export const BATCH_LIMITS: BatchLimits = { items: 200, heldMs: 5_000 };

/**
 * The pages joined into batches within the limits, each batch as one page, in order. A provider's failure after some
 * pages were read stores those first (the batch is handed out, then the failure is thrown), as page by page did.
 */
export async function* batchedPages(pages: AsyncIterable<HistoryPage>, limits: BatchLimits = BATCH_LIMITS, now: () => number = Date.now): AsyncGenerator<HistoryPage> {
  let held: HistoryPage | null = null;
  let heldSince = 0;
  try {
    for await (const page of pages) {
      if (held === null) heldSince = now();
      held = held === null ? page : joined(held, page);
      if (page.next === null || itemsOf(held) >= limits.items || now() - heldSince >= limits.heldMs) {
        yield held;
        held = null;
      }
    }
  } catch (err) {
    if (held !== null) yield held;
    throw err;
  }
  if (held !== null) yield held;
}

function itemsOf(page: HistoryPage): number {
  return (page.activities?.length ?? 0) + (page.tasks?.length ?? 0) + (page.operations?.length ?? 0) + (page.messages?.length ?? 0);
}

/** Two consecutive pages as one: what both brought, in order, with the later one's cursor. */
function joined(first: HistoryPage, then: HistoryPage): HistoryPage {
  const both = <T>(a: T[] | undefined, b: T[] | undefined): T[] | undefined => (a && b ? [...a, ...b] : (a ?? b));
  return {
    read: first.read + then.read,
    activities: both(first.activities, then.activities),
    tasks: both(first.tasks, then.tasks),
    operations: both(first.operations, then.operations),
    messages: both(first.messages, then.messages),
    next: then.next,
  };
}

/**
 * The batches with the next one read while the last is stored: the provider's answers and the database's take turns
 * otherwise, each waiting for the other. One batch ahead at most, so memory holds two batches at most. A failure of
 * the read ahead is thrown when its turn comes, after the batches before it are stored, as reading in turn would. A
 * run that stops early (its store failed) with a read under way calls `stopReading` first, so that the read does not
 * wait out a rate limit's reset (up to 15 minutes) before the run can say why it stopped, then ends the source.
 */
export async function* readAhead<T>(batches: AsyncIterable<T>, stopReading: () => void): AsyncGenerator<T> {
  const iterator = batches[Symbol.asyncIterator]();
  let next = iterator.next();
  let underWay = true;
  try {
    for (;;) {
      const result = await next;
      if (result.done) break;
      next = iterator.next();
      // Awaited at its turn; until then its failure is no one's yet.
      next.catch(() => undefined);
      yield result.value;
    }
    underWay = false;
  } catch (err) {
    underWay = false;
    throw err;
  } finally {
    if (underWay) stopReading();
    await iterator.return?.();
  }
}
