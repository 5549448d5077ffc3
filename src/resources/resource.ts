import { z } from 'zod';
import { itemEnvelope, listEnvelope, publishedItem } from '../wire/envelopes';
import type { SortOrder } from '../wire/query';

/** An item as sent: every field is optional on the wire because `fields` may select a subset. */
type Published<Shape extends z.ZodRawShape> = ReturnType<typeof publishedItem<Shape>>;

/** A resource is declared once: its public shape, its sort whitelist (default first) and default order. */
export interface Resource<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  item: z.ZodObject<Shape>;
  published: Published<Shape>;
  /**
   * Response schemas, built once so each is one named component of the OpenAPI document. Typed with their
   * output so the procedures' outputs, and hence the tRPC client's results, are typed.
   */
  listEnvelope: ReturnType<typeof listEnvelope<Published<Shape>>>;
  itemEnvelope: ReturnType<typeof itemEnvelope<Published<Shape>>>;
  fields: readonly string[];
  sort: readonly [string, ...string[]];
  defaultOrder: SortOrder;
  filterCreatedAt: boolean;
}

export type ItemOf<R extends Resource> = z.infer<R['item']>;

export function defineResource<Shape extends z.ZodRawShape>(
  name: string,
  description: string,
  shape: Shape,
  options: { sort?: readonly [keyof Shape & string, ...(keyof Shape & string)[]]; defaultOrder?: SortOrder } = {},
): Resource<Shape> {
  const item = z.object(shape);
  const fields = Object.keys(shape);
  const published = publishedItem(name, item, description);
  return {
    name,
    item,
    published,
    listEnvelope: listEnvelope(name, published),
    itemEnvelope: itemEnvelope(name, published),
    fields,
    sort: options.sort ?? (['created_at'] as const),
    defaultOrder: options.defaultOrder ?? 'desc',
    filterCreatedAt: fields.includes('created_at'),
  };
}

export const iso = (d: Date): string => d.toISOString();
export const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);
