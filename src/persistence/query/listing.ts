import {
  CountOptions,
  FindOptions,
  Model,
  ModelStatic,
  Op,
  Order,
  QueryTypes,
  WhereOptions,
} from 'sequelize';

import type { TimeRange } from '../../wire/dates';
import { CountCache } from './countCache';
import { selectSql } from './selectSql';
import type { DataVersions } from './dataVersions';
import { anchoredKeys, OrderedRange, PageAnchors } from './pageAnchors';
import { findPlain } from './plainRows';
import { findKeptRaw } from './statements';
import type { ColumnRef, KeyIndex, ListSource, Page, PageRequest } from './listSource';
import { scopeKey } from './scopeKey';

type OrderItem = Extract<Order, unknown[]>[number];

function orderPath(ref: ColumnRef, direction: string): OrderItem {
  return typeof ref === 'string' ? [ref, direction] : [ref[0], ref[1], direction];
}

function whereKey(ref: ColumnRef): string {
  return typeof ref === 'string' ? ref : `$${ref[0]}.${ref[1]}$`;
}

/** The `created_at[...]` filters as a condition on `column` (none without a range). */
function createdAtConditions(column: string, range: TimeRange | undefined): WhereOptions[] {
  if (!range?.from && !range?.before) return [];
  const bounds: Record<symbol, Date> = {};
  if (range.from) bounds[Op.gte] = range.from;
  if (range.before) bounds[Op.lt] = range.before;
  return [{ [column]: bounds }];
}

export interface ListingOptions {
  /**
   * From this offset on, a page is read in two steps (a deferred join): first only the keys of the page, which
   * the (scope, sort, id) indexes answer without touching rows, then those rows. A plain OFFSET query reads and
   * discards every full row before the page.
   */
  deferredJoinOffset: number;
  /**
   * A multi-value partition is merged while each branch reads at most this many keys; deeper, one deferred
   * join over the whole scope sorts less than the merge of every branch's first offset + limit keys.
   */
  mergeMaxRows: number;
}

/**
 * Deep pages start where a page would otherwise read more index entries than this; anchors are this far apart,
 * so a deep page reads at most this many entries plus its own (page 1 reads its own). At 1000 a deep page of a
 * 2,600-team list served a third of page 1's requests; at 250 it stays within a few tens of percent.
 */
const DEEP_PAGE_BLOCK = 250;

export class ListingService {
  constructor(
    private readonly versions: DataVersions,
    private readonly counts: CountCache,
    private readonly options: ListingOptions = { deferredJoinOffset: DEEP_PAGE_BLOCK, mergeMaxRows: 10_000 },
    private readonly anchors = new PageAnchors(DEEP_PAGE_BLOCK, counts.ttlMs),
  ) {}

  /**
   * What identifies one list for the caches: scope, filter, order, and the versions of the tables it reads.
   * Read at most once a request.
   */
  private listIdentity(source: ListSource<unknown>, request: PageRequest) {
    let versions: Promise<string> | undefined;
    const range = request.createdAt;
    const scope = `${scopeKey(source)}|${range?.from?.toISOString() ?? ''}|${range?.before?.toISOString() ?? ''}`;
    const withVersions = async (suffix: string) => `${scope}|${suffix}|${await (versions ??= this.versions.of(tablesRead(source)))}`;
    return { countKey: () => withVersions('count'), orderKey: () => withVersions(`${request.sort} ${request.order}`) };
  }

  async fetchPage<Item, Row extends Model, Read extends Row>(source: ListSource<Item, Row, Read>, request: PageRequest): Promise<Page<Item>> {
    if (source.keysFrom) return this.fetchKeyedPage(source, source.keysFrom, request);
    const column = (field: string): ColumnRef => source.columns?.[field] ?? field;
    const direction: 'ASC' | 'DESC' = request.order === 'asc' ? 'ASC' : 'DESC';
    const conditions: WhereOptions[] = source.where ? [source.where] : [];
    const partition = source.partition;
    conditions.push(...createdAtConditions(whereKey(column('created_at')), request.createdAt));
    const and = (parts: WhereOptions[]): WhereOptions => (parts.length === 1 ? parts[0] : { [Op.and]: parts });
    const where = and(partition ? [...conditions, { [partition.column]: { [Op.in]: partition.values } }] : conditions);
    const offset = (request.page - 1) * request.perPage;

    // Ties are broken by id in the same direction, so pages never repeat or skip items.
    const order = [orderPath(column(request.sort), direction), orderPath(column('id'), direction)];
    const sortColumn = column(request.sort);
    const idColumn = column('id');
    const perPartition =
      partition && partition.values.length > 1 && !source.include && typeof sortColumn === 'string' && typeof idColumn === 'string'
        ? { branches: partition.values.map((v) => and([...conditions, { [partition.column]: v }])), sortColumn, idColumn }
        : undefined;
    const identity = this.listIdentity(source, request);
    // One ordered index range (no join, one partition at most): deep pages are read from anchors.
    const oneRange: OrderedRange | undefined =
      !source.include && !source.replacements && typeof sortColumn === 'string' && typeof idColumn === 'string' && !(partition && partition.values.length > 1)
        ? { model: source.model, where, sortColumn, idColumn, direction }
        : undefined;
    const rows = await this.readPage(source, { where, order }, perPartition, direction, request.perPage, offset, oneRange && { range: oneRange, key: identity.orderKey });

    // `replacements` is honoured by count at run time; Sequelize's typings only omit it from CountOptions.
    const countOptions: CountOptions & Pick<FindOptions, 'replacements'> = { where, include: source.include, replacements: source.replacements };
    const total = await this.totalOf(request, rows.length, offset, identity.countKey, () => source.model.count(countOptions));
    return { items: rows.map((r) => source.toItem(r)), total };
  }

