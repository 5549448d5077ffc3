import { z } from 'zod';
import { DATE_RULE, DateOperator, parseDateParam } from './dates';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 50;
export type SortOrder = 'asc' | 'desc';

/**
 * An integer query parameter: a JSON number (tRPC) or a string of digits (REST). Exponents, signs, spaces
 * and hex are rejected rather than read loosely by Number().
 */
function integerParam(rule: string, min: number, max: number, fallback: number) {
  return z
    .union([z.int({ error: rule }), z.string({ error: rule }).regex(/^[0-9]{1,15}$/, { error: rule })], { error: rule })
    .transform(Number)
    .pipe(z.int().min(min, { error: rule }).max(max, { error: rule }))
    .default(fallback)
    // Documented as what it is on the wire: an integer in a query string.
    .meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.anyOf;
        Object.assign(jsonSchema, { type: 'integer', minimum: min, default: fallback }, max < Number.MAX_SAFE_INTEGER ? { maximum: max } : {});
      },
    });
}

/** 15 digits, what the integer parser reads: far past any list's end, and an offset SQL still takes. */
const MAX_PAGE = 999_999_999_999_999;
const pageSchema = integerParam(`page must be an integer from 1 to ${MAX_PAGE}`, 1, MAX_PAGE, 1).meta({ description: `Page number, 1-based (default 1, at most ${MAX_PAGE}). A page past the end returns an empty \`data\` with the true totals; the \`Link\` header points at the neighbouring pages. Example: \`2\`.` });

const perPageSchema = integerParam(`per_page must be an integer from 1 to ${MAX_PER_PAGE}`, 1, MAX_PER_PAGE, DEFAULT_PER_PAGE).meta({ description: `Items per page, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}). Larger values are rejected with 400, not clamped. Example: \`20\`.` });

/** `fields=a,b`: a comma-separated subset of the item's fields; unknown or empty names are rejected. */
export function fieldsSchema(allowed: readonly string[]) {
  return z
    .string({ error: `fields must be a comma-separated list of: ${allowed.join(', ')}` })
    .superRefine((value, ctx) => {
      const names = value.split(',').map((n) => n.trim());
      if (names.some((n) => n === '')) {
        ctx.addIssue({ code: 'custom', message: `fields must not contain empty names; choose from: ${allowed.join(', ')}` });
        return;
      }
      const unknown = names.filter((n) => !allowed.includes(n));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `fields has unknown field(s) ${unknown.map((n) => `'${n}'`).join(', ')}; choose from: ${allowed.join(', ')}`,
        });
      }
    })
    .meta({ description: `Comma-separated fields to return, from: ${allowed.join(', ')}. Default: all. Unknown or empty names are rejected with 400. Example: \`${allowed.slice(0, 2).join(',')}\`.` })
    .optional();
}

export function parseFields(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : [...new Set(value.split(',').map((n) => n.trim()))];
}

function dateFilterSchema(op: string) {
  const name = `created_at[${op}]`;
  return z
    .string({ error: `${name} ${DATE_RULE}` })
    .refine((v) => parseDateParam(v) !== undefined, { error: `${name} ${DATE_RULE}` })
    .meta({ description: `Only items created ${describeOperator(op)} this ISO 8601 date or date-time (with Z or an offset). A date alone means that whole UTC day. Combines with the other created_at filters (AND). Example: \`${op === 'lt' || op === 'lte' ? '2026-02-01' : '2026-01-15T09:30:00Z'}\`.` })
    .optional();
}

function describeOperator(op: string): string {
  return { eq: 'at (or, for a date, within)', gte: 'at or after', lte: 'at or before (for a date, through its end)', gt: 'after (for a date, after its end)', lt: 'before' }[op] ?? op;
}

export const createdAtFilterShape = {
  'created_at[eq]': dateFilterSchema('eq'),
  'created_at[gte]': dateFilterSchema('gte'),
  'created_at[lte]': dateFilterSchema('lte'),
  'created_at[gt]': dateFilterSchema('gt'),
  'created_at[lt]': dateFilterSchema('lt'),
} satisfies Record<`created_at[${DateOperator}]`, ReturnType<typeof dateFilterSchema>>;

/** Path parameters: opaque ids. `kind` names what the id addresses when the parameter's name does not say it. */
export const idParam = (name: string, kind = name.replace(/_id$/, '').replace(/_/g, ' ')) =>
  z
    .string({ error: `${name} must be an id` })
    .min(1, { error: `${name} must be an id` })
    .max(64, { error: `${name} must be at most 64 characters` })
    .meta({ description: `The ${kind} id (an opaque string, at most 64 characters).` });

/** Unknown query parameters are an error: a typo must not silently return unfiltered data. */
export function strictQuery<S extends z.ZodRawShape>(shape: S) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Unknown query parameter(s): ${iss.keys.map((k: string) => `'${k}'`).join(', ')}; allowed: ${allowed}`
        : undefined,
  });
}

export interface ListParamsSpec {
  fields: readonly string[];
  sort: readonly [string, ...string[]];
  defaultOrder: SortOrder;
  filterCreatedAt: boolean;
}

export function listQueryShape(spec: ListParamsSpec) {
  const sortRule = `sort must be one of: ${spec.sort.join(', ')}`;
  return {
    page: pageSchema,
    per_page: perPageSchema,
    sort: z
      .enum(spec.sort, { error: sortRule })
      .default(spec.sort[0])
      .meta({ description: `Sort field, one of: ${spec.sort.join(', ')} (default ${spec.sort[0]}). Ties are broken by id in the same order, so pages never repeat or skip items. Example: \`${spec.sort[spec.sort.length - 1]}\`.` }),
    order: z
      .enum(['asc', 'desc'], { error: 'order must be asc or desc' })
      .default(spec.defaultOrder)
      .meta({ description: `Sort order: asc or desc (default ${spec.defaultOrder}). Example: \`${spec.defaultOrder === 'desc' ? 'asc' : 'desc'}\`.` }),
    fields: fieldsSchema(spec.fields),
    ...(spec.filterCreatedAt ? createdAtFilterShape : {}),
  };
}
