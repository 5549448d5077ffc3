import { randomUUID } from 'node:crypto';
import { App, GitApp, HistoryCursor } from '../../../db/models';
import { conflict, invalid, notFound } from '../../errors';
import type { ChangeRunner } from '../../persistence/changes/change';
import { CredentialRefused, ProviderFailure, ProviderHttp } from '../../outbound/providerHttp';
import type { ProviderCatalog } from '../apps/catalog';
import type { Connection, ConnectionCredentials } from '../apps/credentials';
import { BATCH_LIMITS, BatchLimits, batchedPages, readAhead } from './historyBatches';
import { HistoryConnection, HistoryLeases, RunSummary } from './historyLeases';
import { HistoryPageWriter, HistoryWriters } from './historyPages';
import type { HistoryKind, HistoryReading, HistoryScope, HistorySource, HistoryWindow } from './historySource';

const DAY_MS = 86_400_000;
/** A connection's first import reaches this far back. */
export const DEFAULT_HISTORY_DAYS = 365;
/** A run after a complete one reads again from this long before where it reached: late changes, clocks that differ. */
export const OVERLAP_MS = 2 * DAY_MS;

export interface HistoryRequest {
  connection: Connection;
  /** The window's start; default: a little before where the last complete run reached, else a year back. */
  since?: Date;
  /** The window's end; default: now. */
  until?: Date;
  /** Only these scopes (full names or ids: `--repos`). */
  only?: readonly string[];
  /** The API's root for this run and the daily catch-up after it (a self-hosted server, a test's fake). */
  baseUrl?: string;
  /** Told as each scope starts, after each page, and when a wait for the provider's rate limit begins. */
  onProgress?: (progress: HistoryProgress) => void;
  /**
   * Aborted, the run stops once the batch being stored is committed (a wait for a rate limit's reset ends at once),
   * gives its lease back and is recorded as stopped, so the next run goes on from each cursor without waiting for the
   * lease to lapse. The abort's reason, a string, says why in the run's message (`interrupted (SIGINT)`).
   */
  signal?: AbortSignal;
}

/** One scope's progress in one kind, as the CLI's bar shows it. */
export interface ScopeProgress {
  scope: string;
  kind: HistoryKind;
  read: number;
  found: number;
  complete: boolean;
}

export type HistoryProgress =
  | { event: 'scopes'; scopes: HistoryScope[]; noun: string }
  | ({ event: 'page' | 'start' } & ScopeProgress & { index: number; of: number })
  | { event: 'wait'; seconds: number; reason: string };

export interface HistoryOutcome {
  connection_id: string;
  provider: string;
  since: string;
  until: string;
  scopes: ScopeProgress[];
  read: number;
  /** Items the import created: what the webhooks had not brought. */
  found: number;
  outcome: 'complete' | 'refused' | 'failed' | 'stopped';
  /** Why not complete, naming the scope, or why it was stopped. */
  message: string | null;
}

/**
 * A connection's history read from its provider's API (docs/history.md): every scope the credential reads, each kind
 * its importer offers, a page at a time, pages that bring little joined into batches (historyBatches.ts), each stored
 * with its cursor in one change (historyPages.ts), under the connection's lease so one run reads it at a time. A
 * stopped run is continued by the next, from each cursor; a complete one is followed by windows from where it reached,
 * with an overlap. A refused credential stops the run with a message naming the scope; an answer that cannot be used
 * stops that scope's kind and the others go on.
 */
export class HistoryImports {
  private readonly pages: HistoryPageWriter;
  private readonly leases: HistoryLeases;

  constructor(
    changes: ChangeRunner,
    private readonly providers: ProviderCatalog,
    private readonly credentials: ConnectionCredentials,
    writers: HistoryWriters,
    private readonly http: ProviderHttp,
    private readonly now: () => Date = () => new Date(),
    private readonly batches: BatchLimits = BATCH_LIMITS,
  ) {
    this.pages = new HistoryPageWriter(changes, writers, now);
    this.leases = new HistoryLeases(changes, now);
  }