  /**
   * The list's total. A short page tells it without counting (an empty page past the end does not); otherwise
   * the count cache answers, keyed by the versions of the tables the list reads, so a write through the service
   * makes every instance count again (src/persistence/query/dataVersions.ts).
   */
  private async totalOf(
    request: PageRequest,
    seen: number,
    offset: number,
    countKey: () => Promise<string>,
    count: () => Promise<number>,
  ): Promise<number> {
    if (seen > 0 && seen < request.perPage) return offset + seen;
    if (seen === 0 && offset === 0) return 0;
    const counted = await this.counts.getOrCount(await countKey(), count);
    // A cached total may be older than the page just read; never report fewer items than we can see
    // (an empty page past the end shows none, so it must not raise the total to its offset).
    return Math.max(counted, seen > 0 ? offset + seen : 0);
  }

  /**
   * A page of a `keysFrom` list: the page's keys from the key table's (partition, sort, key) index (one range,
   * or the union of one range per partition value, duplicates removed), then the items by key.
   */
  private async fetchKeyedPage<Item, Row extends Model, Read extends Row>(source: ListSource<Item, Row, Read>, index: KeyIndex, request: PageRequest): Promise<Page<Item>> {
    const direction = request.order === 'asc' ? 'ASC' : 'DESC';
    const sortColumn = index.columns[request.sort] ?? request.sort;
    const conditions = [...(index.where ? [index.where] : []), ...createdAtConditions(index.columns.created_at, request.createdAt)];
    const { column: partitionColumn, values } = index.partition;
    const branches = values.map((v) => ({ [Op.and]: [...conditions, { [partitionColumn]: v }] }));
    const whole: WhereOptions = { [Op.and]: [...conditions, { [partitionColumn]: { [Op.in]: values } }] };
    const offset = (request.page - 1) * request.perPage;
    const limit = request.perPage;

    const order: Order = [
      [sortColumn, direction],
      [index.key, direction],
    ];
    const readKeys = async (where: WhereOptions, group?: string[]) =>
      (await findKeptRaw<Record<string, string>>(index.model, { attributes: [index.key], where, group, order, limit, offset })).map((r) => r[index.key]);
    // One partition: one index range. Several: the merge of their ranges while shallow; deeper, one grouped
    // (distinct) read of the whole scope sorts less than every branch's first offset + limit entries.
    const identity = this.listIdentity(source, request);
    const oneRange: OrderedRange = { model: index.model, where: branches[0], sortColumn, idColumn: index.key, direction };
    const keys =
      values.length === 1
        ? offset >= this.options.deferredJoinOffset
          ? await anchoredKeys(this.anchors, await identity.orderKey(), oneRange, limit, offset)
          : await readKeys(branches[0])
        : offset + limit <= this.options.mergeMaxRows
          ? await this.mergedKeys(index.model, branches, [sortColumn, index.key], direction, limit, offset, true)
          : await readKeys(whole, [index.key, sortColumn]);

    const found = keys.length ? await findPlain<Row, Read>(source.model, { where: { id: { [Op.in]: keys } } }) : [];
    const byId = new Map(found.map((row): [unknown, Read] => [Reflect.get(row, 'id'), row]));
    const rows = keys.map((k) => byId.get(k)).filter((row): row is Read => row !== undefined);
    const total = await this.totalOf(request, rows.length, offset, identity.countKey, () =>
      index.model.count({ where: whole, ...(values.length > 1 ? { distinct: true, col: index.key } : {}) }),
    );
    return { items: rows.map((r) => source.toItem(r)), total };
  }

