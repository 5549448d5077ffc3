import { FindOptions, Includeable, Model, ModelStatic } from 'sequelize';
import { includesOf, isModelInclude, typeKeyOf } from './includes';
import { findKeptRaw } from './statements';

/**
 * List rows as plain objects. A Sequelize instance per row was the largest allocation of a list request
 * (about 40% of the 1 MB a page of 100 commits allocated), and under load that garbage is what grew the heap.
 * Plain rows carry what the driver returns, so dates and booleans are given their model types here (SQLite
 * returns dates as strings and booleans as 0/1; MySQL booleans as 0/1).
 */
export async function findPlain<M extends Model, R extends M = M>(model: ModelStatic<M>, options: FindOptions): Promise<R[]> {
  // The rows stand in for instances of M (R: with the rows `include` reads, nested by their `as`): the resources
  // read them by attribute, as they would an instance.
  const rows = await findKeptRaw<R>(model, { ...options, nest: Boolean(options.include) });
  const conversions = conversionsOf(model, options.include);
  for (const row of rows) convert(row, conversions);
  return rows;
}

type Kind = 'date' | 'boolean';
interface Conversions {
  own: [string, Kind][];
  nested: [string, Conversions][];
}

function conversionsOf(model: ModelStatic<Model>, include: Includeable | Includeable[] | undefined): Conversions {
  const own: [string, Kind][] = [];
  for (const [name, attribute] of Object.entries(model.getAttributes())) {
    const key = typeKeyOf(attribute);
    if (key === 'DATE') own.push([name, 'date']);
    else if (key === 'BOOLEAN') own.push([name, 'boolean']);
  }
  const nested = includesOf(include).flatMap((i): [string, Conversions][] => (isModelInclude(i) && i.as ? [[i.as, conversionsOf(i.model, i.include)]] : []));
  return { own, nested };
}

function convert(row: object, conversions: Conversions): void {
  for (const [name, kind] of conversions.own) {
    const value: unknown = Reflect.get(row, name);
    if (value === null || value === undefined) continue;
    if (kind === 'date' && !(value instanceof Date)) Reflect.set(row, name, new Date(typeof value === 'number' ? value : String(value)));
    else if (kind === 'boolean' && typeof value !== 'boolean') Reflect.set(row, name, value === 1 || value === '1' || value === 'true');
  }
  for (const [as, inner] of conversions.nested) {
    const child: unknown = Reflect.get(row, as);
    if (child && typeof child === 'object') convert(child, inner);
  }
}
