import { randomBytes } from 'node:crypto';
import { FindOptions, IncludeOptions, Includeable, Model, ModelStatic, QueryTypes, Utils, WhereOptions } from 'sequelize';
import { findRaw } from './findRaw';
import { includesOf, isModelInclude, typeKeyOf } from './includes';
import { written } from './written';

/**
 * A list's page query written by Sequelize once per shape, then run with its values as parameters (issue 23). Every
 * string compared with a string column (ids, names, e-mails: what differs from one caller or page to the next) is
 * taken out as a parameter; what is left (columns, operators, order, limit and offset, numbers, dates, booleans) is
 * the shape, and the statement Sequelize writes for it is kept. Building a statement took about a sixth of a small
 * list's CPU: the option cloning, scope and include handling and escaping of findAll, on every request.
 */

/** Stands for the n-th parameter while Sequelize writes the statement; random, so no stored value can be one. */
const MARKER = `__bound_${randomBytes(8).toString('hex')}_`;
const MARKER_PATTERN = new RegExp(`'${MARKER}(\\d+)__'`, 'g');
/** Shapes kept per process: every list, sort and page size has a few; a bound on what odd requests may add. */
const MAX_STATEMENTS = 2_000;

interface Statement {
  sql: string;
  /** For each `?` of `sql`, in order, the index of its value. */
  order: number[];
}

/** The options with each string compared with a string column replaced by a marker, and the values taken out. */
interface Parameterised {
  shaped: FindOptions;
  values: unknown[];
}

class CannotParameterise extends Error {}

const STRING_TYPES = new Set(['STRING', 'CHAR', 'TEXT', 'UUID']);

type Attributes = ReturnType<ModelStatic<Model>['getAttributes']>;
const isStringColumn = (attribute: Attributes[string] | undefined) => STRING_TYPES.has(typeKeyOf(attribute) ?? '');

/** What each included model is called (`as`), for a where naming `$as.column$`; nested ones by their path. */
function includedModels(include: Includeable[] | undefined, prefix = ''): Map<string, ModelStatic<Model>> {
  const models = new Map<string, ModelStatic<Model>>();
  for (const item of include ?? []) {
    if (!isModelInclude(item) || !item.as) continue;
    models.set(prefix + item.as, item.model);
    for (const [path, model] of includedModels(item.include, `${prefix}${item.as}.`)) models.set(path, model);
  }
  return models;
}

/**
 * Walks the options Sequelize will write: each `where` (the list's, and each include's on its own model) and the
 * replacements of its literal subqueries. Sequelize's helpers (literal, col, fn) are kept as they are: their text
 * is part of the shape, as their class and fields are part of its key (written.ts).
 */
function parameterise(model: ModelStatic<Model>, options: FindOptions): Parameterised | undefined {
  const values: unknown[] = [];
  const marker = (value: string) => (values.push(value), `${MARKER}${values.length - 1}__`);
  const leaf = (value: unknown, stringColumn: boolean): unknown => {
    if (typeof value === 'string') return stringColumn ? marker(value) : value;
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
    if (value instanceof Utils.SequelizeMethod) return value;
    if (Array.isArray(value)) return value.map((v) => leaf(v, stringColumn));
    if (isPlain(value)) {
      const out: Record<string | symbol, unknown> = {};
      // Only operators may follow a column: a nested column keeps the old path.
      if (Object.keys(value).length) throw new CannotParameterise();
      for (const op of Object.getOwnPropertySymbols(value)) out[op] = leaf(value[op], stringColumn);
      return out;
    }
    throw new CannotParameterise();
  };
  const included = includedModels(includesOf(options.include));
  const attributeOf = (attributes: Attributes, column: string): Attributes[string] | undefined => {
    const path = /^\$(.+)\.([^.]+)\$$/.exec(column);
    if (!path) return attributes[column];
    const other = included.get(path[1]);
    if (!other) throw new CannotParameterise();
    return other.getAttributes()[path[2]];
  };
  const conditions = (node: unknown, attributes: Attributes): unknown => {
    if (Array.isArray(node)) return node.map((n) => conditions(n, attributes));
    if (!isPlain(node)) throw new CannotParameterise();
    const out: Record<string | symbol, unknown> = {};
    for (const [column, value] of Object.entries(node)) {
      const attribute = attributeOf(attributes, column);
      if (!attribute) throw new CannotParameterise();
      out[column] = leaf(value, isStringColumn(attribute));
    }
    for (const op of Object.getOwnPropertySymbols(node)) out[op] = conditions(node[op], attributes);
    return out;
  };
  const where = (node: WhereOptions | undefined, of: ModelStatic<Model>) => (node === undefined ? undefined : (conditions(node, of.getAttributes()) as WhereOptions));
  const include = (items: Includeable[] | undefined): Includeable[] | undefined =>
    items?.map((item) => {
      if (!isPlain(item) || !isModelInclude(item)) throw new CannotParameterise();
      // Sequelize reads a key that is present as given: an include without a where or includes keeps none.
      const shaped: IncludeOptions = { ...item };
      if (item.where) shaped.where = where(item.where, item.model);
      if (item.include) shaped.include = include(item.include);
      return shaped;
    });
  const replacements = options.replacements;
  try {
    const shaped: FindOptions = { ...options };
    if (options.where) shaped.where = where(options.where, model);
    if (options.include) shaped.include = include(includesOf(options.include));
    if (replacements !== undefined) {
      // A replacement stands for a value in a literal subquery: a string is bound whatever column it meets.
      if (!isPlain(replacements)) throw new CannotParameterise();
      shaped.replacements = Object.fromEntries(Object.entries(replacements).map(([name, value]) => [name, leaf(value, true)]));
    }
    return { shaped, values };
  } catch (err) {
    if (err instanceof CannotParameterise) return undefined;
    throw err;
  }
}

