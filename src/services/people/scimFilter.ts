import { col, fn, literal, Op, Sequelize, where, WhereOptions } from 'sequelize';
import type { Filter } from 'scim2-parse-filter';
import { invalid } from '../../errors';
import { whereSql } from '../../persistence/query/selectSql';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) as `where` conditions, so a filtered list pages in the database like any
 * other. The SCIM surface parses the expression (src/scim/filter.ts); this module maps each attribute path to a
 * whitelisted column and each operator to a condition. Attribute names are case-insensitive and may carry their
 * schema URN. A filter naming what cannot be filtered is an `invalid` error about the `filter`.
 *
 * Every condition is true or false, never SQL's unknown: a comparison with an absent attribute is false and its
 * negation true, as RFC 7644 has it (`not (title eq "x")` keeps the members without a title).
 */

export type AttributeType = 'string' | 'boolean' | 'dateTime' | 'reference';

/** Rows of another table an attribute lives in, tied to the listed row (a user's name parts, their e-mails). */
export interface RelatedTable {
  table: string;
  alias: string;
  /** The SQL that ties a row of it to the listed row, such as `ue.user_id = organization_membership.user_id`. */
  correlation: string;
}

export interface FilterAttribute {
  /** The column (as the list query names it, or `alias.column` of a related table) this attribute reads. */
  column: string;
  type: AttributeType;
  /** RFC 7643 `caseExact`: false compares case-insensitively. */
  caseExact: boolean;
  /** The column holds lower-cased values (e-mail addresses): a value is lower-cased instead of the column. */
  storedLowerCase?: boolean;
  /** What the attribute is when the column has no value (e.g. `meta.lastModified` is `meta.created`). */
  fallbackColumn?: string;
  /** How a boolean is stored when the column is not one (`active` is the membership's `status`). */
  stored?: { true: string; false: string };
  /**
   * An attribute that is no column of the listed table (a Group's `members.value`): its own condition for
   * `eq` (and `pr`), built from a value it has checked.
   */
  condition?: (value: string | null) => WhereOptions;
  /** A constant attribute of every resource (`emails.type` of an unnamed address is "work"): decided here, not in SQL. */
  constant?: string | boolean;
}

/** A complex attribute whose values are rows of a related table: a filter on them asks whether one value matches. */
export interface ComplexAttribute {
  related: RelatedTable;
  /** Sub-attribute (lower-cased) → where it is stored. */
  attributes: Record<string, FilterAttribute>;
  /** The one value a resource without rows has (a user's userName as a primary work address). */
  implicit?: Record<string, FilterAttribute>;
}

export interface FilterSchema {
  /** The core schema URN, which may prefix attribute names. */
  urn: string;
  /** Lower-cased attribute path (`username`, `meta.created`) → attribute of the listed row. */
  attributes: Record<string, FilterAttribute>;
  /** Lower-cased complex attribute (`emails`, `name`) → its sub-attributes, stored in a related table. */
  related?: Record<string, ComplexAttribute>;
  /** Multi-valued attributes whose `x[...]` selects values of the listed row's own columns (`roles`, `members`). */
  complex: string[];
  /** Renders conditions on a related table as SQL (the listed model's connection). */
  sequelize: () => Sequelize;
}

// A comparison with a constant attribute is decided here; the query gets its outcome.
const TRUE: WhereOptions = { [Op.and]: [literal('1 = 1')] };
const NEVER: WhereOptions = { [Op.and]: [literal('1 = 0')] };

const invalidFilter = (detail: string) => invalid(detail, { field: 'filter' });

/** The `where` for a parsed filter over the schema's attributes. */
export function filterToWhere(filter: Filter, schema: FilterSchema): WhereOptions {
  return translate(filter, schema, schema.attributes);
}

/** The names a client may filter on, for messages. */
function knownNames(schema: FilterSchema): string[] {
  const own = Object.keys(schema.attributes).filter((k) => !schema.attributes[k].constant);
  const related = Object.entries(schema.related ?? {}).flatMap(([name, c]) => Object.keys(c.attributes).map((sub) => `${name}.${sub}`));
  return [...own, ...related];
}

