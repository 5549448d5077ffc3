import type { Model, ModelStatic, WhereOptions } from 'sequelize';
import type { TimeRange } from '../../wire/dates';
import type { ModelInclude } from './includes';
import type { SortOrder } from '../../wire/query';

/** A public field maps to an own column, or to a column of an included (belongs-to) association. */
export type ColumnRef = string | readonly [association: string, column: string];

/**
 * What a list endpoint reads: the scope (where/include) and how a row of `model` becomes a public item. The count
 * cache keys a list by these very conditions (scopeKey.ts), so two lists share a total only when they select the
 * same rows.
 */
export interface ListSource<Item, Row extends Model = Model, Read extends Row = Row> {
  model: ModelStatic<Row>;
  where?: WhereOptions;
  include?: ModelInclude[];
  replacements?: Record<string, unknown>;
  /** Public field → column, for fields that are not own columns of the same name. */
  columns?: Record<string, ColumnRef>;
  /** Tables the `where` reads through literal subqueries: their changes change the total too. */
  alsoReads?: ModelStatic<Model>[];
  /** `Read`: a row as read, with what `include` reads beside it (`{ app: App }`). */
  toItem(row: Read): Item;
  /**
   * A scope that is a set of values of an indexed column (e.g. the caller's organizations). With several values
   * an `IN` defeats the (column, sort, id) index and sorts every matching row; a page is then read as the merge
   * of one ordered index range per value.
   */
  partition?: { column: string; values: string[] };
  /**
   * The scope and its order live on another table: the items are the distinct `key` values of `model`'s rows in
   * the partition (the users who are members of the caller's organizations), which that table's
   * (partition column, sort column, key) indexes read in order; the page's items are then loaded by key.
   */
  keysFrom?: KeyIndex;
}

export interface KeyIndex {
  model: ModelStatic<Model>;
  key: string;
  partition: { column: string; values: string[] };
  /** Public sort and filter field → column of `model`. */
  columns: Record<string, string>;
  /** Which of `model`'s rows count (e.g. active memberships); equalities on index columns after the partition. */
  where?: Record<string, string>;
}

export interface PageRequest {
  page: number;
  perPage: number;
  sort: string;
  order: SortOrder;
  createdAt?: TimeRange;
}

export interface Page<Item> {
  items: Item[];
  total: number;
}
