import { App, GitApp, HistoryImport, HistoryOutcomeKind } from '../../../db/models';
import type { Change, ChangeRunner } from '../../persistence/changes/change';

/** The connection a history is read for: a git app, or an app (a tracker's, an incident tool's, Slack). */
export type HistoryConnection = { type: 'git_app'; row: GitApp } | { type: 'app'; row: App };

/** The run holding a connection's lease, and what it has done so far. */
export interface RunLease {
  owner: string;
  summary: RunSummary;
}

/** What a run has done so far, kept on its connection's row as it goes. */
export interface RunSummary {
  read: number;
  found: number;
  /** The earliest start of the windows it read; null before the first. */
  since: Date | null;
  until: Date;
}

/**
 * A connection's import row (history_imports): the lease that lets one run read it at a time (the CLI's and the
 * daily catch-up's on any process), renewed with each page in the page's own change (historyPages.ts), so a run
 * killed midway lets the next take over once it lapses; and the last run's summary, which the setup view shows.
 */
export class HistoryLeases {
  /** A run that has stored no page for this long is taken for dead. */
  static readonly LEASE_MS = 10 * 60_000;

  constructor(
    private readonly changes: ChangeRunner,
    private readonly now: () => Date,
  ) {}

  /** The lease, or null while another run holds it; the address asked is kept for the runs after. */
  take(connection: HistoryConnection, owner: string, asked: { baseUrl?: string }): Promise<{ baseUrl: string | null } | null> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const at = this.now();
      const fields = {
        lease_owner: owner,
        lease_until: new Date(at.getTime() + HistoryLeases.LEASE_MS),
        started_at: at,
        finished_at: null,
        outcome: 'running' as const,
        message: null,
        window_since: null,
        window_until: null,
        items_read: 0,
        items_found: 0,
        updated_at: at,
        ...(asked.baseUrl === undefined ? {} : { base_url: asked.baseUrl }),
      };
      const row = await HistoryImport.findByPk(connection.row.id, { transaction, lock: transaction.LOCK.UPDATE });
      change.wrote('history_imports');
      if (!row) {
        const made = await HistoryImport.create(
          { connection_id: connection.row.id, organization_id: connection.row.organization_id, connection_type: connection.type, base_url: asked.baseUrl ?? null, ...fields },
          { transaction },
        );
        return { baseUrl: made.base_url };
      }
      if (row.lease_until && row.lease_until > at && row.lease_owner !== owner) return null;
      await row.update(fields, { transaction });
      return { baseUrl: row.base_url };
    });
  }

  /** In a page's change: the lease pushed on, the counts so far shown (those of the page included). */
  static async renewIn(change: Change, connection: HistoryConnection, lease: RunLease, at: Date): Promise<void> {
    await HistoryImport.update(
      { lease_until: new Date(at.getTime() + HistoryLeases.LEASE_MS), ...counts(lease.summary), updated_at: at },
      { where: { connection_id: connection.row.id, lease_owner: lease.owner }, transaction: change.transaction },
    );
    change.wrote('history_imports');
  }

  /** The run's end: how it ended, the lease given up. */
  async release(connection: HistoryConnection, owner: string, ended: RunSummary & { outcome: Exclude<HistoryOutcomeKind, 'running'>; message: string | null }): Promise<void> {
    const at = this.now();
    await this.changes.run(async (change) => {
      await HistoryImport.update(
        { lease_owner: null, lease_until: null, finished_at: at, outcome: ended.outcome, message: ended.message, ...counts(ended), updated_at: at },
        { where: { connection_id: connection.row.id, lease_owner: owner }, transaction: change.transaction },
      );
      change.wrote('history_imports');
    });
  }
}

const counts = (summary: RunSummary) => ({ items_read: summary.read, items_found: summary.found, window_since: summary.since, window_until: summary.until });
