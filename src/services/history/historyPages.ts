import type { InferCreationAttributes } from 'sequelize';
import { HistoryCursor } from '../../../db/models';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import type { ConversationWriter } from '../activity/conversations';
import type { Outcome } from '../git/activity';
import type { GitActivityWriter } from '../git/writer';
import type { OperationsWriter } from '../operations/operationsWriter';
import type { TaskWriter } from '../work/taskWriter';
import { HistoryConnection, HistoryLeases, RunLease } from './historyLeases';
import type { HistoryKind, HistoryPage, HistoryScope, HistoryWindow } from './historySource';

/** The webhooks' writers, one per kind of thing a page brings: a fact is stored the same whichever way it came. */
export interface HistoryWriters {
  activity: GitActivityWriter;
  tasks: TaskWriter;
  operations: OperationsWriter;
  conversations: ConversationWriter;
}

/** Where a page sits: the scope and kind whose cursor it moves, in the window being read. */
export interface PagePlace {
  scope: HistoryScope;
  kind: HistoryKind;
  window: HistoryWindow;
}

type CursorKey = Pick<HistoryCursor, 'connection_id' | 'scope_key' | 'kind'>;
/** A cursor's row as a new window starts it. */
export type WindowStart = Omit<InferCreationAttributes<HistoryCursor>, keyof CursorKey | 'read_through'>;

/** What storing a page did: the items it read and those it created (what no webhook had brought). */
export interface StoredPage {
  read: number;
  found: number;
}

/**
 * Stores a page of a provider's history (docs/history.md#how-a-page-is-stored) in one change: what it brought,
 * through the webhooks' writers, the cursor that resumes after it, and the run's lease renewed. A run stopped anywhere resumes after the last
 * page committed; a page read twice (after a crash between its read and its commit, or by the overlap of the next
 * run) finds its rows and creates nothing.
 */
export class HistoryPageWriter {
  constructor(
    private readonly changes: ChangeRunner,
    private readonly writers: HistoryWriters,
    private readonly now: () => Date = () => new Date(),
  ) {}

  store(connection: HistoryConnection, place: PagePlace, page: HistoryPage, lease: RunLease): Promise<StoredPage> {
    return this.changes.run(
      async (change) => {
        const found = await this.storeItems(change, connection, page);
        await this.moveCursor(change, connection, place, { next: page.next, read: page.read, found });
        const { summary } = lease;
        await HistoryLeases.renewIn(change, connection, { ...lease, summary: { ...summary, read: summary.read + page.read, found: summary.found + found } }, this.now());
        return { read: page.read, found };
      },
      // The task writer's reads must see what the change before committed (taskWriter.ts).
      { readCommitted: true },
    );
  }

  /** A scope's kind starts a new window: its cursor made, or set back to the window's start (keeping where the last complete one reached). */
  startWindow(key: CursorKey, start: WindowStart): Promise<void> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const [, made] = await HistoryCursor.findOrCreate({ where: { ...key }, defaults: { ...key, ...start }, transaction });
      if (!made) await HistoryCursor.update(start, { where: { ...key }, transaction });
      change.wrote('history_cursors');
    });
  }

  /** A window whose listing ended without a last page saying so (a scope with nothing in it): marked complete. */
  finish(connection: HistoryConnection, place: PagePlace): Promise<void> {
    return this.changes.run((change) => this.moveCursor(change, connection, place, { next: null, read: 0, found: 0 }));
  }

  private async storeItems(change: Change, connection: HistoryConnection, page: HistoryPage): Promise<number> {
    let found = 0;
    const { row } = connection;
    if (connection.type === 'git_app') {
      if (page.activities?.length) found += (await this.writers.activity.importInto(change, connection.row, page.activities)).filter(created).length;
    } else if (page.activities?.length) {
      throw new Error(`git activity was read for app ${row.id}: only a git provider's history brings it`);
    }
    if (page.tasks?.length) {
      const source = { appId: row.id, organizationId: row.organization_id, provider: row.provider, accounts: connection.type };
      found += (await this.writers.tasks.importInto(change, source, page.tasks)).created;
    }
    if (page.operations?.length || page.messages?.length) {
      if (connection.type !== 'app') throw new Error(`incidents or messages were read for git app ${row.id}: only an app's provider brings them`);
      const source = { appId: row.id, organizationId: row.organization_id };
      if (page.operations?.length) found += (await this.writers.operations.importInto(change, source, page.operations)).filter((i) => i.result === 'created').length;
      if (page.messages?.length) found += await this.writers.conversations.importInto(change, { ...source, provider: row.provider }, page.messages);
    }
    return found;
  }

  private async moveCursor(change: Change, connection: HistoryConnection, place: PagePlace, moved: { next: string | null; read: number; found: number }): Promise<void> {
    const { transaction } = change;
    const key = { connection_id: connection.row.id, scope_key: place.scope.key, kind: place.kind };
    const cursor = await HistoryCursor.findOne({ where: key, transaction, lock: transaction.LOCK.UPDATE });
    const complete = moved.next === null;
    const fields = {
      scope_name: place.scope.name.slice(0, 300),
      next_page: moved.next,
      complete,
      ...(complete ? { read_through: place.window.until } : {}),
      updated_at: this.now(),
    };
    // The runner makes the row when it starts a window (historyImport.ts); a row deleted meanwhile (its organization's deletion) stays deleted.
    if (!cursor) return;
    await cursor.update({ ...fields, items_read: cursor.items_read + moved.read, items_found: cursor.items_found + moved.found }, { transaction });
    change.wrote('history_cursors');
  }
}

/** Whether a page's piece of git activity made its main row (the pull request, the review, the deployment, the incident). */
function created(outcome: Outcome): boolean {
  return ['pull_request', 'review', 'deployment', 'incident'].some((field) => outcome[field] === 'created');
}
