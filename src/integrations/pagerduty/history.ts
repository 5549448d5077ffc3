/**
 * PagerDuty's history (docs/history.md; README.md here): each service's incidents from the REST API v2 (restApi.ts),
 * with their log entries (when each was resolved, whether it has notes) and the notes themselves, as the webhook
 * (webhook.ts) would have brought them: the same incident id, the service as its board, a note naming a commit as a
 * word on the incident.
 */
import { z } from 'zod';
import type { OperationEvent } from '../../services/operations/operationInput';
import type { HistoryPage, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from '../../services/history/historySource';
import { ProviderFailure } from '../../outbound/providerHttp';
import { readCursor } from '../common/apiAnswer';
import { incidentsAnswer, ListedIncident, logEntriesAnswer, notesAnswer, PAGE_LIMIT, PAGERDUTY_API_URL, pagerdutyGet, servicesAnswer, withQuery } from './restApi';
import { incidentOperation, noteOperation, triageOf } from './webhook';

const DAY_MS = 86_400_000;
/**
 * PagerDuty refuses a `since`/`until` range longer than 6 months (List incidents: "Maximum range is 6 months"), so a
 * longer window is read in spans of 180 days, one after the other, each paged on its own.
 */
const MAX_SPAN_MS = 180 * DAY_MS;
/**
 * Classic offset paging stops at offset 10,000 (Apache DevLake's PagerDuty collector stops there too): a span with more
 * incidents goes on from the last one's creation time, offset 0 again (the few created in that same second are read
 * twice, which changes nothing).
 */
const OFFSET_CAP = 10_000;
/** Every state PagerDuty has: an incident is stored whatever its state, as its webhook events store it. */
const STATUSES = ['triggered', 'acknowledged', 'resolved'];

/** Where a service's listing goes on: the span starting at `since`, from `offset`. */
const cursorOf = z.object({ since: z.iso.datetime(), offset: z.number().int().min(0).max(OFFSET_CAP) });
interface Position {
  since: Date;
  offset: number;
}

export const pagerdutyHistory: HistorySource = {
  defaultBaseUrl: PAGERDUTY_API_URL,
  scopeNoun: 'services',
  kinds: ['incidents'],

  async scopes(reading, only) {
    const services: HistoryScope[] = [];
    for (let more = true; more; ) {
      const page = await pagerdutyGet(reading, withQuery('/services', { limit: PAGE_LIMIT, offset: services.length, sort_by: 'name' }), servicesAnswer, "PagerDuty's services");
      services.push(...page.services.map((s) => ({ key: s.id, name: s.name })));
      more = page.more && page.services.length > 0;
    }
    if (!only) return services;
    const named = (service: HistoryScope, wanted: string) => service.key === wanted || service.name.toLowerCase() === wanted.toLowerCase();
    const unknown = only.find((wanted) => !services.some((s) => named(s, wanted)));
    if (unknown !== undefined) throw new ProviderFailure(`PagerDuty: the key reads no service '${unknown}' (by id or name; it reads ${services.length} service${services.length === 1 ? '' : 's'})`);
    return services.filter((s) => only.some((wanted) => named(s, wanted)));
  },

  async *pages(reading, scope, kind, window, cursor) {
    const what = `PagerDuty's incidents of service ${scope.name}`;
    if (kind !== 'incidents') throw new ProviderFailure(`${what}: PagerDuty's history has incidents, not ${kind}`);
    const stored = cursor === null ? null : readCursor(cursorOf, cursor, what);
    let at: Position | null = stored ? { since: new Date(stored.since), offset: stored.offset } : { since: window.since, offset: 0 };
    while (at && at.since < window.until) {
      const { page, next } = await incidentsPage(reading, scope, window, at, what);
      yield page;
      at = next;
    }
  },
};

/** One page of a span's incidents, oldest first, each with what its log and notes add. */
async function incidentsPage(reading: HistoryReading, scope: HistoryScope, window: HistoryWindow, at: Position, what: string): Promise<{ page: HistoryPage; next: Position | null }> {
  const until = new Date(Math.min(at.since.getTime() + MAX_SPAN_MS, window.until.getTime()));
  const query = {
    'service_ids[]': [scope.key],
    since: at.since.toISOString(),
    until: until.toISOString(),
    'statuses[]': STATUSES,
    sort_by: 'created_at:asc',
    time_zone: 'UTC',
    limit: PAGE_LIMIT,
    offset: at.offset,
  };
  const page = await pagerdutyGet(reading, withQuery('/incidents', query), incidentsAnswer, what);
  const operations: OperationEvent[] = [];
  for (const incident of page.incidents) operations.push(...(await incidentHistory(reading, incident, what)));
  const next = nextPosition(page, at, until, window, what);
  return { page: { read: page.incidents.length, operations, next: next && JSON.stringify({ since: next.since.toISOString(), offset: next.offset }) }, next };
}

function nextPosition(page: { incidents: ListedIncident[]; more: boolean }, at: Position, spanUntil: Date, window: HistoryWindow, what: string): Position | null {
  if (page.more) {
    const last = page.incidents.at(-1);
    if (!last) throw new ProviderFailure(`${what}: PagerDuty says more follow a page that lists none`);
    // PagerDuty may give fewer than asked: the next page starts after those it gave.
    const offset = at.offset + page.incidents.length;
    if (offset + PAGE_LIMIT <= OFFSET_CAP) return { since: at.since, offset };
    if (last.created_at <= at.since) throw new ProviderFailure(`${what}: more than ${OFFSET_CAP} incidents created at ${last.created_at.toISOString()}, past PagerDuty's paging`);
    return { since: last.created_at, offset: 0 };
  }
  return spanUntil < window.until ? { since: spanUntil, offset: 0 } : null;
}

/** The incident as its webhook events leave it, then each of its notes that names a commit. */
async function incidentHistory(reading: HistoryReading, incident: ListedIncident, what: string): Promise<OperationEvent[]> {
  const log = await logOf(reading, incident.id, what);
  const statusSince = incident.last_status_change_at ?? incident.created_at;
  const resolvedAt = incident.status === 'resolved' ? (incident.resolved_at ?? log.resolvedAt ?? statusSince) : null;
  const events = [incidentOperation({ id: incident.id, title: incident.title, serviceId: incident.service.id, createdAt: incident.created_at, resolvedAt, updatedAt: statusSince, ...triageOf(incident) })];
  if (!log.annotated) return events;
  const { notes } = await pagerdutyGet(reading, `/incidents/${encodeURIComponent(incident.id)}/notes`, notesAnswer, `${what}: incident ${incident.id}'s notes`);
  for (const note of notes) {
    const noted = noteOperation(incident.id, note.content);
    if (typeof noted !== 'string') events.push(noted);
  }
  return events;
}

/**
 * What an incident's log entries say that its listing may not: when it was last resolved (answers before 2023 have no
 * `resolved_at`), and whether anyone annotated it (only then are its notes read). Acknowledgements are in the log too,
 * but an incident keeps no acknowledgement time (nor does its webhook bring one). Read a page at a time, keeping two
 * values.
 */
async function logOf(reading: HistoryReading, incidentId: string, what: string): Promise<{ resolvedAt: Date | null; annotated: boolean }> {
  let resolvedAt: Date | null = null;
  let annotated = false;
  for (let offset = 0, more = true; more && offset + PAGE_LIMIT <= OFFSET_CAP; ) {
    const path = withQuery(`/incidents/${encodeURIComponent(incidentId)}/log_entries`, { limit: PAGE_LIMIT, offset, time_zone: 'UTC' });
    const page = await pagerdutyGet(reading, path, logEntriesAnswer, `${what}: incident ${incidentId}'s log`);
    for (const entry of page.log_entries) {
      if (entry.type === 'resolve_log_entry' && (!resolvedAt || entry.created_at > resolvedAt)) resolvedAt = entry.created_at;
      if (entry.type === 'annotate_log_entry') annotated = true;
    }
    offset += page.log_entries.length;
    more = page.more && page.log_entries.length > 0;
  }
  return { resolvedAt, annotated };
}
