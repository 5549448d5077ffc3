import { z } from 'zod';
import type { CommitInput } from '../../services/git/activity';
import { invalid } from '../../errors';
import { providerTime } from './times';

/** Reads the fields a translation uses; others pass untouched. A mismatch is a 400 naming the first bad field. */
export function readPayload<S extends z.ZodType>(schema: S, payload: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue.path.length ? issue.path.join('.') : 'the body';
  throw invalid(`Not ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} payload: ${path}: ${issue.message}`);
}

/**
 * Tells one event's body from another's by its top-level fields (docs/ingest.md#one-body-one-event). The signature
 * covers the body, not the header that names the event, so a signed body of one event resent under another's name
 * must not be read as that event. `fields` holds each event's top-level fields as its provider documents them. A body
 * that deletes (a repository, a task) is taken only when it carries nothing but its own event's fields; any other,
 * when it carries none of the fields that only other events' bodies carry, so a field the provider adds later to an
 * event that changes nothing irreversible does not stop its deliveries.
 */
export function eventBodies<E extends string>(fields: Record<E, readonly string[]>) {
  const everyEvents = new Set(Object.values<readonly string[]>(fields).flat());
  return <S extends z.ZodObject>(event: E, schema: S, change: 'deletes' | 'keeps' = 'keeps') => {
    const own = new Set(fields[event]);
    const foreign = (key: string) => !own.has(key) && (change === 'deletes' || everyEvents.has(key));
    return schema.superRefine((body, ctx) => {
      const key = Object.keys(body).find(foreign);
      if (key === undefined) return;
      const message =
        change === 'deletes'
          ? `${event} bodies carry no such field, and a deletion is read only from its own event's body: this is another event's body under the ${event} name`
          : `a field of another event's body, never of ${event} bodies: this is another event's body under the ${event} name`;
      ctx.addIssue({ code: 'custom', path: [key], message });
    });
  };
}

export const text = z.string();
export const nullableText = z.string().nullish().transform((v) => v ?? null);
/** Provider ids are numbers (GitHub, GitLab) or strings; kept as strings. */
export const providerId = z.union([z.number().int(), z.string().min(1).max(100)], { error: 'an id is a number or 1 to 100 characters' }).transform(String);
export const time = z.union([z.string(), z.number()]);
/** A pull (merge) request's number: the column is a signed 32-bit INT. */
export const pullRequestNumber = z.number().int().positive().max(2_147_483_647);
export const nullableTime = time.nullish();
/**
 * A commit a pull request names (its head, the commit that merged it): a full SHA-1, else unknown. Only a figure
 * reads it, so an odd value (a SHA-256 repository's) is left out rather than refusing the delivery.
 */
export const commitSha = z
  .string()
  .regex(/^[0-9a-f]{40}$/i)
  .transform((v) => v.toLowerCase())
  .nullish()
  .catch(null)
  .transform((v) => v ?? null);

/** Lines added or deleted: the columns are signed 32-bit INTs. */
export const lineCount = z.number().int().nonnegative().max(2_147_483_647);

/** `root cause: <sha>` in an incident's description names the commit that caused it (docs/ingest.md). */
export const rootCause = (body: string | null | undefined): string | null => shaAfter('root cause', body);

/** `fixed by: <sha>` in an incident's description names the commit that fixed it: its deployment is rework (docs/metrics.md). */
export const fixedBy = (body: string | null | undefined): string | null => shaAfter('fixed by', body);

const SHA_AFTER = { 'root cause': /root cause:\s*([0-9a-f]{7,40})\b/i, 'fixed by': /fixed by:\s*([0-9a-f]{7,40})\b/i };

function shaAfter(label: keyof typeof SHA_AFTER, body: string | null | undefined): string | null {
  const match = body ? SHA_AFTER[label].exec(body) : null;
  return match ? match[1].toLowerCase() : null;
}

/** An issue is an incident when labelled `incident` (any case). */
export const isIncidentLabel = (name: string) => name.trim().toLowerCase() === 'incident';

/** The commits of a push, as GitHub and GitLab both list them (GitLab names no author user name). */
export const pushedCommits = z
  .array(
    z.looseObject({
      id: z.string().regex(/^[0-9a-f]{40}$/, 'a commit id is 40 hex digits'),
      message: text,
      timestamp: time,
      author: z.looseObject({ name: text, email: nullableText, username: nullableText }),
    }),
  )
  .nullish();

export function commitInputs(commits: z.infer<typeof pushedCommits>): CommitInput[] {
  return (commits ?? []).map((c, i) => ({
    sha: c.id,
    message: c.message,
    authorName: c.author.name,
    authorEmail: c.author.email,
    authorUsername: c.author.username,
    createdAt: providerTime(c.timestamp, `commits.${i}.timestamp`),
  }));
}
