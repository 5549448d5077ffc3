import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pagerdutyHistory } from '../../src/integrations/pagerduty/history';
import { CredentialRefused, ProviderFailure } from '../../src/outbound/providerHttp';
import type { HistoryPage, HistoryReading, HistoryScope, HistoryWindow } from '../../src/services/history/historySource';
import type { OperationEvent } from '../../src/services/operations/operationInput';
import type { IncidentInput } from '../../src/services/git/activity';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * PagerDuty's history importer (src/integrations/pagerduty/history.ts) against a local stand-in for its REST API v2
 * serving recorded answers (test/fixtures/history/pagerduty/README.md names each one's source): PagerDuty's documented
 * examples, and the three incidents of one service Apache DevLake recorded with their log entries. The stand-in
 * filters by `service_ids[]`, `since` and `until` and pages two at a time, as PagerDuty may give fewer than asked.
 * Waits go through the reading's sleep, so they take no time here.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/pagerduty', name), 'utf8'));
const documented = { incidents: fixture('listIncidents.json'), services: fixture('listServices.json'), logEntries: fixture('listLogEntries.json'), notes: fixture('listNotes.json') };
const recorded: Record<string, any>[] = fixture('devlakeIncidents.json');
const KEY = 'y_NbAkKc66ryYTWUXYEu';
const CAUSE = '8c3f1b2a9d4e5f60718293a4b5c6d7e8f9a0b1c2';
const FAKE_PAGE = 2;

const DEVSERVICE: HistoryScope = { key: 'PIKL83L', name: 'DevService' };
/** 214 days: longer than PagerDuty's 6 months, so two spans (the first ends 180 days on, on 2022-11-28). */
const WINDOW: HistoryWindow = { since: new Date('2022-06-01T00:00:00Z'), until: new Date('2023-01-01T00:00:00Z') };
const SPAN_END = '2022-11-28T00:00:00.000Z';

/** DevLake's incidents as PagerDuty lists them, and each one's log entries, as DevLake collected them with it. */
const listed = recorded.map((incident) => Object.fromEntries(Object.entries(incident).filter(([field]) => field !== 'log_entries')));
const logs = Object.fromEntries(recorded.map((incident) => [incident.id, incident.log_entries]));
/** The resolved incident's notes: PagerDuty's documented two, the first made to name the commit that caused it. */
const resolvedNotes = { notes: [{ ...documented.notes.notes[0], content: `${documented.notes.notes[0].content} root cause: ${CAUSE}` }, documented.notes.notes[1]] };

type Route = (path: string, query: URLSearchParams) => ScriptedAnswer;
let route: Route;
const peer = new ScriptedPeer((_request, url) => route(url.pathname, url.searchParams));
const ok = (body: unknown): ScriptedAnswer => ({ status: 200, body });
const asked = () => peer.requests.map((r) => new URL(r.path, peer.base));
const listings = () => asked().filter((u) => u.pathname === '/incidents').map((u) => [u.searchParams.get('since'), u.searchParams.get('until'), u.searchParams.get('offset')]);

/** The account of DevLake's recording: incidents created within the asked range, oldest first, two a page. */
function account(path: string, query: URLSearchParams): ScriptedAnswer {
  if (path === '/services') return ok(documented.services);
  if (path === '/incidents') {
    const [since, until, offset] = [Date.parse(query.get('since')!), Date.parse(query.get('until')!), Number(query.get('offset'))];
    const matching = listed
      .filter((i) => query.getAll('service_ids[]').includes(i.service.id) && Date.parse(i.created_at) >= since && Date.parse(i.created_at) < until)
      .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    return ok({ incidents: matching.slice(offset, offset + FAKE_PAGE), limit: FAKE_PAGE, offset, more: offset + FAKE_PAGE < matching.length, total: null });
  }
  const log = /^\/incidents\/([^/]+)\/log_entries$/.exec(path);
  if (log) return ok({ log_entries: logs[log[1]] ?? [], limit: 100, offset: 0, more: false, total: null });
  if (path === '/incidents/Q1OHFWFP3GPXOG/notes') return ok(resolvedNotes);
  return { status: 404, body: { error: { message: 'Not Found', code: 2100 } } };
}

let waits: { seconds: number; why: string }[];
let slept: number[];
beforeAll(() => peer.start());
afterAll(() => peer.stop());
beforeEach(() => {
  peer.requests.length = 0;
  waits = [];
  slept = [];
  route = account;
});

/** The reading the runner hands the importer: the stand-in answers on loopback, which the operator's allowance lets calls reach. */
function reading(): HistoryReading {
  return {
    credential: { kind: 'token', token: KEY },
    baseUrl: peer.base,
    http: {
      outbound: { allowPrivate: true, answerMaxBytes: 1024 * 1024, reportMaxBytes: 1024 * 1024 },
      now: () => new Date(),
      sleep: async (ms) => {
        slept.push(ms);
      },
      onWait: (seconds, why) => waits.push({ seconds, why }),
    },
    connection: { id: 'app-pagerduty-history', organizationId: 'org-pagerduty-history' },
  };
}

