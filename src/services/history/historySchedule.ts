import { Op } from 'sequelize';
import { App, ConnectionCredential, GitApp, HistoryImport } from '../../../db/models';
import { DomainError } from '../../errors';
import type { ProviderCatalog } from '../apps/catalog';
import type { Connection } from '../apps/credentials';
import { Periodic } from '../periodic';
import type { HistoryImports, HistoryOutcome } from './historyImport';

/** A connection imported less than this long ago waits for a later tick. */
const IMPORTED_RECENTLY_MS = 20 * 3_600_000;

export interface CatchUpOptions {
  /** Between two ticks; the first comes three minutes after start (after the AI vendors' pull's first). */
  intervalMs?: number;
  onImported(outcome: HistoryOutcome): void;
  /** An import that failed unexpectedly (its connection's id), or a tick that could not read the due connections (null). */
  onError(err: unknown, connectionId: string | null): void;
}

/**
 * The daily catch-up (docs/history.md#the-daily-catch-up): each enabled app and git app whose provider's history is
 * read, with a credential, is imported again once a day from where its last run reached (with the runner's overlap),
 * so a delivery lost on its way is found within a day. Runs on each process that runs the AI vendors' daily pull (the
 * API's instances, `npm run worker`); a connection another process is importing is skipped (its lease). One whose
 * credential was refused is tried again the next day: its last run's message says why until a new one is set.
 */
export class HistoryCatchUp {
  private readonly periodic: Periodic;
  /** Aborted by stop(): the import under way gives its lease back after its batch, not after its whole window. */
  private stopping = new AbortController();

  constructor(
    private readonly imports: HistoryImports,
    private readonly providers: ProviderCatalog,
    private readonly options: CatchUpOptions,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.periodic = new Periodic(() => this.runDue().catch((err) => this.options.onError(err, null)), 180_000, options.intervalMs ?? 3_600_000);
  }

  start(): void {
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.periodic.start();
  }

  /** Stops the tick under way after the batch being stored: a process that stops (a deploy) waits for no whole import. */
  stop(): Promise<void> {
    this.stopping.abort('the process stopped');
    return this.periodic.stop();
  }

  /** One tick: each due connection imported in turn; what happened told to the options' callbacks. */
  async runDue(): Promise<HistoryOutcome[]> {
    const outcomes: HistoryOutcome[] = [];
    const { signal } = this.stopping;
    for (const connection of await this.due()) {
      if (signal.aborted) break;
      try {
        const outcome = await this.imports.run({ connection, signal });
        outcomes.push(outcome);
        this.options.onImported(outcome);
      } catch (err) {
        // Another process took it meanwhile, or it was disabled or lost its credential: not this tick's.
        if (!(err instanceof DomainError)) this.options.onError(err, connection.id);
      }
    }
    return outcomes;
  }

  /**
   * The connections with a credential whose provider's history is read, enabled, not imported (or leased) lately. A
   * run stopped with its process is due again at the next tick, on whichever process ticks first.
   */
  private async due(): Promise<Connection[]> {
    const now = this.now();
    const credentials = await ConnectionCredential.findAll({ attributes: ['connection_id'], order: [['connection_id', 'ASC']] });
    if (credentials.length === 0) return [];
    const ids = credentials.map((c) => c.connection_id);
    const recent = await HistoryImport.findAll({
      where: {
        connection_id: ids,
        [Op.or]: [{ started_at: { [Op.gte]: new Date(now.getTime() - IMPORTED_RECENTLY_MS) }, outcome: { [Op.ne]: 'stopped' } }, { lease_until: { [Op.gt]: now } }],
      },
      attributes: ['connection_id'],
    });
    const skip = new Set(recent.map((r) => r.connection_id));
    const candidates = ids.filter((id) => !skip.has(id));
    if (candidates.length === 0) return [];
    const reads = (provider: string) => this.providers.find(provider)?.history !== undefined;
    const [gitApps, apps] = await Promise.all([
      GitApp.findAll({ where: { id: candidates, is_active: true }, attributes: ['id', 'provider'] }),
      App.findAll({ where: { id: candidates, is_active: true }, attributes: ['id', 'provider'] }),
    ]);
    return [
      ...gitApps.filter((g) => reads(g.provider)).map((g): Connection => ({ type: 'git_app', id: g.id })),
      ...apps.filter((a) => reads(a.provider)).map((a): Connection => ({ type: 'app', id: a.id })),
    ].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
