import { FindOptions, Model, ModelStatic } from 'sequelize';

/** Sequelize's SQL builder (public on the query interface, absent from its typings). */
interface SelectQueryGenerator {
  selectQuery(table: unknown, options: FindOptions, model: ModelStatic<Model>): string;
}

/**
 * The `SELECT` findAll would run, as text to embed in a larger statement (a union, an EXISTS). Values are escaped
 * by Sequelize's own query generator, in each column's format on each dialect (a bare `sequelize.escape` of a
 * date drops MySQL's milliseconds).
 */
export function selectSql(model: ModelStatic<Model>, options: FindOptions): string {
  const generator = (model.sequelize!.getQueryInterface() as unknown as { queryGenerator: SelectQueryGenerator }).queryGenerator;
  return generator.selectQuery(model.getTableName(), options, model).replace(/;\s*$/, '');
}
