import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { opsgenieHistory } from '../../src/integrations/opsgenie/history';
import { opsgenieWebhook } from '../../src/integrations/opsgenie/webhook';
import { CredentialRefused, ProviderFailure } from '../../src/outbound/providerHttp';
import type { HistoryPage, HistoryReading, HistoryScope, HistoryWindow } from '../../src/services/history/historySource';
import type { OperationEvent } from '../../src/services/operations/operationInput';
import type { IncidentInput } from '../../src/services/git/activity';
import { payload, rawBody } from '../support/peers/opsgenie/deliveries';
import { ScriptedAnswer, ScriptedPeer } from '../support/peers/scriptedPeer';

/**
 * Opsgenie's history importer (src/integrations/opsgenie/history.ts) against a local stand-in for its Alert API serving
 * recorded answers (test/fixtures/history/opsgenie/README.md names each one's source): Opsgenie's documented List
 * Alerts sample as Faros AI keeps it, and a real account's alerts and teams as Cortex XSOAR recorded them. The stand-in
 * answers the `createdAt` range of the query, oldest first, one alert a page as the XSOAR recording was made, with a
 * `paging.next` link while more follow. Waits go through the reading's sleep, so they take no time here.
 */
const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../fixtures/history/opsgenie', name), 'utf8'));
const documented: Record<string, any>[] = fixture('farosAlerts.json');
const recordedPage = fixture('demistoListAlerts.json');
const recordedLastPage = fixture('demistoListAlertsLastPage.json');
const recordedTeams = fixture('demistoTeams.json');
const KEY = 'eb243592-faa2-4ba2-a551q-1afdf565c889';
const FIX = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

const ACCOUNT: HistoryScope = { key: 'account', name: 'Opsgenie account' };
const WINDOW: HistoryWindow = { since: new Date('2017-01-01T00:00:00Z'), until: new Date('2022-01-01T00:00:00Z') };

/**
 * A notes answer in the envelope of XSOAR's recorded alert logs, each note with the fields Opsgenie's OpenAPI gives one
 * (README.md): the AddNote delivery's note with its author and time, and the same note made to name the commit that
 * fixed the alert.
 */
const addNote = payload('alertNoteAdded.json').alert;
const noted = { owner: addNote.username, createdAt: new Date(Math.floor(addNote.updatedAt / 1e6)).toISOString() };
const notesOfClosed = {
  data: [
    { note: addNote.note, ...noted },
    { note: `${addNote.note}; fixed by: ${FIX}`, ...noted },
  ],
  took: recordedPage.took,
  requestId: recordedPage.requestId,
};

let alerts: Record<string, any>[];
let teams: unknown;
let notes: Record<string, unknown>;
let pageSize: number;
type Route = (path: string, query: URLSearchParams) => ScriptedAnswer;
let route: Route;
const peer = new ScriptedPeer((_request, url) => route(url.pathname, url.searchParams));
const ok = (body: unknown): ScriptedAnswer => ({ status: 200, body });
const asked = () => peer.requests.map((r) => new URL(r.path, peer.base));
const listings = () => asked().filter((u) => u.pathname === '/v2/alerts').map((u) => [u.searchParams.get('query'), u.searchParams.get('offset')]);

/** The account: alerts created within the query's range, oldest first (ties as listed), `pageSize` a page. */
function account(path: string, query: URLSearchParams): ScriptedAnswer {
  if (path === '/v2/teams') return ok(teams);
  if (path === '/v2/alerts') {
    const [, from, until] = /^createdAt>=(\d+) AND createdAt<=(\d+)$/.exec(query.get('query') ?? '') ?? [];
    const offset = Number(query.get('offset'));
    const matching = alerts.filter((a) => Date.parse(a.createdAt) >= Number(from) && Date.parse(a.createdAt) <= Number(until)).sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    const more = offset + pageSize < matching.length;
    const { paging } = more ? recordedPage : recordedLastPage;
    return ok({ ...recordedPage, data: matching.slice(offset, offset + pageSize), paging });
  }
  const notesPath = /^\/v2\/alerts\/([^/]+)\/notes$/.exec(path);
  if (notesPath) return ok(notes[notesPath[1]] ?? { data: [], took: recordedPage.took, requestId: recordedPage.requestId });
  return { status: 404, text: '' };
}

