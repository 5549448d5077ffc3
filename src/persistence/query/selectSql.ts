import { DataTypes, FindOptions, Model, ModelStatic, Sequelize, WhereOptions } from 'sequelize';

/** Sequelize's SQL builder (public on the query interface, typed there only as unknown). */
interface SelectQueryGenerator {
  selectQuery(table: unknown, options: FindOptions, model: ModelStatic<Model>): string;
  escape(value: unknown, field: { type: unknown }): string;
  getWhereConditions(where: WhereOptions): string;
}

const isSelectQueryGenerator = (generator: unknown): generator is SelectQueryGenerator =>
  typeof generator === 'object' &&
  generator !== null &&
  ['selectQuery', 'escape', 'getWhereConditions'].every((method) => typeof Reflect.get(generator, method) === 'function');

function generatorOf(sequelize: Sequelize): SelectQueryGenerator {
  const { queryGenerator } = sequelize.getQueryInterface();
  if (!isSelectQueryGenerator(queryGenerator)) throw new Error('This Sequelize has no query generator to write a SELECT with');
  return queryGenerator;
}

/** normalizeDataType (public on Sequelize, absent from its typings) gives the dialect's own type for a data type. */
const normalizesDataTypes = (sequelize: Sequelize): sequelize is Sequelize & { normalizeDataType(type: unknown): unknown } =>
  typeof Reflect.get(sequelize, 'normalizeDataType') === 'function';

/**
 * The `SELECT` findAll would run, as text to embed in a larger statement (a union, an EXISTS). Values are escaped
 * by Sequelize's own query generator, in each column's format on each dialect (a bare `sequelize.escape` of a
 * date drops MySQL's milliseconds).
 */
export function selectSql(model: ModelStatic<Model>, options: FindOptions): string {
  return generatorOf(model.sequelize!).selectQuery(model.getTableName(), options, model).replace(/;\s*$/, '');
}

/** A condition as SQL text (for a correlated EXISTS), its values escaped as in any `where`; `1 = 1` for none. */
export function whereSql(sequelize: Sequelize, where: WhereOptions): string {
  return generatorOf(sequelize).getWhereConditions(where) || '1 = 1';
}

/** A timestamp as SQL text, escaped as findAll escapes a value compared with a DATE(3) column (every timestamp here). */
export function timestampSql(sequelize: Sequelize, date: Date): string {
  // The dialect's own DATE knows its format.
  if (!normalizesDataTypes(sequelize)) throw new Error('This Sequelize cannot give its dialect\'s DATE type');
  const type = sequelize.normalizeDataType(DataTypes.DATE(3));
  return generatorOf(sequelize).escape(date, { type });
}