async function pagesOf(scope: HistoryScope, window = WINDOW, cursor: string | null = null): Promise<HistoryPage[]> {
  const pages: HistoryPage[] = [];
  for await (const page of pagerdutyHistory.pages(reading(), scope, 'incidents', window, cursor)) pages.push(page);
  return pages;
}

/** `triage`: its urgency, priority and service's name, as the listing gives them. */
const incident = (
  id: string,
  title: string,
  times: { created: string; resolved: string | null; updated: string },
  service = 'PIKL83L',
  triage: Pick<IncidentInput, 'urgency' | 'priority' | 'service'> = { urgency: 'high', service: 'DevService' },
): OperationEvent => ({
  kind: 'incident',
  board: { candidates: [service], namesRepository: false },
  incident: { externalId: id, title, causeSha: null, fixSha: null, createdAt: new Date(times.created), resolvedAt: times.resolved ? new Date(times.resolved) : null, updatedAt: new Date(times.updated), ...triage },
});

/** What the operations are about: each incident's id, and `note:<id>` for a word on one. */
const about = (pages: HistoryPage[]) => pages.flatMap((p) => p.operations ?? []).map((o) => (o.kind === 'incident_note' ? `note:${o.externalId}` : o.kind === 'incident' ? o.incident.externalId : o.deployment.externalId));

