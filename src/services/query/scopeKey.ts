import type { Model } from 'sequelize';
import type { ListSource } from './listing';

/**
 * The count cache's name for a list's scope: the very conditions its queries run (model, where, joins,
 * replacements, partition, key index), written out. A total cached for one caller is only ever served for
 * conditions that select the same rows, whichever access rule built them; no scope names itself by hand.
 */
export function scopeKey(source: ListSource<unknown, Model>): string {
  const { model, where, include, replacements, partition, keysFrom } = source;
  return written({
    table: model.tableName,
    where,
    include,
    replacements,
    partition,
    keysFrom: keysFrom && { ...keysFrom, model: keysFrom.model.tableName },
  });
}

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
