import type { Model } from 'sequelize';
import type { ListSource } from './listSource';
import { written } from './written';

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
