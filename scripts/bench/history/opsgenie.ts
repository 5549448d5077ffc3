/**
 * Opsgenie's Alert API as the history row serves it (src/integrations/opsgenie/history.ts reads it): the account's
 * teams, its alerts created within the query's `createdAt>=…` and `createdAt<=…`, oldest first, offset-paged, and each
 * alert's notes. Every object is a recorded one (test/fixtures/history/opsgenie/README.md: Opsgenie's documented
 * closed alert as Faros keeps it, the teams and the list's envelope Cortex XSOAR recorded) with its ids and times
 * replaced; its responding team is one of the recorded teams, in turn. No alert has notes (no recorded notes answer
 * exists): each alert's notes are the empty page of the envelope the recorded list answers have.
 */
import { recorded, recordedList, varied } from './fixtures';
import { FakeAnswer, FakeApi, notFound, spreadTime, World } from './world';

const alertTemplate = recordedList('fixtures/history/opsgenie/farosAlerts.json').find((a) => a.status === 'closed')!;
const teams = recorded('fixtures/history/opsgenie/demistoTeams.json');
const envelope = recorded('fixtures/history/opsgenie/demistoListAlerts.json');

export const opsgenieSizes = (quick: boolean) => (quick ? { alerts: 600 } : { alerts: 8_000 });

const alertId = (k: number) => `b7da6303-0da4-43e2-8e21-${String(k).padStart(12, '0')}`;

/** The alert of rank `k` (0: the newest); closed after its recorded close time, but for the newest. */
function alert(world: World, k: number) {
  const created = spreadTime(world, k, world.sizes.alerts);
  const team = teams.data[k % teams.data.length];
  const closed = k > 1;
  return varied(alertTemplate, {
    id: alertId(k),
    tinyId: String(world.sizes.alerts - k),
    alias: `event_${world.sizes.alerts - k}`,
    status: closed ? 'closed' : 'open',
    createdAt: new Date(created).toISOString(),
    lastOccurredAt: new Date(created).toISOString(),
    updatedAt: new Date(created + (closed ? alertTemplate.report.closeTime : 0) + 5_000).toISOString(),
    snoozedUntil: new Date(created + 60_000).toISOString(),
    responders: alertTemplate.responders.map((r: Record<string, unknown>) => (r.type === 'team' ? { ...r, id: team.id } : r)),
    report: closed ? alertTemplate.report : {},
  });
}

/** The first rank (0: newest) created before `ms` (times fall as ranks rise). */
function firstBelow(world: World, ms: number): number {
  let [lo, hi] = [0, world.sizes.alerts];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spreadTime(world, mid, world.sizes.alerts) < ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function list(world: World, url: URL): FakeAnswer {
  const query = url.searchParams.get('query') ?? '';
  const from = Number(/createdAt>=(\d+)/.exec(query)?.[1] ?? 0);
  const to = Number(/createdAt<=(\d+)/.exec(query)?.[1] ?? Number.MAX_SAFE_INTEGER);
  const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
  const offset = Number(url.searchParams.get('offset') ?? 0);
  // Oldest first: ranks from the oldest at or after `from` up to the newest at or before `to`.
  const oldest = firstBelow(world, from) - 1;
  const newest = firstBelow(world, to + 1);
  const count = Math.max(0, oldest - newest + 1);
  const data = Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, i) => alert(world, oldest - offset - i));
  const paging: Record<string, string> = { first: pageAt(url, 0) };
  if (offset + limit < count) paging.next = pageAt(url, offset + limit);
  return { status: 200, body: { ...envelope, data, paging } };
}

const pageAt = (url: URL, offset: number) => {
  const at = new URL(url.pathname + url.search, 'https://api.opsgenie.com');
  at.searchParams.set('offset', String(offset));
  return at.href;
};

export function opsgenieApi(world: World): FakeApi {
  return ({ url, headers }) => {
    if (headers.authorization !== `GenieKey ${world.token}`) return { status: 401, body: { message: 'Could not authenticate', took: 0.0, requestId: envelope.requestId } };
    if (url.pathname === '/v2/teams') return { status: 200, body: teams };
    if (url.pathname === '/v2/alerts') return list(world, url);
    if (/^\/v2\/alerts\/[A-Za-z0-9-]+\/notes$/.test(url.pathname)) return { status: 200, body: { data: [], paging: {}, took: envelope.took, requestId: envelope.requestId } };
    return notFound({ message: 'Could not find', took: 0.0, requestId: envelope.requestId });
  };
}
