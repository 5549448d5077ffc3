import { z } from 'zod';
import { ProviderFailure } from '../../outbound/providerHttp';
import { providerTime } from './times';

/**
 * Reads the fields an importer uses from a provider's API answer (docs/history.md); others pass untouched. An answer
 * that does not fit is the provider's, not the caller's: a ProviderFailure naming what was read and the first bad field,
 * never the 400 a webhook's payload gets.
 */
export function readAnswer<S extends z.ZodType>(schema: S, answer: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue.path.length ? issue.path.join('.') : 'the answer';
  throw new ProviderFailure(`${what}: the answer does not fit (${path}: ${issue.message})`);
}

/** A provider's ISO 8601 time in an API answer, as the webhooks read it (times.ts). */
export const apiTime = z.string().transform((value, ctx) => {
  try {
    return providerTime(value, 'time');
  } catch {
    ctx.addIssue({ code: 'custom', message: `not a time: ${JSON.stringify(value.slice(0, 40))}` });
    return z.NEVER;
  }
});

/** The cursor an importer handed out, read back; anything else is a cursor of another version or none at all. */
export function readCursor<S extends z.ZodType>(schema: S, cursor: string, what: string): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(cursor);
  } catch {
    value = undefined;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProviderFailure(`${what}: the stored cursor ${JSON.stringify(cursor.slice(0, 80))} is not one this importer makes; import again with --since`);
  return parsed.data;
}
