import { col, fn, literal, Op, where, WhereOptions } from 'sequelize';
import { Filter, parse } from 'scim2-parse-filter';
import { ScimError } from './errors';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) as `where` conditions, so a filtered list pages in the database like any
 * other. `scim2-parse-filter` parses the expression; this module maps each attribute path to a whitelisted
 * column and each operator to a condition. Attribute names are case-insensitive and may carry their schema URN.
 */

export type AttributeType = 'string' | 'boolean' | 'dateTime' | 'reference';

export interface FilterAttribute {
  /** The column (as the list query names it) this attribute reads. */
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
  /** A constant attribute of every resource (`emails.type` is always "work"): compared here, not in SQL. */
  constant?: string | boolean;
}

export interface FilterSchema {
  /** The core schema URN, which may prefix attribute names. */
  urn: string;
  /** Lower-cased attribute path (`username`, `name.familyname`, `emails.value`) → attribute. */
  attributes: Record<string, FilterAttribute>;
  /** Multi-valued attribute whose sub-filter `x[...]` is allowed (`emails`, `members`, `roles`). */
  complex: string[];
}

// A comparison with a constant attribute is decided here; the query gets its outcome.
const TRUE: WhereOptions = { [Op.and]: [literal('1 = 1')] };
const NEVER: WhereOptions = { [Op.and]: [literal('1 = 0')] };

const invalidFilter = (detail: string) => new ScimError(400, 'invalidFilter', detail);

export function parseFilter(text: string): Filter {
  try {
    return parse(text);
  } catch (e) {
    throw invalidFilter(
      `The filter '${text}' cannot be parsed (${(e as Error).message}); filters look like userName eq "ada@example.com" ` +
        'or (name.familyName sw "L" and active eq true)',
    );
  }
}

/** The `where` for a filter over the schema's attributes; a client mistake is a 400 `invalidFilter`. */
export function filterToWhere(text: string, schema: FilterSchema): WhereOptions {
  return translate(parseFilter(text), schema, undefined);
}

function attributeOf(path: string, schema: FilterSchema, within: string | undefined): FilterAttribute {
  let name = path.toLowerCase();
  const urn = schema.urn.toLowerCase();
  if (name.startsWith(`${urn}:`)) name = name.slice(urn.length + 1);
  const key = within ? `${within}.${name}` : name;
  const attribute = schema.attributes[key];
  if (!attribute) {
    const known = Object.keys(schema.attributes).filter((k) => !schema.attributes[k].constant);
    throw invalidFilter(`The attribute '${path}' cannot be filtered on; filter on one of: ${known.join(', ')}`);
  }
  return attribute;
}

function translate(f: Filter, schema: FilterSchema, within: string | undefined): WhereOptions {
  switch (f.op) {
    case 'and':
    case 'or':
      return { [f.op === 'and' ? Op.and : Op.or]: f.filters.map((x) => translate(x, schema, within)) };
    case 'not':
      return { [Op.not]: translate(f.filter, schema, within) };
    case '[]': {
      const name = f.attrPath.toLowerCase();
      if (within || !schema.complex.includes(name)) throw invalidFilter(`'${f.attrPath}' has no sub-attributes to filter on with [...]`);
      return translate(f.valFilter, schema, name);
    }
    case 'pr':
      return present(attributeOf(f.attrPath, schema, within));
    default:
      return compare(f.op, attributeOf(f.attrPath, schema, within), f.compValue, f.attrPath);
  }
}

function present(a: FilterAttribute): WhereOptions {
  if (a.constant !== undefined) return TRUE;
  if (a.condition) return a.condition(null);
  if (a.type === 'string' || a.type === 'reference') return { [Op.and]: [{ [a.column]: { [Op.ne]: null } }, { [a.column]: { [Op.ne]: '' } }] };
  return { [a.column]: { [Op.ne]: null } };
}

type Comparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'lt' | 'ge' | 'le';
const ORDERING: Partial<Record<Comparison, symbol>> = { gt: Op.gt, lt: Op.lt, ge: Op.gte, le: Op.lte };

function compare(op: Comparison, a: FilterAttribute, value: unknown, path: string): WhereOptions {
  if (a.constant !== undefined) return constantComparison(op, a.constant, value) ? TRUE : NEVER;
  if (a.condition) {
    if (op !== 'eq' || typeof value !== 'string') throw invalidFilter(`'${path}' is filtered with eq and a quoted value only`);
    return a.condition(value);
  }
  if (value === null) {
    if (op === 'eq') return { [a.column]: null };
    if (op === 'ne') return { [a.column]: { [Op.ne]: null } };
    throw invalidFilter(`'${op}' cannot compare '${path}' with null`);
  }
  if (a.type === 'boolean') return booleanComparison(op, a, value, path);
  if (a.type === 'dateTime') return dateComparison(op, a, value, path);
  if (typeof value !== 'string') throw invalidFilter(`'${path}' is a string: compare it with a quoted value, not ${JSON.stringify(value)}`);
  return stringComparison(op, a, value);
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
  const stored = (b: boolean) => (a.stored ? a.stored[b ? 'true' : 'false'] : b);
  if (op === 'eq') return { [a.column]: stored(flag) };
  if (op === 'ne') return { [a.column]: stored(!flag) };
  throw invalidFilter(`'${path}' is a boolean: only eq, ne and pr apply to it`);
}

function dateComparison(op: Comparison, a: FilterAttribute, value: unknown, path: string): WhereOptions {
  const at = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw invalidFilter(`'${path}' is a dateTime: compare it with a date-time such as "2026-01-15T09:30:00Z"`);
  const target = a.fallbackColumn ? fn('COALESCE', col(a.column), col(a.fallbackColumn)) : col(a.column);
  const ordering = ORDERING[op];
  if (op === 'eq') return where(target, Op.eq, at);
  if (op === 'ne') return where(target, Op.ne, at);
  if (ordering) return where(target, ordering as typeof Op.gt, at);
  throw invalidFilter(`'${path}' is a dateTime: use eq, ne, gt, ge, lt, le or pr`);
}

/**
 * Strings compare case-insensitively unless the attribute is caseExact. `co`/`sw`/`ew` use INSTR and SUBSTR
 * rather than LIKE, so a value's `%` and `_` mean themselves on both databases without escaping rules.
 */
function stringComparison(op: Comparison, a: FilterAttribute, value: string): WhereOptions {
  const folded = !a.caseExact;
  const v = folded ? value.toLowerCase() : value;
  const column = folded && !a.storedLowerCase ? fn('LOWER', col(a.column)) : col(a.column);
  switch (op) {
    case 'eq':
      return where(column, Op.eq, v);
    case 'ne':
      return { [Op.or]: [where(column, Op.ne, v), { [a.column]: null }] };
    case 'co':
      return where(fn('INSTR', column, v), Op.gt, 0);
    case 'sw':
      return where(fn('SUBSTR', column, 1, v.length), Op.eq, v);
    case 'ew':
      return v.length === 0 ? TRUE : where(fn('SUBSTR', column, -v.length), Op.eq, v);
    default:
      return where(column, ORDERING[op] as typeof Op.gt, v);
  }
}
