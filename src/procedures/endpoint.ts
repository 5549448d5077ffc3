import { z } from 'zod';
import { authedProcedure } from './init';
import type { AuthedContext } from './context';
import type { ListSource } from '../persistence/query/listSource';
import type { ItemOf, Resource } from '../resources/resource';
import { DATE_OPERATORS, intersect, parseDateParam, rangeFor, TimeRange } from '../wire/dates';
import { fieldsSchema, listQueryShape, parseFields, strictQuery, SortOrder } from '../wire/query';

export interface EndpointDoc {
  /** Path under /v1, e.g. `/users/{user_id}`. */
  path: `/${string}`;
  /** What the operation does, as generated clients name it: `listUsers`, `getUser`, `listUserApps`, … */
  operationId: string;
  tag: string;
  summary: string;
  description: string;
}

function pick<T extends Record<string, unknown>>(item: T, fields: string[] | undefined): Partial<T> {
  if (!fields) return item;
  const out: Partial<T> = {};
  for (const f of fields) out[f as keyof T] = item[f as keyof T];
  return out;
}

function createdAtRange(input: Record<string, unknown>): TimeRange | undefined {
  const ranges = DATE_OPERATORS.flatMap((op) => {
    const value = input[`created_at[${op}]`];
    const parsed = typeof value === 'string' ? parseDateParam(value) : undefined;
    return parsed ? [rangeFor(op, parsed)] : [];
  });
  return ranges.length ? intersect(ranges) : undefined;
}

export function openapi(doc: EndpointDoc) {
  return {
    openapi: {
      method: 'GET' as const,
      path: doc.path,
      operationId: doc.operationId,
      tags: [doc.tag],
      summary: doc.summary,
      description: doc.description,
      protect: true,
    },
  };
}

/**
 * Builds a list endpoint: paging, sort whitelist with id tie-break, order, `fields`, `created_at[...]`
 * filters and the list envelope. `source` checks the parent (404/403) and returns the caller's scope.
 */
export function listEndpoint<R extends Resource, P extends z.ZodRawShape = Record<never, never>>(
  def: EndpointDoc & {
    resource: R;
    params?: P;
    source: (ctx: AuthedContext, params: z.infer<z.ZodObject<P>>) => Promise<ListSource<ItemOf<R>>>;
  },
) {
  const { resource } = def;
  const input = strictQuery({ ...((def.params ?? {}) as P), ...listQueryShape(resource) });
  return authedProcedure
    .meta(openapi(def))
    .input(input)
    .output(resource.listEnvelope)
    .query(async ({ ctx, input }) => {
      const query = input as unknown as {
        page: number;
        per_page: number;
        sort: string;
        order: SortOrder;
        fields?: string;
      } & Record<string, unknown>;
      const source = await def.source(ctx, input as z.infer<z.ZodObject<P>>);
      const { items, total } = await ctx.services.listing.fetchPage(source, {
        page: query.page,
        perPage: query.per_page,
        sort: query.sort,
        order: query.order,
        createdAt: createdAtRange(query),
      });
      const fields = parseFields(query.fields);
      return {
        status: 'success' as const,
        data: items.map((item) => pick(item as Record<string, unknown>, fields)),
        meta: {
          page: query.page,
          per_page: query.per_page,
          total,
          total_pages: Math.ceil(total / query.per_page),
          sort: query.sort,
          order: query.order,
        },
      };
    });
}

/** Builds a get-one endpoint: `{status, data}` with `fields` support. `load` applies 404/403. */
export function getEndpoint<R extends Resource, P extends z.ZodRawShape>(
  def: EndpointDoc & {
    resource: R;
    params: P;
    load: (ctx: AuthedContext, params: z.infer<z.ZodObject<P>>) => Promise<ItemOf<R>>;
  },
) {
  const { resource } = def;
  const input = strictQuery({ ...def.params, fields: fieldsSchema(resource.fields) });
  return authedProcedure
    .meta(openapi(def))
    .input(input)
    .output(resource.itemEnvelope)
    .query(async ({ ctx, input }) => {
      const item = await def.load(ctx, input as z.infer<z.ZodObject<P>>);
      const fields = parseFields((input as { fields?: string }).fields);
      return { status: 'success' as const, data: pick(item as Record<string, unknown>, fields) };
    });
}