  async run(request: HistoryRequest): Promise<HistoryOutcome> {
    const connection = await connectionOf(request.connection);
    const source = this.sourceOf(connection);
    const credential = await this.credentials.credentialOf(connection.row.id);
    if (!credential) throw invalid(`${what(connection)} has no credential to read ${this.providers.nameOf(connection.row.provider)}'s API; set one with ${setCredentialCommand(connection)}`);
    const until = request.until ?? this.now();
    if (request.since && request.since >= until) throw invalid(`--since ${request.since.toISOString()} is not before --until ${until.toISOString()}`);
    const owner = randomUUID();
    const lease = await this.leases.take(connection, owner, { baseUrl: request.baseUrl });
    if (!lease) throw conflict(`${what(connection)} is being imported by another run; wait for it to end (its lease lapses ${Math.round(HistoryLeases.LEASE_MS / 60_000)} minutes after its last page)`);
    const tell = request.onProgress ?? (() => undefined);
    const reading: HistoryReading = {
      credential,
      baseUrl: request.baseUrl ?? lease.baseUrl ?? source.defaultBaseUrl,
      http: { ...this.http, onWait: (seconds, reason) => (this.http.onWait?.(seconds, reason), tell({ event: 'wait', seconds, reason })) },
      connection: { id: connection.row.id, organizationId: connection.row.organization_id },
    };
    const summary: RunSummary = { read: 0, found: 0, since: null, until };
    const scopes: ScopeProgress[] = [];
    try {
      const listed = await source.scopes(reading, request.only);
      tell({ event: 'scopes', scopes: listed, noun: source.scopeNoun });
      const failures: string[] = [];
      for (const [index, scope] of listed.entries()) {
        for (const kind of source.kinds) {
          stopIfAsked(request.signal);
          const progress: ScopeProgress = { scope: scope.name, kind, read: 0, found: 0, complete: false };
          scopes.push(progress);
          const window = await this.windowOf(connection, scope, kind, { since: request.since, until });
          summary.since = summary.since && summary.since < window.window.since ? summary.since : window.window.since;
          tell({ event: 'start', ...progress, index, of: listed.length });
          try {
            // A run that stops with a batch read ahead ends that read's wait for a rate limit's reset, not waiting it out.
            const stop = new AbortController();
            const stopped = request.signal ? AbortSignal.any([stop.signal, request.signal]) : stop.signal;
            const stoppable: HistoryReading = { ...reading, http: { ...reading.http, sleep: (ms) => reading.http.sleep(ms, stopped) } };
            const pages = batchedPages(source.pages(stoppable, scope, kind, window.window, window.cursor), this.batches);
            for await (const page of readAhead(pages, () => stop.abort())) {
              const stored = await this.pages.store(connection, { scope, kind, window: window.window }, page, { owner, summary });
              Object.assign(progress, { read: progress.read + stored.read, found: progress.found + stored.found, complete: page.next === null });
              summary.read += stored.read;
              summary.found += stored.found;
              tell({ event: 'page', ...progress, index, of: listed.length });
              stopIfAsked(request.signal);
            }
            if (!progress.complete) await this.pages.finish(connection, { scope, kind, window: window.window });
            progress.complete = true;
          } catch (err) {
            if (!(err instanceof ProviderFailure)) throw err;
            failures.push(`${scope.name} (${kind}): ${err.message}`);
          }
        }
      }
      const message = failures.length ? `Stopped reading ${failures.length} of ${listed.length * source.kinds.length} parts: ${failures.join('; ')}`.slice(0, 500) : null;
      const outcome = failures.length ? 'failed' : 'complete';
      await this.leases.release(connection, owner, { ...summary, outcome, message });
      return this.outcomeOf(connection, summary, scopes, outcome, message);
    } catch (err) {
      if (request.signal?.aborted && (err instanceof RunStopped || isAbort(err))) {
        const message = `Stopped before its end: ${reasonOf(request.signal)}; the next run goes on from where this one reached`;
        await this.leases.release(connection, owner, { ...summary, outcome: 'stopped', message });
        return this.outcomeOf(connection, summary, scopes, 'stopped', message);
      }
      if (!(err instanceof CredentialRefused) && !(err instanceof ProviderFailure)) {
        await this.leases.release(connection, owner, { ...summary, outcome: 'failed', message: 'Stopped by an unexpected error (see the logs)' }).catch(() => undefined);
        throw err;
      }
      const outcome = err instanceof CredentialRefused ? 'refused' : 'failed';
      const message = err.message.slice(0, 500);
      await this.leases.release(connection, owner, { ...summary, outcome, message });
      return this.outcomeOf(connection, summary, scopes, outcome, message);
    }
  }

