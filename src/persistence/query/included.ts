import type { Model } from 'sequelize';

/**
 * The row an include (`{ model, as }`) read with an instance, checked to be of that model: the models declare no
 * association fields, so this is where an included row gets its type.
 */
export function included<M extends Model>(row: Model, as: string, model: new (...args: never[]) => M): M {
  const value: unknown = row.get(as);
  if (!(value instanceof model)) throw new Error(`A ${row.constructor.name} was read without its ${as}`);
  return value;
}
