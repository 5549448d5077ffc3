/** Small SQL builders for the floor server: plain strings and `?` arguments, for mysql2's `query`. */

export interface Sql {
  sql: string;
  args: unknown[];
}

export interface PageQuery {
  sort: string;
  dir: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/**
 * `col = ?` for one value: MariaDB then reads one ordered range of a (col, sort, id) index with no filesort,
 * which an `IN` of several values cannot. An empty set matches nothing, as the API's `IN (NULL)` does.
 */
export function inList(column: string, values: readonly string[]): Sql {
  if (values.length === 0) return { sql: 'FALSE', args: [] };
  if (values.length === 1) return { sql: `${column} = ?`, args: [values[0]] };
  return { sql: `${column} IN (${values.map(() => '?').join(', ')})`, args: [...values] };
}

export function and(...parts: (Sql | undefined)[]): Sql {
  const present = parts.filter((p): p is Sql => p !== undefined);
  return { sql: present.map((p) => `(${p.sql})`).join(' AND '), args: present.flatMap((p) => p.args) };
}

export function or(...parts: Sql[]): Sql {
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), args: parts.flatMap((p) => p.args) };
}

export function count(table: string, where: Sql): Sql {
  return { sql: `SELECT COUNT(*) AS n FROM ${table} WHERE ${where.sql}`, args: where.args };
}

/**
 * One page of a single-table scope, read as a deferred join: the page's ids come from the (scope, sort, id)
 * index alone (forced, so a deep OFFSET never reads full rows), then only those rows are fetched. The
 * join is STRAIGHT so the 50 ids drive the primary-key probes, not the other way round.
 */
export function indexedPage(table: string, columns: string, index: string, where: Sql, q: PageQuery): Sql {
  const order = (alias: string) => `${alias}.${q.sort} ${q.dir}, ${alias}.id ${q.dir}`;
  return {
    sql:
      `SELECT ${columns} FROM (SELECT k.id FROM ${table} k FORCE INDEX (${index}) WHERE ${where.sql} ` +
      `ORDER BY ${order('k')} LIMIT ? OFFSET ?) p STRAIGHT_JOIN ${table} t ON t.id = p.id ORDER BY ${order('t')}`,
    args: [...where.args, q.limit, q.offset],
  };
}

/** A small scope (a few dozen rows at most): sorting it outright is the cheapest plan there is. */
export function smallPage(from: string, where: Sql, orderBy: string, q: PageQuery): Sql {
  return { sql: `${from} WHERE ${where.sql} ORDER BY ${orderBy} LIMIT ? OFFSET ?`, args: [...where.args, q.limit, q.offset] };
}
