/**
 * Opsgenie's history (docs/history.md; README.md here): the account's alerts from its Alert API (restApi.ts), with their
 * notes, as the webhook (webhook.ts) would have brought them: the same alert id, the same names to map it by (its
 * owner team, its responding teams, its teams' ids, its tags), a note naming a commit as a word on the incident.
 */
import { z } from 'zod';
import type { HistoryPage, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from '../../services/history/historySource';
import type { OperationEvent } from '../../services/operations/operationInput';
import { ProviderFailure } from '../../outbound/providerHttp';
import { readCursor } from '../common/apiAnswer';
import { alertsAnswer, ListedAlert, notesAnswer, OPSGENIE_API_URL, opsgenieGet, PAGE_LIMIT, teamsAnswer } from './restApi';
import { alertOperation, boardsOf, noteOperation, OpsgenieAlert, priorityOf, teamOf } from './webhook';

/**
 * One scope, the account: Opsgenie lists an account's alerts, and an alert may have no team or several, so teams as
 * scopes would miss the one kind and read the other twice. Its progress counts the alerts read.
 */
const ACCOUNT: HistoryScope = { key: 'account', name: 'Opsgenie account' };

/**
 * Opsgenie's alert list stops at offset 20,000, so the listing is not paged by offset: each page asks for the alerts
 * created since the last one read, skipping only those of that same millisecond already read.
 */
const OFFSET_CAP = 20_000;
/** Where the listing goes on: the alerts created from `from` (epoch milliseconds), after the first `skip` of them. */
const cursorOf = z.object({ from: z.number().int().nonnegative(), skip: z.number().int().min(0).max(OFFSET_CAP) });
type Position = z.infer<typeof cursorOf>;

export const opsgenieHistory: HistorySource = {
  defaultBaseUrl: OPSGENIE_API_URL,
  scopeNoun: 'accounts',
  kinds: ['alerts'],

  async scopes(reading, only) {
    // Asked once here, so that a refused key stops the run before any page.
    await teamNames(reading, "Opsgenie's teams");
    const unknown = only?.find((wanted) => wanted !== ACCOUNT.key && wanted.toLowerCase() !== ACCOUNT.name.toLowerCase());
    if (unknown !== undefined) throw new ProviderFailure(`Opsgenie: '${unknown}' is no part of the account; its alerts are read whole (leave out --repos)`);
    return [ACCOUNT];
  },

  async *pages(reading, scope, kind, window, cursor) {
    const what = `Opsgenie's alerts of the ${scope.name}`;
    if (kind !== 'alerts') throw new ProviderFailure(`${what}: Opsgenie's history has alerts, not ${kind}`);
    const teams = await teamNames(reading, `${what}: its teams`);
    let at: Position | null = cursor === null ? { from: window.since.getTime(), skip: 0 } : readCursor(cursorOf, cursor, what);
    while (at) {
      const { page, next } = await alertsPage(reading, teams, window, at, what);
      yield page;
      at = next;
    }
  },
};

/** The account's teams, by id: an alert lists its teams by id, a delivery by name too. */
async function teamNames(reading: HistoryReading, what: string): Promise<Map<string, string>> {
  const { data } = await opsgenieGet(reading, '/v2/teams', teamsAnswer, what);
  return new Map(data.map((team) => [team.id, team.name]));
}

/** One page of alerts, oldest first, each with its notes that name a commit. */
async function alertsPage(reading: HistoryReading, teams: Map<string, string>, window: HistoryWindow, at: Position, what: string): Promise<{ page: HistoryPage; next: Position | null }> {
  const query = new URLSearchParams({
    query: `createdAt>=${at.from} AND createdAt<=${window.until.getTime()}`,
    sort: 'createdAt',
    order: 'asc',
    limit: String(PAGE_LIMIT),
    offset: String(at.skip),
  });
  const listed = await opsgenieGet(reading, `/v2/alerts?${query}`, alertsAnswer, what);
  const operations: OperationEvent[] = [];
  for (const alert of listed.data) operations.push(alertOperation(alertState(alert, teams)), ...(await notesOf(reading, alert.id, what)));
  // A full page, or a link to the next: Opsgenie may give fewer than asked.
  const more = listed.data.length > 0 && (listed.data.length >= PAGE_LIMIT || Boolean(listed.paging?.next));
  const next = more ? nextPosition(listed.data, at, what) : null;
  return { page: { read: listed.data.length, operations, next: next && JSON.stringify(next) }, next };
}

/** After a page: from its last alert's creation, past those of that millisecond this listing has read. */
function nextPosition(alerts: ListedAlert[], at: Position, what: string): Position {
  const last = alerts[alerts.length - 1].createdAt.getTime();
  const sameMillisecond = alerts.filter((a) => a.createdAt.getTime() === last).length;
  const skip = last === at.from ? at.skip + alerts.length : sameMillisecond;
  if (skip + PAGE_LIMIT > OFFSET_CAP) throw new ProviderFailure(`${what}: more than ${OFFSET_CAP - PAGE_LIMIT} alerts created at ${new Date(last).toISOString()}, past Opsgenie's paging`);
  return { from: last, skip };
}

/** The alert as its webhook's Create or Close would leave it, with the names it may be mapped by. */
function alertState(alert: ListedAlert, teams: Map<string, string>): OpsgenieAlert {
  const closeTime = alert.report?.closeTime;
  const closedAt = alert.status !== 'closed' ? null : closeTime === null || closeTime === undefined ? alert.updatedAt : new Date(alert.createdAt.getTime() + closeTime);
  const teamName = (id: string | null | undefined) => (id ? (teams.get(id) ?? null) : null);
  const responders = (alert.responders ?? []).filter((r) => r.type === 'team').map((r) => ({ type: 'team', name: teamName(r.id) }));
  const names = { team: teamName(alert.ownerTeamId), responders };
  return {
    alertId: alert.id,
    message: alert.message,
    // The list leaves the description out; an alert's Create delivery reads it, and what it named is kept.
    description: null,
    createdAt: alert.createdAt,
    closedAt,
    updatedAt: alert.updatedAt,
    boards: boardsOf({ ...names, teams: (alert.teams ?? []).map((t) => t.id), tags: alert.tags }),
    priority: priorityOf(alert.priority),
    team: teamOf(names),
  };
}

type NotesPage = z.infer<typeof notesAnswer>;

/** The alert's notes that name a commit, oldest first, a page at a time (Opsgenie pages them by an offset of its own). */
async function notesOf(reading: HistoryReading, id: string, what: string): Promise<OperationEvent[]> {
  const named: OperationEvent[] = [];
  let offset: string | null = null;
  do {
    const query = new URLSearchParams({ identifierType: 'id', order: 'asc', limit: String(PAGE_LIMIT), ...(offset === null ? {} : { offset, direction: 'next' }) });
    const page: NotesPage = await opsgenieGet(reading, `/v2/alerts/${encodeURIComponent(id)}/notes?${query}`, notesAnswer, `${what}: alert ${id}'s notes`);
    for (const { note } of page.data) {
      const noted = noteOperation(id, note);
      if (typeof noted !== 'string') named.push(noted);
    }
    // Only a full page can have a next; a link back to the same place would never end.
    const next: string | null = page.data.length === PAGE_LIMIT ? offsetOf(page.paging?.next) : null;
    offset = next === offset ? null : next;
  } while (offset !== null);
  return named;
}

/** The `offset` of a page's `next` link: the link names Opsgenie's own host, so only its offset is taken. */
function offsetOf(next: string | null | undefined): string | null {
  if (!next) return null;
  try {
    return new URL(next).searchParams.get('offset');
  } catch {
    return null;
  }
}
