import { DataTypes, FindOptions, Model, ModelStatic, Sequelize, WhereOptions } from 'sequelize';

/** Sequelize's SQL builder (public on the query interface, absent from its typings). */
interface SelectQueryGenerator {
  selectQuery(table: unknown, options: FindOptions, model: ModelStatic<Model>): string;
  escape(value: unknown, field: { type: unknown }): string;
  getWhereConditions(where: WhereOptions): string;
}

const generatorOf = (sequelize: Sequelize) => (sequelize.getQueryInterface() as unknown as { queryGenerator: SelectQueryGenerator }).queryGenerator;

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
  // normalizeDataType (public, absent from the typings) gives the dialect's own DATE, which knows its format.
  const type = (sequelize as unknown as { normalizeDataType(type: unknown): unknown }).normalizeDataType(DataTypes.DATE(3));
  return generatorOf(sequelize).escape(date, { type });
}
