import { z } from 'zod';

/** ISO 8601 UTC timestamps with milliseconds and `Z`. */
export const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC timestamp', example: '2026-01-15T10:30:00.000Z' });
export const nullableTimestamp = timestamp.nullable();

export const ListMeta = z
  .object({
    page: z.number().int().min(1),
    per_page: z.number().int().min(1).max(100),
    total: z.number().int().min(0),
    total_pages: z.number().int().min(0),
    sort: z.string().meta({ description: 'Sort field in force (default included)' }),
    order: z.enum(['asc', 'desc']),
  })
  .meta({ id: 'ListMeta' });

/** `fields` may select a subset, so every property of a published item is optional on the wire. */
export function publishedItem<T extends z.ZodRawShape>(name: string, item: z.ZodObject<T>, description: string) {
  return item.partial().meta({ id: name, description: `${description} All fields are present unless \`fields\` selects a subset.` });
}

export function listEnvelope<T extends z.ZodType>(name: string, item: T) {
  return z
    .object({ status: z.literal('success'), data: z.array(item), meta: ListMeta })
    .meta({ id: `${name}List` });
}

export function itemEnvelope<T extends z.ZodType>(name: string, item: T) {
  return z.object({ status: z.literal('success'), data: item }).meta({ id: `${name}Response` });
}

/** What a metric answer says of how it was computed (docs/metrics.md#what-counts). */
export const MetricMeta = z
  .object({
    settings_version: z
      .number()
      .int()
      .min(0)
      .meta({ description: "The version of the organization's settings of what counts that the figures were computed under: 0 for the defaults, one more with each change (docs/metrics.md#what-counts)." }),
  })
  .meta({ id: 'MetricMeta' });

/** A metric's answer: its figures, and the settings version they stand on. */
export function metricEnvelope<T extends z.ZodType>(name: string, item: T) {
  return z.object({ status: z.literal('success'), data: item, meta: MetricMeta }).meta({ id: `${name}Response` });
}

export const ErrorEnvelope = z
  .object({
    status: z.literal('error'),
    error: z.object({
      code: z.enum(['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'REQUEST_TIMEOUT', 'URI_TOO_LONG', 'RATE_LIMITED', 'HEADERS_TOO_LARGE', 'SERVER_ERROR', 'SERVICE_UNAVAILABLE']),
      message: z.string(),
    }),
  })
  .meta({ id: 'Error' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** The one builder of the error envelope, for every surface that answers in it (REST, ingest). */
export function errorEnvelope(code: string, message: string): { status: 'error'; error: { code: string; message: string } } {
  return { status: 'error', error: { code, message } };
}