  /** Picks how to read the page: a merge of per-partition ranges, a deferred join, or a plain OFFSET query. */
  private async readPage<Item, Row extends Model, Read extends Row>(
    source: ListSource<Item, Row, Read>,
    { where, order }: { where: WhereOptions; order: Order },
    perPartition: { branches: WhereOptions[]; sortColumn: string; idColumn: string } | undefined,
    direction: 'ASC' | 'DESC',
    limit: number,
    offset: number,
    anchored?: { range: OrderedRange; key: () => Promise<string> },
  ): Promise<Read[]> {
    if (anchored && offset >= this.options.deferredJoinOffset) {
      const { range } = anchored;
      const keys = await anchoredKeys(this.anchors, await anchored.key(), range, limit, offset);
      if (keys.length === 0) return [];
      return findPlain<Row, Read>(source.model, { where: { [Op.and]: [range.where, { [range.idColumn]: { [Op.in]: keys } }] }, order });
    }
    if (perPartition && offset + limit <= this.options.mergeMaxRows) {
      const { sortColumn, idColumn } = perPartition;
      const keys = await this.mergedKeys(source.model, perPartition.branches, [sortColumn, idColumn], direction, limit, offset, false);
      if (keys.length === 0) return [];
      const order: Order = [
        [sortColumn, direction],
        [idColumn, direction],
      ];
      return findPlain<Row, Read>(source.model, { where: { [idColumn]: { [Op.in]: keys } }, order });
    }
    const query = { where, include: source.include, replacements: source.replacements, order, subQuery: false };
    if (offset >= this.options.deferredJoinOffset) return this.deferredPage(source, query, limit, offset);
    return findPlain<Row, Read>(source.model, { ...query, limit, offset });
  }

  /**
   * The keys of one page of the union of several ordered branches: each branch reads at most offset + limit
   * entries from its own index range, and the database merges them. `distinct` drops an item that several
   * branches hold (a user in two organizations); it is at least as far up in each of its branches as in the
   * union, so every branch's first offset + limit entries still hold the whole page.
   */
  private async mergedKeys(
    model: ModelStatic<Model>,
    branches: WhereOptions[],
    [sortColumn, idColumn]: [string, string],
    direction: 'ASC' | 'DESC',
    limit: number,
    offset: number,
    distinct: boolean,
  ): Promise<string[]> {
    const sequelize = model.sequelize!;
    const order: Order = [
      [sortColumn, direction],
      [idColumn, direction],
    ];
    // Values are escaped by Sequelize's own query generator, exactly as in findAll; limit and offset are
    // integers validated by the input schema.
    const branchSql = branches.map((where, i) => {
      const sql = selectSql(model, { attributes: [idColumn, sortColumn], where, order, limit: offset + limit });
      return `SELECT * FROM (${sql}) AS branch_${i}`;
    });
    const q = (name: string) => sequelize.getQueryInterface().quoteIdentifier(name);
    const keys = await sequelize.query<{ id: string }>(
      `SELECT merged.${q(idColumn)} AS id FROM (${branchSql.join(distinct ? ' UNION ' : ' UNION ALL ')}) AS merged ` +
        `ORDER BY merged.${q(sortColumn)} ${direction}, merged.${q(idColumn)} ${direction} ` +
        `LIMIT ${Math.trunc(limit)} OFFSET ${Math.trunc(offset)}`,
      { type: QueryTypes.SELECT },
    );
    return keys.map((k) => k.id);
  }

  private async deferredPage<Item, Row extends Model, Read extends Row>(
    source: ListSource<Item, Row, Read>,
    query: FindOptions & { order: Order },
    limit: number,
    offset: number,
  ): Promise<Read[]> {
    const keyColumns = source.model.primaryKeyAttributes;
    const keys = await findKeptRaw(source.model, {
      ...query,
      attributes: [...keyColumns],
      include: source.include?.map((i) => ({ ...i, attributes: [] })),
      limit,
      offset,
    });
    if (keys.length === 0) return [];
    const byKey: WhereOptions =
      keyColumns.length === 1 ? { [keyColumns[0]]: { [Op.in]: keys.map((k) => k[keyColumns[0]]) } } : { [Op.or]: keys };
    return findPlain<Row, Read>(source.model, { include: source.include, order: query.order, where: byKey, subQuery: false });
  }
}

/** The tables a list's rows and scope come from: a change to any of them may change its total. */
function tablesRead(source: ListSource<unknown>): string[] {
  const included = (source.include ?? []).map((i) => i.model);
  return [source.model, ...(source.keysFrom ? [source.keysFrom.model] : []), ...included, ...(source.alsoReads ?? [])].map((m) => m.tableName);
}

/** Reads one row of a list's scope (a get-one endpoint addressing an item of that list). */
export async function findInScope<Item, Row extends Model, Read extends Row>(source: ListSource<Item, Row, Read>, where: WhereOptions): Promise<Item | undefined> {
  const [row] = await findPlain<Row, Read>(source.model, {
    where: source.where ? { [Op.and]: [source.where, where] } : where,
    include: source.include,
    replacements: source.replacements,
    limit: 1,
  });
  return row ? source.toItem(row) : undefined;
}