const isPlain = (value: unknown): value is Record<string | symbol, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

export class Statements {
  /** null: Sequelize wrote a value where no parameter can stand (inside a pattern, say); that shape keeps findAll. */
  private readonly statements = new Map<string, Statement | null>();

  /**
   * The rows `findAll({ ...options, raw: true })` returns, through a kept statement when the options allow one
   * (wheres of columns, `$included.column$` and operators, on the model and its includes; Sequelize's helpers;
   * replacements of plain values); undefined when they do not.
   */
  async findRaw<R extends object = Record<string, unknown>>(model: ModelStatic<Model>, options: FindOptions): Promise<R[] | undefined> {
    const parameterised = parameterise(model, options);
    if (!parameterised) return undefined;
    const { shaped } = parameterised;
    const key = `${model.sequelize!.getDialect()}|${model.tableName}|${written(shaped)}`;
    const statement = this.statements.get(key) ?? (await this.learn(model, shaped, key));
    if (!statement) return undefined;
    return model.sequelize!.query<R>(statement.sql, {
      replacements: statement.order.map((i) => parameterised.values[i]),
      type: QueryTypes.SELECT,
      raw: true,
      nest: options.nest,
    });
  }

  /** The statement findAll writes for a shape, read as it runs once with the markers (matching nothing). */
  private async learn(model: ModelStatic<Model>, shaped: FindOptions, key: string): Promise<Statement | null> {
    let written: string | undefined;
    await model.findAll({
      ...shaped,
      raw: true,
      logging: (sql: string) => {
        written = sql;
      },
    });
    if (!written) throw new Error(`Sequelize ran no statement for ${model.tableName}`);
    const sql = written.replace(/^Executing \([^)]*\): /, '');
    const order: number[] = [];
    const bound = sql.replace(MARKER_PATTERN, (_, i: string) => (order.push(Number(i)), '?'));
    const statement = bound.includes(MARKER) ? null : { sql: bound, order };
    const oldest = this.statements.keys().next();
    if (this.statements.size >= MAX_STATEMENTS && !oldest.done) this.statements.delete(oldest.value);
    this.statements.set(key, statement);
    return statement;
  }
}

/** The process's statements: one set per process is enough, keyed by table and shape. */
export const statements = new Statements();

/**
 * `findRaw` through a kept statement when the options allow one: what every read of a list's page goes through
 * (its keys, its rows, a deep page's anchors), so no list request builds its SQL with findAll.
 */
export async function findKeptRaw<R extends object = Record<string, unknown>>(model: ModelStatic<Model>, options: FindOptions): Promise<R[]> {
  return (await statements.findRaw<R>(model, options)) ?? findRaw<R>(model, options);
}
