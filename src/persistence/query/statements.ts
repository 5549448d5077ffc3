import { randomBytes } from 'node:crypto';
import { FindOptions, Model, ModelStatic, QueryTypes, WhereOptions } from 'sequelize';
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

/** The where with each string of a string column replaced by a marker, and the values taken out; undefined if it cannot be. */
interface Parameterised {
  where: WhereOptions | undefined;
  values: unknown[];
}

class CannotParameterise extends Error {}

const STRING_TYPES = new Set(['STRING', 'CHAR', 'TEXT', 'UUID']);

function parameterise(model: ModelStatic<Model>, where: WhereOptions | undefined): Parameterised | undefined {
  const values: unknown[] = [];
  const attributes = model.getAttributes();
  const leaf = (value: unknown, stringColumn: boolean): unknown => {
    if (typeof value === 'string') {
      if (!stringColumn) return value;
      values.push(value);
      return `${MARKER}${values.length - 1}__`;
    }
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
    if (Array.isArray(value)) return value.map((v) => leaf(v, stringColumn));
    if (isPlain(value)) {
      const out: Record<string | symbol, unknown> = {};
      // Only operators may follow a column: a nested column or a Sequelize helper keeps the old path.
      if (Object.keys(value).length) throw new CannotParameterise();
      for (const op of Object.getOwnPropertySymbols(value)) out[op] = leaf((value as Record<symbol, unknown>)[op], stringColumn);
      return out;
    }
    throw new CannotParameterise();
  };
  const conditions = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(conditions);
    if (!isPlain(node)) throw new CannotParameterise();
    const out: Record<string | symbol, unknown> = {};
    for (const [column, value] of Object.entries(node)) {
      const attribute = attributes[column];
      if (!attribute) throw new CannotParameterise(); // `$include.column$` and the like
      out[column] = leaf(value, STRING_TYPES.has((attribute.type as { key?: string }).key ?? ''));
    }
    for (const op of Object.getOwnPropertySymbols(node)) out[op] = conditions((node as Record<symbol, unknown>)[op]);
    return out;
  };
  try {
    return { where: where === undefined ? undefined : (conditions(where) as WhereOptions), values };
  } catch (err) {
    if (err instanceof CannotParameterise) return undefined;
    throw err;
  }
}

const isPlain = (value: unknown): value is object => typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

export class Statements {
  private readonly statements = new Map<string, Statement>();

  /**
   * The rows `findAll({ ...options, raw: true })` returns, through a kept statement when the options allow one
   * (no include, no replacements, a where of columns and operators); undefined when they do not.
   */
  async findRaw<R extends object = Record<string, unknown>>(model: ModelStatic<Model>, options: FindOptions): Promise<R[] | undefined> {
    if (options.include || (options as { replacements?: unknown }).replacements) return undefined;
    const parameterised = parameterise(model, options.where);
    if (!parameterised) return undefined;
    const shaped = { ...options, where: parameterised.where };
    const key = `${model.sequelize!.getDialect()}|${model.tableName}|${written(shaped)}`;
    const statement = this.statements.get(key) ?? (await this.learn(model, shaped, key));
    return model.sequelize!.query<R>(statement.sql, {
      replacements: statement.order.map((i) => parameterised.values[i]),
      type: QueryTypes.SELECT,
      raw: true,
    });
  }

  /** The statement findAll writes for a shape, read as it runs once with the markers (matching nothing). */
  private async learn(model: ModelStatic<Model>, shaped: FindOptions, key: string): Promise<Statement> {
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
    const statement = { sql: sql.replace(MARKER_PATTERN, (_, i: string) => (order.push(Number(i)), '?')), order };
    if (this.statements.size >= MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value as string);
    this.statements.set(key, statement);
    return statement;
  }
}

/** The process's statements: one set per process is enough, keyed by table and shape. */
export const statements = new Statements();