describe('services', () => {
  test('the services the key reads, from the documented listing, with the key and API version PagerDuty asks for', async () => {
    expect(await pagerdutyHistory.scopes(reading())).toEqual([{ key: 'PIJ90N7', name: 'My Application Service' }]);
    const [request] = peer.requests;
    expect(new URL(request.path, peer.base).searchParams.toString()).toBe('limit=100&offset=0&sort_by=name');
    expect([request.headers.authorization, request.headers.accept]).toEqual([`Token token=${KEY}`, 'application/vnd.pagerduty+json;version=2']);
  });

  test('--repos names services by id or by name in any case; one the key does not read is refused by name', async () => {
    expect(await pagerdutyHistory.scopes(reading(), ['PIJ90N7'])).toEqual([{ key: 'PIJ90N7', name: 'My Application Service' }]);
    expect(await pagerdutyHistory.scopes(reading(), ['my application service'])).toEqual([{ key: 'PIJ90N7', name: 'My Application Service' }]);
    await expect(pagerdutyHistory.scopes(reading(), ['PIJ90N7', 'Billing'])).rejects.toThrow(new ProviderFailure("PagerDuty: the key reads no service 'Billing' (by id or name; it reads 1 service)"));
  });

  test('a refused key is CredentialRefused, saying what was being read', async () => {
    route = () => ({ status: 401, text: '' });
    await expect(pagerdutyHistory.scopes(reading())).rejects.toThrow(CredentialRefused);
    await expect(pagerdutyHistory.scopes(reading())).rejects.toThrow(/^PagerDuty's services: the vendor refused the credential \(401/);
  });
});

describe('incidents', () => {
  test("DevLake's three incidents: each as its webhook leaves it, resolved when its log says, the note naming a commit; paged, in spans of at most 180 days", async () => {
    const pages = await pagesOf(DEVSERVICE);
    expect(pages.map((p) => [p.read, p.next])).toEqual([
      [2, JSON.stringify({ since: WINDOW.since.toISOString(), offset: 2 })],
      [1, JSON.stringify({ since: SPAN_END, offset: 0 })],
      [0, null],
    ]);
    expect(pages.flatMap((p) => p.operations)).toEqual([
      incident('Q3YON8WNWTZMRQ', 'Crash reported', { created: '2022-11-03T06:23:06Z', resolved: null, updated: '2022-11-03T07:02:36Z' }),
      incident('Q3CZAU7Q4008QD', 'Slow startup', { created: '2022-11-03T06:44:28Z', resolved: null, updated: '2022-11-03T06:44:37Z' }),
      // No `resolved_at` in 2022's answers: its log's resolve_log_entry says when.
      incident('Q1OHFWFP3GPXOG', 'Spamming logs', { created: '2022-11-03T06:45:36Z', resolved: '2022-11-03T06:51:44Z', updated: '2022-11-03T06:51:44Z' }, undefined, { urgency: 'low', service: 'DevService' }),
      { kind: 'incident_note', externalId: 'Q1OHFWFP3GPXOG', note: { causeSha: CAUSE, fixSha: null } },
    ]);
    // The window is never read before its start, and 6 months at most at a time.
    expect(listings()).toEqual([
      [WINDOW.since.toISOString(), SPAN_END, '0'],
      [WINDOW.since.toISOString(), SPAN_END, '2'],
      [SPAN_END, WINDOW.until.toISOString(), '0'],
    ]);
    const [first] = asked();
    expect(Object.fromEntries([...first.searchParams.keys()].map((k) => [k, first.searchParams.getAll(k)]))).toMatchObject({
      'service_ids[]': ['PIKL83L'],
      'statuses[]': ['triggered', 'acknowledged', 'resolved'],
      sort_by: ['created_at:asc'],
      time_zone: ['UTC'],
      limit: ['100'],
    });
    // Every incident's log is read; only the annotated one's notes.
    expect(asked().map((u) => u.pathname).filter((p) => p !== '/incidents')).toEqual([
      '/incidents/Q3YON8WNWTZMRQ/log_entries',
      '/incidents/Q3CZAU7Q4008QD/log_entries',
      '/incidents/Q1OHFWFP3GPXOG/log_entries',
      '/incidents/Q1OHFWFP3GPXOG/notes',
    ]);
  });

  test('resumed from a page’s cursor, the listing goes on after that page only', async () => {
    const [first] = await pagesOf(DEVSERVICE);
    peer.requests.length = 0;
    const rest = await pagesOf(DEVSERVICE, WINDOW, first.next);
    expect(about(rest)).toEqual(['Q1OHFWFP3GPXOG', 'note:Q1OHFWFP3GPXOG']);
    expect(listings()).toEqual([
      [WINDOW.since.toISOString(), SPAN_END, '2'],
      [SPAN_END, WINDOW.until.toISOString(), '0'],
    ]);
    await expect(pagesOf(DEVSERVICE, WINDOW, 'page=2')).rejects.toThrow(ProviderFailure);
  });

  test('a window starting after an incident was created does not bring it', async () => {
    const pages = await pagesOf(DEVSERVICE, { since: new Date('2022-11-03T06:30:00Z'), until: new Date('2022-11-04T00:00:00Z') });
    expect(about(pages)).toEqual(['Q3CZAU7Q4008QD', 'Q1OHFWFP3GPXOG', 'note:Q1OHFWFP3GPXOG']);
    expect(listings()).toEqual([['2022-11-03T06:30:00.000Z', '2022-11-04T00:00:00.000Z', '0']]);
  });

  test("the documented example: its `resolved_at` is the resolution; its log has no note, so no notes are read", async () => {
    route = (path, query) => {
      if (path === '/incidents') return ok(query.get('offset') === '0' ? documented.incidents : { incidents: [], limit: 1, offset: 1, more: false, total: null });
      if (path === '/incidents/PT4KHLK/log_entries') return ok(documented.logEntries);
      return { status: 404, body: { error: { message: 'Not Found', code: 2100 } } };
    };
    const pages = await pagesOf({ key: 'PIJ90N7', name: 'My Application Service' }, { since: new Date('2015-10-01T00:00:00Z'), until: new Date('2015-11-01T00:00:00Z') });
    expect(pages.map((p) => [p.read, p.next])).toEqual([
      [1, JSON.stringify({ since: '2015-10-01T00:00:00.000Z', offset: 1 })],
      [0, null],
    ]);
    expect(pages.flatMap((p) => p.operations)).toEqual([
      incident('PT4KHLK', 'The server is on fire.', { created: '2015-10-06T21:30:42Z', resolved: '2015-10-06T21:38:23Z', updated: '2015-10-06T21:38:23Z' }, 'PIJ90N7', {
        urgency: 'high',
        priority: 'P2',
        service: 'My Mail Service',
      }),
    ]);
    expect(asked().map((u) => u.pathname)).toEqual(['/incidents', '/incidents/PT4KHLK/log_entries', '/incidents']);
  });

  test('a 429 with Retry-After is waited out (told, slept through), then the page is read', async () => {
    let limited = false;
    route = (path, query) => {
      if (path === '/incidents' && !limited) {
        limited = true;
        return { status: 429, headers: { 'Retry-After': '7' }, text: '' };
      }
      return account(path, query);
    };
    const pages = await pagesOf(DEVSERVICE);
    expect(pages.reduce((n, p) => n + p.read, 0)).toBe(3);
    expect(waits).toEqual([{ seconds: 7, why: "PagerDuty's incidents of service DevService: rate limited" }]);
    expect(slept).toEqual([7000]);
  });

  test("a 429 with PagerDuty's ratelimit-reset (the seconds until its limit resets) is waited that long", async () => {
    let limited = false;
    route = (path, query) => {
      if (path === '/incidents/Q3CZAU7Q4008QD/log_entries' && !limited) {
        limited = true;
        // The headers PagerDuty's "REST API Rate Limits" page documents.
        return { status: 429, headers: { 'ratelimit-limit': '960', 'ratelimit-remaining': '0', 'ratelimit-reset': '12' }, text: '' };
      }
      return account(path, query);
    };
    expect((await pagesOf(DEVSERVICE)).reduce((n, p) => n + p.read, 0)).toBe(3);
    expect(waits).toEqual([{ seconds: 12, why: "PagerDuty's incidents of service DevService: incident Q3CZAU7Q4008QD's log: rate limited" }]);
    expect(slept).toEqual([12000]);
  });

  test('a 401 stops the service with CredentialRefused naming it', async () => {
    route = () => ({ status: 401, text: '' });
    const refused = pagesOf(DEVSERVICE);
    await expect(refused).rejects.toThrow(CredentialRefused);
    await expect(pagesOf(DEVSERVICE)).rejects.toThrow(/^PagerDuty's incidents of service DevService: the vendor refused the credential \(401\)$/);
  });
});
