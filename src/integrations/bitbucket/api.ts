/**
 * Bitbucket Cloud's REST API 2.0 as the history importer reads it (README.md#history): plain requests through the
 * careful provider client (src/outbound/providerHttp.ts). Atlassian keeps no Node client for Bitbucket Cloud, and a
 * community one (`bitbucket`, `@coderabbitai/bitbucket`) would bring a dependency for four GET requests while its
 * waits and address checks would have to be routed back through ours. Every list answers a page, `{values, next}`;
 * the `next` address is the one way on.
 */
import { z } from 'zod';
import type { Credential } from '../../services/apps/credential';
import type { HistoryReading } from '../../services/history/historySource';
import { DomainError } from '../../errors';
import { jsonOf, ProviderFailure, providerRequest } from '../../outbound/providerHttp';

/** The API's root when no `--base-url` is given. */
export const BITBUCKET_API = 'https://api.bitbucket.org/2.0';

/** A page of any listing. */
const page = z.looseObject({ values: z.array(z.unknown()), next: z.string().nullish() });
export interface ListPage {
  values: unknown[];
  next: string | null;
}

/**
 * The Authorization header a stored token makes. An access token (repository, project or workspace) is a Bearer token;
 * an API token is sent with its owner's e-mail as Basic, so its file holds `email:api_token`: a token whose part before
 * the first colon is an e-mail address is that pair.
 */
export function authorization(credential: Credential): string {
  if (credential.kind !== 'token') throw new ProviderFailure("Bitbucket is read with a token; a GitHub App's key reads GitHub only");
  const colon = credential.token.indexOf(':');
  const isEmailPair = colon > 0 && credential.token.slice(0, colon).includes('@');
  return isEmailPair ? `Basic ${Buffer.from(credential.token).toString('base64')}` : `Bearer ${credential.token}`;
}

/** `path` under the API's root, with its query. */
export function apiUrl(reading: HistoryReading, path: string, query: Record<string, string | readonly string[]> = {}): string {
  const url = new URL(`${root(reading)}${path}`);
  for (const [name, value] of Object.entries(query)) for (const v of typeof value === 'string' ? [value] : value) url.searchParams.append(name, v);
  return url.toString();
}

/** A repository's path in the API: `/repositories/{workspace}/{slug}`, each part as its own segment. */
export const repositoryPath = (fullName: string) => `/repositories/${fullName.split('/').map(encodeURIComponent).join('/')}`;

/** One object the API answers (a repository). */
export async function getOne(reading: HistoryReading, url: string, what: string): Promise<unknown> {
  const answer = await providerRequest(reading.http, withinRoot(reading, url, what), { headers: headersOf(reading) }, what);
  return jsonOf(answer, what);
}

/** One page of a listing; `next` is checked to stay under the API's root, where the credential may be sent. */
export async function getPage(reading: HistoryReading, url: string, what: string): Promise<ListPage> {
  const body = parsed(page, await getOne(reading, url, what), what);
  return { values: body.values, next: body.next ? withinRoot(reading, body.next, what) : null };
}

/** The fields a translation reads, or a failure naming the first that is not as Bitbucket documents it. */
export function parsed<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ProviderFailure(`${what}: the answer is not as Bitbucket documents it (${issue.path.join('.') || 'the body'}: ${issue.message})`);
}

/**
 * An address to send the credential to: under the API's root only. A `next` link elsewhere (an answer tampered with,
 * a proxy's own host) would carry the token off, so it is refused.
 */
export function withinRoot(reading: HistoryReading, url: string, what: string): string {
  const base = new URL(root(reading));
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ProviderFailure(`${what}: '${url.slice(0, 200)}' is not an address`);
  }
  if (target.origin !== base.origin || !`${target.pathname}/`.startsWith(`${base.pathname}/`)) {
    throw new ProviderFailure(`${what}: the next page's address ${target.origin}${target.pathname} is not under the API's root ${base.origin}${base.pathname}`);
  }
  return target.toString();
}

const root = (reading: HistoryReading) => reading.baseUrl.replace(/\/+$/, '');
const headersOf = (reading: HistoryReading) => ({ authorization: authorization(reading.credential), accept: 'application/json' });

/** A translation of what the API answered: a time or id it cannot read (the webhook's 400) is an answer it cannot use. */
export function translated<T>(what: string, translate: () => T): T {
  try {
    return translate();
  } catch (err) {
    if (err instanceof DomainError) throw new ProviderFailure(`${what}: ${err.message}`);
    throw err;
  }
}
