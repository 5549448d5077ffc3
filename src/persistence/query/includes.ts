import { IncludeOptions, Includeable, Model, ModelStatic } from 'sequelize';

/** A model class: what an include's `model` names (Sequelize types it only as a constructor of some Model). */
export const isModelClass = (value: unknown): value is ModelStatic<Model> => typeof value === 'function' && value.prototype instanceof Model;

/** An include given as options that name their model (a bare model, an association or `{ all: true }` name none). */
export type ModelInclude = IncludeOptions & { model: ModelStatic<Model> };

export const isModelInclude = (item: unknown): item is ModelInclude =>
  typeof item === 'object' && item !== null && 'model' in item && isModelClass(item.model);

/** An `include` option, one or many, as a list. */
export const includesOf = (include: Includeable | Includeable[] | undefined): Includeable[] => (Array.isArray(include) ? include : include ? [include] : []);

/** The type's name Sequelize gives a column (`STRING`, `DATE`, …); undefined for a type given as SQL text. */
export const typeKeyOf = (attribute: { type: string | { key: string } } | undefined): string | undefined =>
  attribute === undefined || typeof attribute.type === 'string' ? undefined : attribute.type.key;
