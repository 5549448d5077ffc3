/**
 * PagerDuty's REST API v2 as the history row serves it (src/integrations/pagerduty/history.ts reads it): the account's
 * services, each one's incidents created within `since`/`until`, oldest first, offset-paged as PagerDuty pages them
 * (`limit`, `offset`, `more`), each incident's log entries and an annotated one's notes. Every object is a recorded one
 * (test/fixtures/history/pagerduty/README.md: PagerDuty's documented service and notes, Apache DevLake's recording of
 * three incidents of one service with their logs, triggered, acknowledged and resolved) with its ids and times
 * replaced; the incidents take the recorded ones in turn, most of a year's resolved.
 */
import { recorded, recordedList, varied } from './fixtures';
import { before, FakeAnswer, FakeApi, notFound, share, spreadTime, World } from './world';

const serviceTemplate = recorded('fixtures/history/pagerduty/listServices.json').services[0];
const notesAnswer = recorded('fixtures/history/pagerduty/listNotes.json');
const incidents = recordedList('fixtures/history/pagerduty/devlakeIncidents.json');
const resolved = incidents.find((i) => i.status === 'resolved')!;
const acknowledged = incidents.find((i) => i.status === 'acknowledged')!;
const triggered = incidents.find((i) => i.status === 'triggered')!;

export const pagerdutySizes = (quick: boolean) => (quick ? { services: 5, incidents: 500 } : { services: 30, incidents: 6_000 });

const serviceId = (s: number) => `PBENCH${String(s).padStart(3, '0')}`;
const incidentId = (s: number, k: number) => `QBENCH${String(s).padStart(3, '0')}N${k}`;
const pagerdutyTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '.000000Z');
const MINUTE_MS = 60_000;

function service(s: number) {
  return varied(serviceTemplate, { id: serviceId(s), name: `Service ${String(s).padStart(3, '0')}`, summary: `Service ${String(s).padStart(3, '0')}`, self: `https://api.pagerduty.com/services/${serviceId(s)}` });
}

/** Service `s`'s incidents: rank 0 the newest. Nearly all of a year's are resolved; the newest few still open. */
function incident(world: World, s: number, k: number) {
  const count = share(world.sizes.incidents, world.sizes.services, s);
  const g = before(world.sizes.incidents, world.sizes.services, s) + k;
  const created = spreadTime(world, k, count, s);
  const template = k === 0 ? triggered : k === 1 ? acknowledged : resolved;
  const changed = created + (template === triggered ? 0 : 35 * MINUTE_MS);
  const { log_entries: _log, ...listed } = template;
  return {
    listed: varied(listed, {
      id: incidentId(s, k),
      incident_number: g + 1,
      created_at: pagerdutyTime(created),
      last_status_change_at: pagerdutyTime(changed),
      incident_key: `bench${g}`,
      service: { ...template.service, id: serviceId(s), summary: service(s).name },
      self: `https://api.pagerduty.com/incidents/${incidentId(s, k)}`,
    }),
    template,
    created,
    changed,
  };
}

/** The incident's log as recorded for its kind of incident, newest first, its times moved to its own. */
function logOf(world: World, s: number, k: number) {
  const { template, created, changed } = incident(world, s, k);
  const entries = template.log_entries as Record<string, unknown>[];
  return entries.map((entry, i) => {
    // The recorded log spans the incident's life: the newest at its last change, the oldest at its creation.
    const at = entries.length === 1 ? created : Math.round(changed - ((changed - created) * i) / (entries.length - 1));
    return varied(entry, { id: `RBENCH${s}N${k}E${i}`, created_at: pagerdutyTime(at), incident: { ...(entry.incident as object), id: incidentId(s, k) } });
  });
}

/** A page of `items`, as PagerDuty's classic offset paging answers it. */
function paged(url: URL, name: string, count: number, item: (i: number) => unknown): FakeAnswer {
  const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 25));
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const list = Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, i) => item(offset + i));
  return { status: 200, body: { [name]: list, limit, offset, more: offset + limit < count, total: null } };
}

export function pagerdutyApi(world: World): FakeApi {
  const services = world.sizes.services;
  return ({ url, headers }) => {
    if (headers.authorization !== `Token token=${world.token}`) return { status: 401, body: { error: { message: 'Unauthorized', code: 2006 } } };
    if (url.pathname === '/services') return paged(url, 'services', services, service);
    if (url.pathname === '/incidents') {
      const s = Number(/^PBENCH(\d{3})$/.exec(url.searchParams.get('service_ids[]') ?? '')?.[1] ?? -1);
      if (s < 0 || s >= services) return paged(url, 'incidents', 0, () => null);
      const count = share(world.sizes.incidents, services, s);
      // Created at or after `since`, before `until`, oldest first: the ranks from `last` down to `first`.
      const [since, until] = [Date.parse(url.searchParams.get('since') ?? ''), Date.parse(url.searchParams.get('until') ?? '')];
      const first = firstRank(world, count, s, (at) => at < until);
      const last = firstRank(world, count, s, (at) => at < since) - 1;
      return paged(url, 'incidents', Math.max(0, last - first + 1), (i) => incident(world, s, last - i).listed);
    }
    const m = /^\/incidents\/QBENCH(\d{3})N(\d+)\/(log_entries|notes)$/.exec(url.pathname);
    if (!m) return notFound({ error: { message: 'Not Found', code: 2100 } });
    const [s, k] = [Number(m[1]), Number(m[2])];
    if (m[3] === 'notes') return { status: 200, body: notesAnswer };
    const entries = logOf(world, s, k);
    return paged(url, 'log_entries', entries.length, (i) => entries[i]);
  };
}

/** The first rank (0: newest) whose creation time `holds` (times fall as ranks rise). */
function firstRank(world: World, count: number, s: number, holds: (at: number) => boolean): number {
  let [lo, hi] = [0, count];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (holds(spreadTime(world, mid, count, s))) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
