/**
 * Opsgenie's REST API (https://docs.opsgenie.com/docs/alert-api, team-api) as the history importer reads it
 * (history.ts): `Authorization: GenieKey <key>`, at api.opsgenie.com or, for an account in Opsgenie's EU region,
 * api.eu.opsgenie.com (`--base-url`). Every call goes through providerRequest (src/outbound/providerHttp.ts), which
 * waits a 429 out, retries a 5xx and turns a 401 or 403 into CredentialRefused.
 */
import { z } from 'zod';
import type { HistoryReading } from '../../services/history/historySource';
import { jsonOf, ProviderFailure, providerRequest } from '../../outbound/providerHttp';
import { apiTime, readAnswer } from '../common/apiAnswer';

export const OPSGENIE_API_URL = 'https://api.opsgenie.com';

/** The most a page of alerts or notes holds. */
export const PAGE_LIMIT = 100;

/** The answer at `path` (a path and query under the API's root), read with `schema`; `what` names it in failures. */
export async function opsgenieGet<S extends z.ZodType>(reading: HistoryReading, path: string, schema: S, what: string): Promise<z.infer<S>> {
  if (reading.credential.kind !== 'token') throw new ProviderFailure(`${what}: Opsgenie is read with an API key: store one with npm run apps -- set-credential --app <id> --token-file <file>`);
  const answer = await providerRequest(reading.http, `${reading.baseUrl.replace(/\/+$/, '')}${path}`, { headers: { Authorization: `GenieKey ${reading.credential.token}` } }, what);
  return readAnswer(schema, await jsonOf(answer, what), what);
}

const id = z.string().min(1).max(100);
/** An alert's id, as its webhook reads it. */
const alertId = z.string().min(1).max(60).regex(/^[A-Za-z0-9-]+$/, { error: 'an Opsgenie alert id: letters, digits and -' });
const name = z.string().max(1_000);
/** Where a list goes on, when it does: the link to its next page (absent on the last). */
const paging = z.looseObject({ next: z.string().nullish() }).nullish();

export const teamsAnswer = z.looseObject({ data: z.array(z.looseObject({ id, name })) });

export const alertsAnswer = z.looseObject({
  data: z.array(
    z.looseObject({
      id: alertId,
      message: z.string().max(10_000),
      status: z.string(),
      createdAt: apiTime,
      updatedAt: apiTime,
      tags: z.array(name).max(100).nullish(),
      /** The alert's teams, by id only; their names come from the teams list. */
      teams: z.array(z.looseObject({ id })).max(100).nullish(),
      responders: z.array(z.looseObject({ type: z.string(), id })).max(100).nullish(),
      ownerTeamId: z.string().max(100).nullish(),
      priority: z.string().max(50).nullish(),
      /** `closeTime`: milliseconds from its creation to its close. */
      report: z.looseObject({ closeTime: z.number().int().nonnegative().nullish() }).nullish(),
    }),
  ),
  paging,
});

export type ListedAlert = z.infer<typeof alertsAnswer>['data'][number];

export const notesAnswer = z.looseObject({
  data: z.array(z.looseObject({ note: z.string().max(100_000).nullish() })),
  paging,
});
