/**
 * A Slack workspace's members read from its Web API for linking them to the organization's members by e-mail
 * (docs/conversations.md#linking-accounts): `users.list`, 200 a page by `cursor`, with the `users:read` and
 * `users:read.email` scopes. Its `members` are the user objects `users.info` answers, one page per 200 accounts
 * rather than a call per account. Deleted accounts, bots and accounts without an e-mail are left out.
 */
import { z } from 'zod';
import { AnswerTooLarge, OutboundPolicy, outboundFetch, RefusedDestination } from '../../outbound/outboundFetch';

export const SLACK_API_URL = 'https://slack.com/api';

/** A failure the operator can act on: the token, the address, Slack's answer. */
export class SlackImportError extends Error {}

export interface SlackImportOptions {
  /** A bot token (`xoxb-…`) of the Slack app, sent as a bearer token. */
  token: string;
  /** The Web API's root; `users.list` is `<baseUrl>/users.list`. */
  baseUrl?: string;
  /** Where calls may go and how much of an answer is read (src/outbound). */
  outbound: OutboundPolicy;
  /** Told of each wait for a rate limit. */
  onWait?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** An account to link: its Slack id and its verified e-mail. */
export interface SlackAccount {
  externalId: string;
  email: string;
}

const user = z.looseObject({
  id: z.string().regex(/^[UW][A-Z0-9]{1,30}$/),
  deleted: z.boolean().nullish(),
  is_bot: z.boolean().nullish(),
  profile: z.looseObject({ email: z.string().max(320).nullish() }).nullish(),
});
const usersPage = z.looseObject({
  ok: z.literal(true),
  members: z.array(user),
  response_metadata: z.looseObject({ next_cursor: z.string().nullish() }).nullish(),
});
const failure = z.looseObject({ ok: z.literal(false), error: z.string().nullish(), needed: z.string().nullish() });

const MAX_WAITS = 5;
const MAX_WAIT_S = 600;
const REQUEST_TIMEOUT_MS = 60_000;

/** The workspace's people who can be linked, a page at a time. */
export async function* slackAccountPages(options: SlackImportOptions): AsyncGenerator<{ read: number; accounts: SlackAccount[] }> {
  let cursor = '';
  do {
    const page = await usersList(options, cursor);
    const people = page.members.filter((m) => !m.deleted && !m.is_bot && m.id !== 'USLACKBOT' && m.profile?.email);
    yield { read: page.members.length, accounts: people.map((m) => ({ externalId: m.id, email: m.profile?.email ?? '' })) };
    cursor = page.response_metadata?.next_cursor ?? '';
  } while (cursor);
}

/** One page of `users.list`, repeated after a rate limit's wait; a SlackImportError saying why not. */
async function usersList(options: SlackImportOptions, cursor: string): Promise<z.infer<typeof usersPage>> {
  const url = new URL(`${(options.baseUrl ?? SLACK_API_URL).replace(/\/+$/, '')}/users.list`);
  url.searchParams.set('limit', '200');
  if (cursor) url.searchParams.set('cursor', cursor);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let waits = 0; ; waits++) {
    let res: Response;
    try {
      res = await outboundFetch(options.outbound, url, { headers: { authorization: `Bearer ${options.token}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (e) {
      if (e instanceof RefusedDestination) throw new SlackImportError(`Refused to call ${url.origin}: ${e.message}`);
      throw new SlackImportError(`Could not reach Slack at ${url.origin}${url.pathname}: ${e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e)}`);
    }
    if (res.status === 429) {
      if (waits >= MAX_WAITS) throw new SlackImportError(`Slack's rate limit still refuses after ${MAX_WAITS} waits; run the import again later (links made stay made)`);
      const retryAfter = Number(res.headers.get('retry-after'));
      const seconds = Math.min(MAX_WAIT_S, Math.max(1, Number.isFinite(retryAfter) ? retryAfter : 30));
      options.onWait?.(seconds);
      await sleep(seconds * 1000);
      continue;
    }
    const body: unknown = await res.json().catch((err: unknown) => {
      // Not JSON is read as none (the checks below say so); past its cap, it is refused with what the cap says.
      if (err instanceof AnswerTooLarge) throw new SlackImportError(err.message);
      return null;
    });
    const refused = failure.safeParse(body);
    if (refused.success) {
      const why = refused.data.error ?? 'unknown_error';
      if (why === 'missing_scope') throw new SlackImportError(`Slack refused: the token lacks a scope (${refused.data.needed ?? 'users:read, users:read.email'}); add it to the Slack app and reinstall it`);
      if (['invalid_auth', 'not_authed', 'token_revoked', 'account_inactive'].includes(why)) throw new SlackImportError(`Slack refused the token (${why}); check --token-file (the Slack app's bot token, xoxb-…)`);
      throw new SlackImportError(`Slack answered ${res.status}: ${why}`);
    }
    const page = usersPage.safeParse(body);
    if (!res.ok || !page.success) throw new SlackImportError(`Slack's answer to users.list is not what its API documents (HTTP ${res.status}${page.success ? '' : `: ${page.error.issues[0].path.join('.')}: ${page.error.issues[0].message}`})`);
    return page.data;
  }
}