function bareName(path: string, schema: FilterSchema): string {
  const name = path.toLowerCase();
  const urn = schema.urn.toLowerCase();
  return name.startsWith(`${urn}:`) ? name.slice(urn.length + 1) : name;
}

function translate(f: Filter, schema: FilterSchema, scope: Record<string, FilterAttribute>): WhereOptions {
  switch (f.op) {
    case 'and':
    case 'or':
      return { [f.op === 'and' ? Op.and : Op.or]: f.filters.map((x) => translate(x, schema, scope)) };
    case 'not':
      return { [Op.not]: translate(f.filter, schema, scope) };
    case '[]':
      return valuePath(f.attrPath, f.valFilter, schema, scope);
    default:
      return leaf(f, schema, scope);
  }
}

/** `emails[type eq "work"]`: one value of the complex attribute matches the whole sub-filter. */
function valuePath(attrPath: string, valFilter: Filter, schema: FilterSchema, scope: Record<string, FilterAttribute>): WhereOptions {
  const name = bareName(attrPath, schema);
  if (scope !== schema.attributes) throw invalidFilter(`'${attrPath}' has no sub-attributes to filter on with [...]`);
  const related = schema.related?.[name];
  if (related) return relatedMatch(related, valFilter, schema);
  if (!schema.complex.includes(name)) throw invalidFilter(`'${attrPath}' has no sub-attributes to filter on with [...]`);
  const within = Object.fromEntries(
    Object.entries(schema.attributes)
      .filter(([key]) => key.startsWith(`${name}.`))
      .map(([key, a]) => [key.slice(name.length + 1), a]),
  );
  return translate(valFilter, schema, within);
}

function leaf(f: Exclude<Filter, { op: 'and' | 'or' | 'not' | '[]' }>, schema: FilterSchema, scope: Record<string, FilterAttribute>): WhereOptions {
  const name = bareName(f.attrPath, schema);
  const own = scope[name];
  if (own) return f.op === 'pr' ? present(own) : compare(f.op, own, f.compValue, f.attrPath);
  // `emails.value eq "…"` is `emails[value eq "…"]`.
  const dot = name.indexOf('.');
  const related = scope === schema.attributes && dot > 0 ? schema.related?.[name.slice(0, dot)] : undefined;
  if (related) return relatedMatch(related, { ...f, attrPath: name.slice(dot + 1) }, schema);
  throw invalidFilter(`The attribute '${f.attrPath}' cannot be filtered on; filter on one of: ${knownNames(schema).join(', ')}`);
}

/**
 * Whether a row of the related table matches (EXISTS, bounded by the listed row's own rows there), or, for a
 * resource without any, whether its implicit value does.
 */
function relatedMatch(complex: ComplexAttribute, sub: Filter, schema: FilterSchema): WhereOptions {
  const { table, alias, correlation } = complex.related;
  const sequelize = schema.sequelize();
  const inner = whereSql(sequelize, translate(sub, schema, complex.attributes));
  const exists = literal(`EXISTS (SELECT 1 FROM ${table} ${alias} WHERE ${correlation} AND (${inner}))`);
  if (!complex.implicit) return { [Op.and]: [exists] };
  const none = literal(`NOT EXISTS (SELECT 1 FROM ${table} ${alias} WHERE ${correlation})`);
  return { [Op.or]: [exists, { [Op.and]: [none, translate(sub, schema, complex.implicit)] }] };
}


const isNull = (a: FilterAttribute) => where(col(a.column), Op.is, null);
const isNotNull = (a: FilterAttribute) => where(col(a.column), Op.not, null);

/** A comparison that is false, not unknown, where the attribute has no value. */
const whenPresent = (a: FilterAttribute, condition: WhereOptions): WhereOptions => ({ [Op.and]: [isNotNull(a), condition] });

function present(a: FilterAttribute): WhereOptions {
  if (a.constant !== undefined) return TRUE;
  if (a.condition) return a.condition(null);
  if (a.fallbackColumn) return TRUE;
  if (a.type === 'string' || a.type === 'reference') return whenPresent(a, where(col(a.column), Op.ne, ''));
  return isNotNull(a);
}

type Comparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'lt' | 'ge' | 'le';
const ORDERING = { gt: Op.gt, lt: Op.lt, ge: Op.gte, le: Op.lte } as const;
type Ordering = keyof typeof ORDERING;
const isOrdering = (op: Comparison): op is Ordering => Object.hasOwn(ORDERING, op);

function compare(op: Comparison, a: FilterAttribute, value: unknown, path: string): WhereOptions {
  if (a.constant !== undefined) return constantComparison(op, a.constant, value) ? TRUE : NEVER;
  if (a.condition) {
    if (op !== 'eq' || typeof value !== 'string') throw invalidFilter(`'${path}' is filtered with eq and a quoted value only`);
    return a.condition(value);
  }
  if (value === null) {
    if (op === 'eq') return isNull(a);
    if (op === 'ne') return isNotNull(a);
    throw invalidFilter(`'${op}' cannot compare '${path}' with null`);
  }
  // `ne` is `not eq`: true where the attribute is absent.
  if (op === 'ne') return { [Op.not]: compare('eq', a, value, path) };
  if (a.type === 'boolean') return booleanComparison(op, a, value, path);
  if (a.type === 'dateTime') return dateComparison(op, a, value, path);
  if (typeof value !== 'string') throw invalidFilter(`'${path}' is a string: compare it with a quoted value, not ${JSON.stringify(value)}`);
  return whenPresent(a, stringComparison(op, a, value));
}

function constantComparison(op: Comparison, constant: string | boolean, value: unknown): boolean {
  const [x, y] = typeof constant === 'string' ? [constant.toLowerCase(), String(value).toLowerCase()] : [constant, value];
  if (op === 'eq') return x === y;
  if (op === 'ne') return x !== y;
  if (typeof x !== 'string' || typeof y !== 'string') return false;
  if (op === 'co') return x.includes(y);
  if (op === 'sw') return x.startsWith(y);
  if (op === 'ew') return x.endsWith(y);
  return false;
}

function booleanComparison(op: Comparison, a: FilterAttribute, value: unknown, path: string): WhereOptions {
  // Entra ID writes booleans as strings elsewhere; a filter value "True" means the same.
  const flag = typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value;
  if (typeof flag !== 'boolean') throw invalidFilter(`'${path}' is a boolean: compare it with true or false`);
  if (op !== 'eq') throw invalidFilter(`'${path}' is a boolean: only eq, ne and pr apply to it`);
  const stored = a.stored ? a.stored[flag ? 'true' : 'false'] : flag;
  return whenPresent(a, where(col(a.column), Op.eq, stored));
}

function dateComparison(op: Comparison, a: FilterAttribute, value: unknown, path: string): WhereOptions {
  const at = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw invalidFilter(`'${path}' is a dateTime: compare it with a date-time such as "2026-01-15T09:30:00Z"`);
  const target = a.fallbackColumn ? fn('COALESCE', col(a.column), col(a.fallbackColumn)) : col(a.column);
  if (op !== 'eq' && !isOrdering(op)) throw invalidFilter(`'${path}' is a dateTime: use eq, ne, gt, ge, lt, le or pr`);
  const comparison = where(target, op === 'eq' ? Op.eq : ORDERING[op], at);
  return a.fallbackColumn ? comparison : whenPresent(a, comparison);
}

/**
 * Strings compare case-insensitively unless the attribute is caseExact. `co`/`sw`/`ew` use INSTR and SUBSTR
 * rather than LIKE, so a value's `%` and `_` mean themselves on both databases without escaping rules.
 */
function stringComparison(op: Exclude<Comparison, 'ne'>, a: FilterAttribute, value: string): WhereOptions {
  const folded = !a.caseExact;
  const v = folded ? value.toLowerCase() : value;
  const column = folded && !a.storedLowerCase ? fn('LOWER', col(a.column)) : col(a.column);
  switch (op) {
    case 'eq':
      return where(column, Op.eq, v);
    case 'co':
      return where(fn('INSTR', column, v), Op.gt, 0);
    case 'sw':
      return where(fn('SUBSTR', column, 1, v.length), Op.eq, v);
    case 'ew':
      return v.length === 0 ? TRUE : where(fn('SUBSTR', column, -v.length), Op.eq, v);
    default:
      return where(column, ORDERING[op], v);
  }
}
