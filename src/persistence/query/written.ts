/**
 * A value written out whole and in one way: object keys sorted, operators (symbols) by name, Sequelize's helpers
 * (literal, col, fn, where) by their class and fields, models by table.
 */
export function written(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `table(${String(('tableName' in value ? value.tableName : undefined) ?? value.name)})`;
  if (!isObject(value)) return String(value);
  if (Array.isArray(value)) return `[${value.map(written).join(',')}]`;
  const keys = [...Object.keys(value).sort(), ...Object.getOwnPropertySymbols(value).map((s) => s)];
  const fields = keys
    .filter((k) => value[k] !== undefined)
    .map((k) => `${typeof k === 'symbol' ? `@${k.description}` : JSON.stringify(k)}:${written(value[k])}`);
  const kind = value.constructor && value.constructor !== Object ? value.constructor.name : '';
  return `${kind}{${fields.join(',')}}`;
}

/** An object's fields, own or not, can be read by name or symbol (each unknown). */
const isObject = (value: unknown): value is Record<string | symbol, unknown> => typeof value === 'object' && value !== null;