let waits: { seconds: number; why: string }[];
let slept: number[];
beforeAll(() => peer.start());
afterAll(() => peer.stop());
beforeEach(() => {
  peer.requests.length = 0;
  waits = [];
  slept = [];
  alerts = [...documented, ...recordedPage.data, ...recordedLastPage.data];
  teams = recordedTeams;
  notes = { [documented[0].id]: notesOfClosed };
  pageSize = 1;
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
    connection: { id: 'app-opsgenie-history', organizationId: 'org-opsgenie-history' },
  };
}

async function pagesOf(window = WINDOW, cursor: string | null = null): Promise<HistoryPage[]> {
  const pages: HistoryPage[] = [];
  for await (const page of opsgenieHistory.pages(reading(), ACCOUNT, 'alerts', window, cursor)) pages.push(page);
  return pages;
}

/** `triage`: its priority, and its team's name when it has one. */
const incident = (
  id: string,
  title: string,
  times: { created: string; resolved: string | null; updated: string },
  boards: string[],
  triage: Pick<IncidentInput, 'priority' | 'service'>,
): OperationEvent => ({
  kind: 'incident',
  board: { candidates: boards, namesRepository: false },
  incident: { externalId: id, title, causeSha: null, fixSha: null, createdAt: new Date(times.created), resolvedAt: times.resolved ? new Date(times.resolved) : null, updatedAt: new Date(times.updated), ...triage },
});
/** What the operations are about: each alert's id, and `note:<id>` for a word on one. */
const about = (pages: HistoryPage[]) => pages.flatMap((p) => p.operations ?? []).map((o) => (o.kind === 'incident_note' ? `note:${o.externalId}` : o.kind === 'incident' ? o.incident.externalId : o.deployment.externalId));
const cursorAt = (createdAt: string, skip: number) => JSON.stringify({ from: Date.parse(createdAt), skip });
const range = (from: string) => `createdAt>=${Date.parse(from)} AND createdAt<=${WINDOW.until.getTime()}`;

describe('the account', () => {
  test('one scope, the account, once the key reads its teams; --repos names no part of it', async () => {
    expect(await opsgenieHistory.scopes(reading())).toEqual([ACCOUNT]);
    expect(peer.requests.map((r) => [r.path, r.headers.authorization])).toEqual([['/v2/teams', `GenieKey ${KEY}`]]);
    await expect(opsgenieHistory.scopes(reading(), ['payments'])).rejects.toThrow(new ProviderFailure("Opsgenie: 'payments' is no part of the account; its alerts are read whole (leave out --repos)"));
  });

  test('a refused key is CredentialRefused before any page', async () => {
    route = () => ({ status: 401, text: '' });
    await expect(opsgenieHistory.scopes(reading())).rejects.toThrow(CredentialRefused);
  });
});

