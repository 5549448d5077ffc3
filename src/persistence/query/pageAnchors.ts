import { Model, ModelStatic, Op, WhereOptions } from 'sequelize';
import { findKeptRaw } from './statements';

/**
 * Deep pages without walking the index from the start. An OFFSET of 250,000 reads 250,000 index entries on
 * every request; instead, the list's order is cut into blocks of `blockSize` positions, and the item just before
 * a block starts (its anchor: sort value and id) is remembered. A page in block b is then read as "after the
 * anchor of b, skip what remains", which reads at most one block. An anchor is found from the nearest lower
 * anchor already known, so a client paging forward pays one block per block, and a jump deep into a cold list
 * pays one walk, once.
 *
 * Anchors are kept per list key, which includes the versions of the tables the list reads: a change through the
 * service starts new anchors. A change behind its back is seen when the entry expires (`ttlMs`); until then a
 * page boundary may be off by the rows changed, never a page's order or scope.
 */
export interface Anchor {
  sortValue: unknown;
  id: unknown;
}

interface Entry {
  anchors: Map<number, Anchor>;
  expires: number;
}

/** Finds the anchor of block `block` by walking from `from` (the anchor of block `fromBlock`, or the start). */
export type AnchorSeek = (from: { block: number; anchor: Anchor } | undefined, block: number) => Promise<Anchor | undefined>;

export class PageAnchors {
  private readonly lists = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Anchor | undefined>>();

  constructor(
    readonly blockSize: number,
    private readonly ttlMs: number,
    private readonly maxLists = 200,
  ) {}

  /** The anchor before block `block` (undefined for block 0, or past the end of the list). */
  async anchorOf(listKey: string, block: number, seek: AnchorSeek, now = Date.now()): Promise<Anchor | undefined> {
    if (block === 0) return undefined;
    const entry = this.entry(listKey, now);
    const known = entry.anchors.get(block);
    if (known) return known;
    const pendingKey = `${listKey}#${block}`;
    let running = this.pending.get(pendingKey);
    if (!running) {
      running = seek(this.nearestBelow(entry, block), block).finally(() => this.pending.delete(pendingKey));
      this.pending.set(pendingKey, running);
      running.then((anchor) => anchor && entry.anchors.set(block, anchor), () => undefined);
    }
    return running;
  }

  private nearestBelow(entry: Entry, block: number): { block: number; anchor: Anchor } | undefined {
    let best: { block: number; anchor: Anchor } | undefined;
    for (const [b, anchor] of entry.anchors) if (b < block && (!best || b > best.block)) best = { block: b, anchor };
    return best;
  }

  private entry(listKey: string, now: number): Entry {
    const existing = this.lists.get(listKey);
    if (existing && existing.expires > now) return existing;
    if (existing) this.lists.delete(listKey);
    if (this.lists.size >= this.maxLists) {
      const oldest = this.lists.keys().next().value;
      if (oldest !== undefined) this.lists.delete(oldest);
    }
    const fresh: Entry = { anchors: new Map(), expires: now + this.ttlMs };
    this.lists.set(listKey, fresh);
    return fresh;
  }
}

/** One ordered index range: the rows of `where` in (sortColumn, idColumn) order. */
export interface OrderedRange {
  model: ModelStatic<Model>;
  where: WhereOptions;
  sortColumn: string;
  idColumn: string;
  direction: 'ASC' | 'DESC';
}

/** Rows strictly after `anchor` in the range's order; written out, since MariaDB walks no index for `(a, b) < (x, y)`. */
function after(range: OrderedRange, anchor: Anchor): WhereOptions {
  const beyond = range.direction === 'DESC' ? Op.lt : Op.gt;
  return {
    [Op.or]: [
      { [range.sortColumn]: { [beyond]: anchor.sortValue } },
      { [range.sortColumn]: anchor.sortValue, [range.idColumn]: { [beyond]: anchor.id } },
    ],
  };
}

async function readKeys(range: OrderedRange, from: Anchor | undefined, limit: number, offset: number): Promise<Record<string, unknown>[]> {
  return findKeptRaw(range.model, {
    attributes: [range.sortColumn, range.idColumn],
    where: from ? { [Op.and]: [range.where, after(range, from)] } : range.where,
    order: [
      [range.sortColumn, range.direction],
      [range.idColumn, range.direction],
    ],
    limit,
    offset,
  });
}

/** The ids of the page at `offset`, read from the nearest anchor: at most one block of index entries. */
export async function anchoredKeys(anchors: PageAnchors, listKey: string, range: OrderedRange, limit: number, offset: number): Promise<unknown[]> {
  const size = anchors.blockSize;
  const block = Math.floor(offset / size);
  const anchor = await anchors.anchorOf(listKey, block, async (from, target) => {
    // The anchor of block `target` is the item at position target * size - 1.
    const [row] = await readKeys(range, from?.anchor, 1, target * size - 1 - (from ? from.block * size : 0));
    return row && { sortValue: row[range.sortColumn], id: row[range.idColumn] };
  });
  if (block > 0 && !anchor) return []; // the list ends before this block
  const rows = await readKeys(range, anchor, limit, offset - block * size);
  return rows.map((r) => r[range.idColumn]);
}
