import { Op } from 'sequelize';
import { HistoryCursor, HistoryImport, PullRequest } from '../../db/models';
import { INTEGRATIONS } from '../../src/integrations/registry';
import { providerCatalog } from '../../src/integrations/catalog';
import type { IntegrationProvider } from '../../src/integrations/provider';
import { CredentialRefused, defaultHttp, ProviderFailure } from '../../src/outbound/providerHttp';
import { outboundPolicy } from '../../src/outbound/outboundFetch';
import { ChangeRunner } from '../../src/persistence/changes/change';
import { createHistoryImports } from '../../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../../src/secrets/secretBox';
import { ConnectionCredentials } from '../../src/services/apps/credentials';
import type { Activity } from '../../src/services/git/activity';
import type { BatchLimits } from '../../src/services/history/historyBatches';
import { HistoryImports, HistoryProgress, OVERLAP_MS } from '../../src/services/history/historyImport';
import { HistoryCatchUp } from '../../src/services/history/historySchedule';
import type { HistoryKind, HistoryPage, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from '../../src/services/history/historySource';
import { DEMO, startTestApp, TestApp } from '../support/harness';

/**
 * The history runner (docs/history.md) with a provider whose API is a script: what is stored, where a stopped run
 * starts again, the windows of the runs after a complete one, the lease, a refused credential, and the daily
 * catch-up. The providers' own importers (their translation of recorded answers) are tested beside this file.
 */

const GIT_APP = DEMO.gitApps.acmeGithub;
const DAY = 86_400_000;
const NOW = new Date('2026-11-20T12:00:00Z');

/** Pull requests 9001… of one repository, two a page; the cursor is the next one's index. */
class ScriptedHistory implements HistorySource {
  defaultBaseUrl = 'https://api.example.test';
  scopeNoun = 'repositories';
  kinds: readonly HistoryKind[] = ['pull_requests'];
  calls: { scope: string; window: HistoryWindow; cursor: string | null }[] = [];
  /** Thrown instead of the page at this index, once. */
  failAt: { index: number; error: Error } | null = null;
  /** Connections whose credential the provider refuses, at their first page. */
  refuses = new Set<string>();
  /** Before the page at this index, a wait of 15 minutes for the rate limit, told and slept with the reading's sleep. */
  waitAt: number | null = null;
  /** Called before each page is read, with its index. */
  beforePage: (index: number) => void = () => undefined;

  constructor(private readonly count: number) {}

  async scopes(): Promise<HistoryScope[]> {
    return [{ key: 'R_history', name: 'acme/history' }];
  }

  async *pages(reading: HistoryReading, scope: HistoryScope, _kind: HistoryKind, window: HistoryWindow, cursor: string | null): AsyncGenerator<HistoryPage> {
    this.calls.push({ scope: scope.key, window, cursor });
    if (this.refuses.has(reading.connection.id)) throw new CredentialRefused(`${scope.name}: the provider refused the credential (401)`);
    for (let index = Number(cursor ?? 0); index < this.count; index += 2) {
      this.beforePage(index);
      if (this.waitAt === index) {
        reading.http.onWait?.(900, "the provider's rate limit is spent");
        await reading.http.sleep(900_000);
      }
      if (this.failAt?.index === index) {
        const { error } = this.failAt;
        this.failAt = null;
        throw error;
      }
      const numbers = [index, index + 1].filter((i) => i < this.count).map((i) => 9001 + i);
      yield { read: numbers.length, activities: numbers.map(pullRequest), next: index + 2 < this.count ? String(index + 2) : null };
    }
  }
}

function pullRequest(number: number): Activity {
  const at = new Date(NOW.getTime() - (number - 9000) * DAY);
  return {
    kind: 'pull_request',
    repository: { providerId: 'R_history', name: 'history', fullName: 'acme/history', defaultBranch: 'main', isPrivate: true, createdAt: null },
    pullRequest: {
      number,
      title: `Change ${number}`,
      state: 'open',
      authorUsername: 'ada',
      authorProviderId: '1',
      body: null,
      size: null,
      commits: { head: null, merge: null },
      createdAt: at,
      mergedAt: null,
      closedAt: null,
      updatedAt: at,
    },
  };
}

let t: TestApp;
let scripted: ScriptedHistory;
let imports: HistoryImports;
let credentials: ConnectionCredentials;
let changes: ChangeRunner;
/** The registry's providers, GitHub's and GitLab's history read from the script. */
const scriptedCatalog = (history: HistorySource) => providerCatalog(INTEGRATIONS.map((p): IntegrationProvider => (p.category === 'git' ? { ...p, history } : { ...p, history: undefined })));

/** The connection's import row as each page's change committed (the next page may be read meanwhile). */
let leases: { items_read: number; lease_until: string | null }[] = [];

beforeAll(async () => {
  t = await startTestApp();
  changes = ChangeRunner.for(t.runtime.sequelize);
  changes.onCommitted(async ({ tables }) => {
    const row = tables.includes('pull_requests') ? await HistoryImport.findByPk(GIT_APP) : null;
    if (row) leases.push({ items_read: row.items_read, lease_until: row.lease_until?.toISOString() ?? null });
  });
  credentials = new ConnectionCredentials(changes, new SecretBox(() => secretsKeyFor(t.config)), providerCatalog());
  await credentials.setCredential({ type: 'git_app', id: GIT_APP }, { kind: 'token', token: 'ghp_scripted' });
});
afterAll(async () => t.close());

beforeEach(async () => {
  await HistoryCursor.destroy({ where: {} });
  await HistoryImport.destroy({ where: {} });
  await PullRequest.destroy({ where: { number: { [Op.gte]: 9001 } } });
  scripted = new ScriptedHistory(7);
  imports = importsWith(scripted);
  leases = [];
});

/** Each page stored alone, as pages of many items are: what these tests follow page by page. */
const PAGE_BY_PAGE: BatchLimits = { items: 1, heldMs: Infinity };

/** Waits for a rate limit are not waited unless a test asks (`realSleep`): then they last until stopped. */
function importsWith(history: HistorySource, now = () => NOW, batches = PAGE_BY_PAGE, realSleep = false): HistoryImports {
  const catalog = scriptedCatalog(history);
  const http = realSleep ? defaultHttp(outboundPolicy(t.config)) : { ...defaultHttp(outboundPolicy(t.config)), sleep: async () => undefined };
  return createHistoryImports(t.config, changes, new SecretBox(() => secretsKeyFor(t.config)), catalog, http, now, batches);
}

const stored = () => PullRequest.count({ where: { number: { [Op.gte]: 9001 } } });

test('a first import reads a year back, stores every page through the writers with its cursor, and says what it found', async () => {
  const progress: HistoryProgress[] = [];
  const outcome = await imports.run({ connection: { type: 'git_app', id: GIT_APP }, onProgress: (p) => progress.push(p) });
  expect(outcome).toMatchObject({ connection_id: GIT_APP, provider: 'github', outcome: 'complete', message: null, read: 7, found: 7, until: NOW.toISOString() });
  expect(outcome.since).toBe(new Date(NOW.getTime() - 365 * DAY).toISOString());
  expect(scripted.calls).toEqual([{ scope: 'R_history', window: { since: new Date(NOW.getTime() - 365 * DAY), until: NOW }, cursor: null }]);
  expect(await stored()).toBe(7);
  expect(progress.filter((p) => p.event === 'page').map((p) => 'read' in p && p.read)).toEqual([2, 4, 6, 7]);
  // Each page renews the lease and shows what was read so far, that page's items included.
  const leaseUntil = new Date(NOW.getTime() + 10 * 60_000).toISOString();
  expect(leases).toEqual([2, 4, 6, 7].map((read) => ({ items_read: read, lease_until: leaseUntil })));
  const cursor = await HistoryCursor.findOne({ where: { connection_id: GIT_APP, scope_key: 'R_history', kind: 'pull_requests' } });
  expect(cursor).toMatchObject({ complete: true, next_page: null, items_read: 7, items_found: 7, scope_name: 'acme/history' });
  expect(cursor!.read_through!.toISOString()).toBe(NOW.toISOString());
  expect(await HistoryImport.findByPk(GIT_APP)).toMatchObject({ outcome: 'complete', items_read: 7, items_found: 7, lease_owner: null, lease_until: null });
});

test('pages that bring little are stored together, with the cursor of the last; what was read before a failure is stored first', async () => {
  const batched = importsWith(scripted, () => NOW, { items: 4, heldMs: Infinity });
  const progress: HistoryProgress[] = [];
  await batched.run({ connection: { type: 'git_app', id: GIT_APP }, onProgress: (p) => progress.push(p) });
  // Pages of two: the first two in one change, the last two (three items, the window's end) in another.
  expect(progress.filter((p) => p.event === 'page').map((p) => 'read' in p && p.read)).toEqual([4, 7]);
  // As each batch is stored: the first two pages' four, then the rest.
  expect(leases.map((l) => l.items_read)).toEqual([4, 7]);
  expect(await stored()).toBe(7);
  expect(await HistoryCursor.findOne({ where: { connection_id: GIT_APP, scope_key: 'R_history', kind: 'pull_requests' } })).toMatchObject({ complete: true, items_read: 7 });

  await PullRequest.destroy({ where: { number: { [Op.gte]: 9001 } } });
  await HistoryCursor.destroy({ where: {} });
  await HistoryImport.destroy({ where: {} });
  scripted.calls = [];
  scripted.failAt = { index: 2, error: new Error('the process was killed') };
  await expect(importsWith(scripted, () => NOW, { items: 100, heldMs: Infinity }).run({ connection: { type: 'git_app', id: GIT_APP } })).rejects.toThrow('the process was killed');
  expect(await stored()).toBe(2);
  expect(await HistoryCursor.findOne({ where: { connection_id: GIT_APP, scope_key: 'R_history', kind: 'pull_requests' } })).toMatchObject({ next_page: '2', items_read: 2 });
});

test('the run after a complete one reads from a little before where it reached, and finds nothing twice', async () => {
  await imports.run({ connection: { type: 'git_app', id: GIT_APP } });
  const later = new Date(NOW.getTime() + DAY);
  scripted.calls = [];
  const again = await importsWith(scripted, () => later).run({ connection: { type: 'git_app', id: GIT_APP } });
  expect(scripted.calls).toEqual([{ scope: 'R_history', window: { since: new Date(NOW.getTime() - OVERLAP_MS), until: later }, cursor: null }]);
  expect(again).toMatchObject({ outcome: 'complete', read: 7, found: 0 });
  expect(await stored()).toBe(7);
});

test('a run stopped midway is continued by the next from its cursor, and every pull request is stored once', async () => {
  scripted.failAt = { index: 4, error: new Error('the process was killed') };
  await expect(imports.run({ connection: { type: 'git_app', id: GIT_APP } })).rejects.toThrow('the process was killed');
  expect(await stored()).toBe(4);
  expect(await HistoryImport.findByPk(GIT_APP)).toMatchObject({ outcome: 'failed', items_read: 4, lease_owner: null });
  const resumed = await imports.run({ connection: { type: 'git_app', id: GIT_APP } });
  expect(scripted.calls.map((c) => c.cursor)).toEqual([null, '4']);
  expect(scripted.calls[1].window).toEqual(scripted.calls[0].window);
  expect(resumed).toMatchObject({ outcome: 'complete', read: 3, found: 3 });
  expect(await stored()).toBe(7);
});

test('a run asked to stop gives its lease back after the batch being stored, and the next goes on at once from its cursor', async () => {
  const stop = new AbortController();
  const stopAfterTwoPages = (p: HistoryProgress) => p.event === 'page' && p.read === 4 && stop.abort('interrupted (SIGINT)');
  const stopped = await imports.run({ connection: { type: 'git_app', id: GIT_APP }, onProgress: stopAfterTwoPages, signal: stop.signal });
  const message = 'Stopped before its end: interrupted (SIGINT); the next run goes on from where this one reached';
  expect(stopped).toMatchObject({ outcome: 'stopped', read: 4, found: 4, message });
  expect(await stored()).toBe(4);
  expect(await HistoryImport.findByPk(GIT_APP)).toMatchObject({ outcome: 'stopped', message, items_read: 4, lease_owner: null, lease_until: null });

  // At the same moment: no lease to wait for.
  const resumed = await imports.run({ connection: { type: 'git_app', id: GIT_APP } });
  expect(scripted.calls.map((c) => c.cursor)).toEqual([null, '4']);
  expect(resumed).toMatchObject({ outcome: 'complete', read: 3, found: 3 });
  expect(await stored()).toBe(7);
});

test("a stop during a wait for the rate limit ends the wait: what was read before it is stored, nothing after", async () => {
  scripted.waitAt = 4;
  const stop = new AbortController();
  const stopWhenWaiting = (p: HistoryProgress) => p.event === 'wait' && stop.abort('interrupted (SIGTERM)');
  const waiting = importsWith(scripted, () => NOW, PAGE_BY_PAGE, true);
  // Were the wait waited out, jest's timeout would end this test long before its 15 minutes.
  const stopped = await waiting.run({ connection: { type: 'git_app', id: GIT_APP }, onProgress: stopWhenWaiting, signal: stop.signal });
  expect(stopped).toMatchObject({ outcome: 'stopped', read: 4, message: expect.stringContaining('interrupted (SIGTERM)') });
  expect(await stored()).toBe(4);
  expect(await HistoryImport.findByPk(GIT_APP)).toMatchObject({ outcome: 'stopped', lease_owner: null });
});

test('a refused credential stops the run with a message naming the scope; an unusable answer stops that scope only', async () => {
  scripted.failAt = { index: 2, error: new CredentialRefused('acme/history: GitHub refused the credential (401: Bad credentials)') };
  const refused = await imports.run({ connection: { type: 'git_app', id: GIT_APP } });
  expect(refused).toMatchObject({ outcome: 'refused', read: 2, message: 'acme/history: GitHub refused the credential (401: Bad credentials)' });
  expect(await HistoryImport.findByPk(GIT_APP)).toMatchObject({ outcome: 'refused', message: refused.message, lease_owner: null });

  scripted.failAt = { index: 4, error: new ProviderFailure('the answer is not JSON') };
  const failed = await imports.run({ connection: { type: 'git_app', id: GIT_APP } });
  expect(failed).toMatchObject({ outcome: 'failed', message: 'Stopped reading 1 of 1 parts: acme/history (pull_requests): the answer is not JSON' });
});

test('one run at a time per connection; a lease left by a killed run lapses', async () => {
  await imports.run({ connection: { type: 'git_app', id: GIT_APP } });
  await HistoryImport.update({ lease_owner: 'another', lease_until: new Date(NOW.getTime() + 60_000) }, { where: { connection_id: GIT_APP } });
  await expect(imports.run({ connection: { type: 'git_app', id: GIT_APP } })).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining('is being imported by another run') });
  const afterLapse = importsWith(scripted, () => new Date(NOW.getTime() + 120_000));
  await expect(afterLapse.run({ connection: { type: 'git_app', id: GIT_APP } })).resolves.toMatchObject({ outcome: 'complete' });
});

