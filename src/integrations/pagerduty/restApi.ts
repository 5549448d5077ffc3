/**
 * PagerDuty's REST API v2 (https://developer.pagerduty.com/api-reference) as the history importer reads it
 * (history.ts): `Authorization: Token token=<key>`, the version in `Accept`, offset paging (`limit`, `offset`, `more`).
 * PagerDuty's official Node client (@pagerduty/pdjs) is not well kept: its repository's default branch last changed in
 * May 2022, it waits a fixed 20 seconds on a 429 whatever PagerDuty says, and calls fetch itself, past the outgoing-call
 * guard. So every call goes through providerRequest (src/outbound/providerHttp.ts), which waits PagerDuty's rate limit
 * out, retries a 5xx and turns a 401 or 403 into CredentialRefused.
 */
import { z } from 'zod';
import type { HistoryReading } from '../../services/history/historySource';
import { jsonOf, ProviderFailure, providerRequest } from '../../outbound/providerHttp';
import { apiTime, readAnswer } from '../common/apiAnswer';
import { triage } from './webhook';

export const PAGERDUTY_API_URL = 'https://api.pagerduty.com';

/** The most a page of PagerDuty's lists holds. */
export const PAGE_LIMIT = 100;

/** The answer at `path` (a path and query under the API's root), read with `schema`; `what` names it in failures. */
export async function pagerdutyGet<S extends z.ZodType>(reading: HistoryReading, path: string, schema: S, what: string): Promise<z.infer<S>> {
  if (reading.credential.kind !== 'token') throw new ProviderFailure(`${what}: PagerDuty is read with a REST API key: store one with npm run apps -- set-credential --app <id> --token-file <file>`);
  const answer = await providerRequest(
    reading.http,
    `${reading.baseUrl.replace(/\/+$/, '')}${path}`,
    { headers: { Authorization: `Token token=${reading.credential.token}`, Accept: 'application/vnd.pagerduty+json;version=2' } },
    what,
  );
  return readAnswer(schema, await jsonOf(answer, what), what);
}

/** A path with its query: `[]` names repeat (`statuses[]=triggered&statuses[]=resolved`). */
export function withQuery(path: string, query: Record<string, string | number | readonly string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of typeof value === 'object' ? value : [value]) params.append(name, String(one));
  }
  return `${path}?${params}`;
}

const id = z.string().min(1).max(100);
/** Every list's paging, as the API documents it (`total` is null unless asked for). */
const paged = { more: z.boolean().nullish().transform((more) => more === true) };

export const servicesAnswer = z.looseObject({
  services: z.array(z.looseObject({ id, name: z.string().max(1_000) })),
  ...paged,
});

export const incidentsAnswer = z.looseObject({
  incidents: z.array(
    z.looseObject({
      id,
      title: z.string().max(10_000),
      status: z.string(),
      created_at: apiTime,
      /** When it came to its present state (acknowledged, resolved…); answers before 2023 may lack `resolved_at`. */
      last_status_change_at: apiTime.nullish(),
      resolved_at: apiTime.nullish(),
      service: z.looseObject({ id, summary: z.string().nullish() }),
      ...triage,
    }),
  ),
  ...paged,
});

export type ListedIncident = z.infer<typeof incidentsAnswer>['incidents'][number];

export const logEntriesAnswer = z.looseObject({
  log_entries: z.array(z.looseObject({ type: z.string(), created_at: apiTime })),
  ...paged,
});

export const notesAnswer = z.looseObject({
  notes: z.array(z.looseObject({ content: z.string().max(100_000) })),
});