  private sourceOf(connection: HistoryConnection): HistorySource {
    const provider = this.providers.find(connection.row.provider);
    if (provider?.history) return provider.history;
    const readers = this.providers.historyReaders.map((p) => p.id);
    throw invalid(`${what(connection)} is a ${connection.row.provider} ${connection.type === 'git_app' ? 'git app' : 'app'}, whose history is not read from its API; these are: ${readers.join(', ')}`);
  }

  /**
   * The window a scope's kind is read over, and where in it to start: a stopped window goes on from its cursor when no
   * other start was asked (or the same one); else the start asked, else a little before where the last complete one
   * reached, else a year back. The cursor's row is made or reset here, before any page.
   */
  private async windowOf(connection: HistoryConnection, scope: HistoryScope, kind: HistoryKind, asked: { since?: Date; until: Date }): Promise<{ window: HistoryWindow; cursor: string | null }> {
    const key = { connection_id: connection.row.id, scope_key: scope.key, kind };
    const stored = await HistoryCursor.findOne({ where: key });
    const stopped = stored && !stored.complete && stored.next_page !== null && (!asked.since || asked.since.getTime() === stored.window_since.getTime());
    if (stored && stopped) return { window: { since: stored.window_since, until: stored.window_until }, cursor: stored.next_page };
    const since = asked.since ?? (stored?.read_through ? new Date(stored.read_through.getTime() - OVERLAP_MS) : new Date(asked.until.getTime() - DEFAULT_HISTORY_DAYS * DAY_MS));
    const window = { since, until: asked.until };
    await this.pages.startWindow(key, {
      organization_id: connection.row.organization_id,
      scope_name: scope.name.slice(0, 300),
      window_since: since,
      window_until: asked.until,
      next_page: null,
      complete: false,
      items_read: 0,
      items_found: 0,
      updated_at: this.now(),
    });
    return { window, cursor: null };
  }

  private outcomeOf(connection: HistoryConnection, summary: RunSummary, scopes: ScopeProgress[], outcome: HistoryOutcome['outcome'], message: string | null): HistoryOutcome {
    return {
      connection_id: connection.row.id,
      provider: connection.row.provider,
      since: (summary.since ?? summary.until).toISOString(),
      until: summary.until.toISOString(),
      scopes,
      read: summary.read,
      found: summary.found,
      outcome,
      message,
    };
  }
}

/** The app or git app asked for: it exists and is enabled. */
async function connectionOf(connection: Connection): Promise<HistoryConnection> {
  if (connection.type === 'git_app') {
    const row = await GitApp.findByPk(connection.id);
    if (!row) throw notFound(`No git app ${connection.id} (see npm run gitapps -- list)`);
    if (!row.is_active) throw invalid(`Git app ${row.id} is disabled; enable it first (npm run gitapps -- enable ${row.id})`);
    return { type: 'git_app', row };
  }
  const row = await App.findByPk(connection.id);
  if (!row) throw notFound(`No app ${connection.id} (see npm run apps -- list)`);
  if (!row.is_active) throw invalid(`App ${row.id} is disabled; enable it first (npm run apps -- enable ${row.id})`);
  return { type: 'app', row };
}

const what = (connection: HistoryConnection) => `${connection.type === 'git_app' ? 'Git app' : 'App'} ${connection.row.id}`;

function setCredentialCommand(connection: HistoryConnection): string {
  return connection.type === 'git_app'
    ? `npm run gitapps -- set-credential --git-app ${connection.row.id} --token-file <file>`
    : `npm run apps -- set-credential --app ${connection.row.id} --token-file <file>`;
}

/** Thrown between two batches when the run was asked to stop; the run's own catch records it. */
class RunStopped extends Error {}

function stopIfAsked(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RunStopped();
}

/** A wait for a rate limit ended by the stop (timers/promises rejects with an AbortError). */
const isAbort = (err: unknown) => err instanceof Error && err.name === 'AbortError';

const reasonOf = (signal: AbortSignal) => (typeof signal.reason === 'string' ? signal.reason : 'asked to stop');
