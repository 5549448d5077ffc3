/**
 * A value written out whole and in one way: object keys sorted, operators (symbols) by name, Sequelize's helpers
 * (literal, col, fn, where) by their class and fields, models by table.
 */
export function written(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (value instanceof Date) return `Date(${value.toISOString()})`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object' && typeof value !== 'function') return String(value);
  if (typeof value === 'function') return `table(${String((value as { tableName?: unknown }).tableName ?? value.name)})`;
  if (Array.isArray(value)) return `[${value.map(written).join(',')}]`;
  const object = value as Record<string | symbol, unknown>;
  const keys = [...Object.keys(object).sort(), ...Object.getOwnPropertySymbols(object).map((s) => s)];
  const fields = keys
    .filter((k) => object[k] !== undefined)
    .map((k) => `${typeof k === 'symbol' ? `@${k.description}` : JSON.stringify(k)}:${written(object[k])}`);
  const kind = object.constructor && object.constructor !== Object ? object.constructor.name : '';
  return `${kind}{${fields.join(',')}}`;
}