test('refusals say what to do: no credential, a provider whose history is not read, an unknown or disabled connection', async () => {
  await expect(imports.run({ connection: { type: 'git_app', id: DEMO.gitApps.globexGitlab } })).rejects.toMatchObject({ kind: 'invalid', message: expect.stringContaining('set-credential --git-app') });
  await expect(imports.run({ connection: { type: 'app', id: DEMO.apps.acmeJira } })).rejects.toMatchObject({ kind: 'invalid', message: expect.stringContaining('whose history is not read from its API; these are: github, gitlab, bitbucket') });
  await expect(imports.run({ connection: { type: 'git_app', id: 'gapp_none' } })).rejects.toMatchObject({ kind: 'not_found' });
  await expect(imports.run({ connection: { type: 'git_app', id: GIT_APP }, since: NOW })).rejects.toMatchObject({ kind: 'invalid', message: expect.stringContaining('is not before') });
});

test('the daily catch-up imports each connection with a credential once a day, from where it reached', async () => {
  const catchUp = new HistoryCatchUp(imports, scriptedCatalog(scripted), { onImported: () => undefined, onError: (err) => { throw err; } }, () => NOW);
  const first = await catchUp.runDue();
  expect(first.map((o) => [o.connection_id, o.outcome, o.found])).toEqual([[GIT_APP, 'complete', 7]]);
  expect(await catchUp.runDue()).toEqual([]);
});