describe('alerts', () => {
  test('each alert as its webhook leaves it, closed when its report says, its note naming the fix; paged by creation time, never by a growing offset', async () => {
    const pages = await pagesOf();
    const [closed, open] = documented;
    const [first] = recordedPage.data;
    const [last] = recordedLastPage.data;
    expect(pages.flatMap((p) => p.operations)).toEqual([
      // Closed 60,503 ms after its creation (its report's closeTime); no team of its the account's teams name, so its tags.
      incident(closed.id, 'Our servers are in danger', { created: '2017-03-21T20:32:52.353Z', resolved: '2017-03-21T20:33:52.856Z', updated: '2017-04-03T20:32:57.301Z' }, ['OverwriteQuietHours', 'Critical'], { priority: 'P4' }),
      { kind: 'incident_note', externalId: closed.id, note: { causeSha: null, fixSha: FIX } },
      incident(open.id, 'Sample Message', { created: '2017-03-21T20:32:52.353Z', resolved: null, updated: '2017-04-03T20:32:57.301Z' }, ['RandomTag'], { priority: 'P5' }),
      incident(first.id, '1234', { created: '2021-11-24T12:14:40.926Z', resolved: null, updated: '2021-11-24T12:14:41.030Z' }, [], { priority: 'P3' }),
      incident(last.id, '123456', { created: '2021-11-24T12:14:40.926Z', resolved: null, updated: '2021-11-24T12:14:41.030Z' }, [], { priority: 'P1' }),
    ]);
    // Two alerts share each creation time: the next page starts at it, past those of it already read.
    expect(pages.map((p) => [p.read, p.next])).toEqual([
      [1, cursorAt('2017-03-21T20:32:52.353Z', 1)],
      [1, cursorAt('2017-03-21T20:32:52.353Z', 2)],
      [1, cursorAt('2021-11-24T12:14:40.926Z', 1)],
      [1, null],
    ]);
    expect(listings()).toEqual([
      [range(WINDOW.since.toISOString()), '0'],
      [range('2017-03-21T20:32:52.353Z'), '1'],
      [range('2017-03-21T20:32:52.353Z'), '2'],
      [range('2021-11-24T12:14:40.926Z'), '1'],
    ]);
    const [firstListing] = asked().filter((u) => u.pathname === '/v2/alerts');
    expect(Object.fromEntries(firstListing.searchParams)).toMatchObject({ sort: 'createdAt', order: 'asc', limit: '100' });
    // Each alert's notes are read.
    expect(asked().filter((u) => u.pathname.endsWith('/notes')).map((u) => [u.pathname, u.searchParams.toString()])).toEqual(
      [closed, open, first, last].map((a) => [`/v2/alerts/${a.id}/notes`, 'identifierType=id&order=asc&limit=100']),
    );
  });

  test('resumed from a page’s cursor, the listing goes on after that page only', async () => {
    const [, second] = await pagesOf();
    peer.requests.length = 0;
    const rest = await pagesOf(WINDOW, second.next);
    expect(about(rest)).toEqual([recordedPage.data[0].id, recordedLastPage.data[0].id]);
    expect(listings()).toEqual([
      [range('2017-03-21T20:32:52.353Z'), '2'],
      [range('2021-11-24T12:14:40.926Z'), '1'],
    ]);
    await expect(pagesOf(WINDOW, 'offset=2')).rejects.toThrow(ProviderFailure);
  });

  test('the window starts the listing: alerts created before it are not asked for', async () => {
    pageSize = 100;
    const pages = await pagesOf({ since: new Date('2021-01-01T00:00:00Z'), until: WINDOW.until });
    expect(about(pages)).toEqual([recordedPage.data[0].id, recordedLastPage.data[0].id]);
    expect(listings()).toEqual([[range('2021-01-01T00:00:00.000Z'), '0']]);
  });

  test('the alert a webhook Create brought, as the API lists it, is the same incident on the same boards', async () => {
    // The relay delivery's alert as Opsgenie's list gives an alert: its teams by id (README.md), the team's name in
    // the teams answer.
    const created = payload('alertCreated.json').alert;
    const team = created.responders[0];
    alerts = [
      {
        id: created.alertId,
        tinyId: created.tinyId,
        alias: created.alias,
        message: created.message,
        status: 'open',
        tags: created.tags,
        createdAt: new Date(created.createdAt).toISOString(),
        updatedAt: new Date(Math.floor(created.updatedAt / 1e6)).toISOString(),
        priority: created.priority,
        teams: created.teams.map((id: string) => ({ id })),
        responders: [{ type: 'team', id: team.id }],
        ownerTeamId: team.id,
      },
    ];
    teams = { ...recordedTeams, data: [...recordedTeams.data, { id: team.id, name: team.name }] };
    const imported = (await pagesOf({ since: new Date('2020-01-01T00:00:00Z'), until: WINDOW.until })).flatMap((p) => p.operations);
    const delivered = opsgenieWebhook.parse({ headers: { 'content-type': 'application/json' }, body: Buffer.from(rawBody('alertCreated.json')), settings: { pointsField: null } });
    expect('operations' in delivered && delivered.operations).toEqual(imported);
    expect(imported).toEqual([incident(created.alertId, 'asdf', { created: '2020-06-30T00:06:04.295Z', resolved: null, updated: '2020-06-30T00:06:04.636Z' }, ['operations', team.id], { priority: 'P3', service: 'operations' })]);
  });

  test('a 429 with Retry-After is waited out (told, slept through), then the page is read', async () => {
    let limited = false;
    route = (path, query) => {
      if (path === '/v2/alerts' && !limited) {
        limited = true;
        return { status: 429, headers: { 'Retry-After': '3' }, text: '' };
      }
      return account(path, query);
    };
    expect((await pagesOf()).reduce((n, p) => n + p.read, 0)).toBe(4);
    expect(waits).toEqual([{ seconds: 3, why: "Opsgenie's alerts of the Opsgenie account: rate limited" }]);
    expect(slept).toEqual([3000]);
  });

  test('a 401 stops the listing with CredentialRefused naming it', async () => {
    route = (path, query) => (path === '/v2/alerts' ? { status: 401, text: '' } : account(path, query));
    await expect(pagesOf()).rejects.toThrow(CredentialRefused);
    await expect(pagesOf()).rejects.toThrow(/^Opsgenie's alerts of the Opsgenie account: the vendor refused the credential \(401\)$/);
  });
});
