import { FindOptions, Model, ModelStatic } from 'sequelize';

/**
 * The rows of `findAll({ ...options, raw: true })`, typed as the plain objects they are. Sequelize types a raw read
 * as instances of the model, so what the driver returns is said once, here, rather than at every raw read.
 */
export async function findRaw<R extends object = Record<string, unknown>>(model: ModelStatic<Model>, options: FindOptions): Promise<R[]> {
  const rows: object[] = await model.findAll({ ...options, raw: true });
  return rows as R[];
}