test("a process that stops ends its catch-up's import after the batch being stored; the next tick, anywhere, goes on", async () => {
  const told: string[] = [];
  const catchUp = new HistoryCatchUp(imports, scriptedCatalog(scripted), { onImported: (o) => told.push(o.outcome), onError: (err) => { throw err; } }, () => NOW);
  let stopping: Promise<void> | undefined;
  scripted.beforePage = (index) => {
    if (index === 2) stopping = catchUp.stop();
  };
  const [stopped] = await catchUp.runDue();
  await stopping;
  expect(stopped).toMatchObject({ connection_id: GIT_APP, outcome: 'stopped', message: expect.stringContaining('the process stopped') });
  expect(told).toEqual(['stopped']);
  expect(await stored()).toBe(stopped.read);
  expect(await HistoryImport.findByPk(GIT_APP)).toMatchObject({ outcome: 'stopped', lease_owner: null });

  // Another process's tick at the same moment: the stopped run is due at once, not a day later.
  scripted.beforePage = () => undefined;
  const other = new HistoryCatchUp(imports, scriptedCatalog(scripted), { onImported: () => undefined, onError: (err) => { throw err; } }, () => NOW);
  expect((await other.runDue()).map((o) => [o.connection_id, o.outcome, o.found])).toEqual([[GIT_APP, 'complete', 7 - stopped.read]]);
  expect(await stored()).toBe(7);
});

test('a credential refused in the daily catch-up stops that connection only; the others are read', async () => {
  await credentials.setCredential({ type: 'git_app', id: DEMO.gitApps.globexGitlab }, { kind: 'token', token: 'glpat-scripted' });
  scripted.refuses.add(DEMO.gitApps.globexGitlab);
  const told: string[] = [];
  const catchUp = new HistoryCatchUp(imports, scriptedCatalog(scripted), { onImported: (o) => told.push(`${o.connection_id} ${o.outcome}`), onError: (err) => { throw err; } }, () => NOW);
  const outcomes = await catchUp.runDue();
  expect(outcomes.map((o) => [o.connection_id, o.outcome, o.found])).toEqual([
    [GIT_APP, 'complete', 7],
    [DEMO.gitApps.globexGitlab, 'refused', 0],
  ]);
  expect(told).toEqual([`${GIT_APP} complete`, `${DEMO.gitApps.globexGitlab} refused`]);
  expect(await HistoryImport.findByPk(DEMO.gitApps.globexGitlab)).toMatchObject({ outcome: 'refused', message: 'acme/history: the provider refused the credential (401)' });
});
