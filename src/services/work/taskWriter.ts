import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { GroupCommit } from '../../persistence/changes/groupCommit';
import { recordInteractions } from '../activity/interactions';
import { firstDeliveries } from '../apps/appDeliveries';
import { recordDelivery } from '../apps/connectionStates';
import { AccountDirectory, accountDirectory } from './accounts';
import { noteUnmatched } from '../people/unmatchedAccounts';
import type { TaskEvent, TaskInput, TaskResult, TaskSource } from './taskInput';
import { ChangeEffects, removeTask, upsertTask } from './taskState';
import { IssueStates } from './taskStore';
import { sourceContext, storable } from './tasks';

export interface TrackerDelivery {
  source: TaskSource;
  /** The provider's delivery id: a redelivery finds it and changes nothing. */
  id: string;
  event: string;
}

export interface TaskOutcome {
  result: 'applied' | 'duplicate';
  tasks: { external_id: string; result: TaskResult }[];
}

export interface ImportedPage {
  created: number;
  updated: number;
  unchanged: number;
}

/**
 * Deliveries of one issue arrive at once (Jira sends each change as it is made): once a change holds the task's
 * row, its reads of the task's history must see what the change before it committed, which MariaDB's default
 * snapshot (taken at the change's first read) would hide; and the task or tombstone looked up may not exist yet.
 */
const READ_COMMITTED = { readCommitted: true };

type Received = { delivery: TrackerDelivery; events: TaskEvent[] };

/**
 * Stores work from trackers (docs/trackers.md#trackers) on the write path of docs/architecture.md#writers, whichever
 * transport brought it. A delivery is recorded with its id so that a redelivery changes nothing; the deliveries of
 * one app that arrive while one of its changes commits are stored together in the next (group commit), each
 * answered once that change has committed; each page of an import is one change. Tasks are unique per app and
 * provider id, so an issue that arrives by a webhook and by an import is stored once.
 */
export class TaskWriter {
  private readonly deliveries: GroupCommit<Received, TaskOutcome>;

  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {
    this.deliveries = new GroupCommit((_appId, received) => this.changes.run((change) => this.receiveAll(change, received), READ_COMMITTED));
  }

  async receive(delivery: TrackerDelivery, events: TaskEvent[]): Promise<TaskOutcome> {
    for (const e of events) {
      if (e.kind === 'upsert') storable(e.task.board, e.task.externalId);
      else storable(null, e.externalId);
    }
    return this.deliveries.add(delivery.source.appId, { delivery, events });
  }

  /** One page of an import (npm run import -- jira|linear): issues with their whole history. */
  async importPage(source: TaskSource, inputs: TaskInput[]): Promise<ImportedPage> {
    for (const task of inputs) storable(task.board, task.externalId);
    return this.changes.run((change) => this.importInto(change, source, inputs), READ_COMMITTED);
  }

  /**
   * Issues with their whole history within a change another service runs (a page of a provider's history, stored
   * with its cursor: src/services/history/historyPages.ts). Checks what importPage checks first.
   */
  async importInto(change: Change, source: TaskSource, inputs: TaskInput[]): Promise<ImportedPage> {
    for (const task of inputs) storable(task.board, task.externalId);
    const [results] = await this.apply(change, source, [inputs.map((task) => ({ kind: 'upsert', task }))]);
    const count = (r: TaskResult) => results.filter((x) => x.result === r).length;
    return { created: count('created'), updated: count('updated'), unchanged: results.length - count('created') - count('updated') };
  }

  /** Deliveries of one app, each once: those received before (or earlier in the group) are duplicates. */
  private async receiveAll(change: Change, received: Received[]): Promise<TaskOutcome[]> {
    const firstSeen = await firstDeliveries(change.transaction, received[0].delivery.source.appId, received.map((r) => r.delivery), this.now());
    const fresh = received.filter((r) => firstSeen.has(r.delivery));
    if (fresh.length === 0) return received.map(() => ({ result: 'duplicate', tasks: [] }));
    const { source } = received[0].delivery;
    const results = await this.apply(change, source, fresh.map((r) => r.events));
    await recordDelivery(change.transaction, { connectionId: source.appId, organizationId: source.organizationId }, fresh[fresh.length - 1].delivery.event, this.now());
    return received.map((r) => {
      const i = fresh.indexOf(r);
      return i < 0 ? { result: 'duplicate', tasks: [] } : { result: 'applied', tasks: results[i] };
    });
  }

  /**
   * Events of one source, in order, in a fixed number of statements: the issues they touch are read at once,
   * the events applied to them in memory, and what changed written back.
   */
  private async apply(change: Change, source: TaskSource, groups: TaskEvent[][]): Promise<TaskOutcome['tasks'][]> {
    const { transaction } = change;
    const events = groups.flat();
    const upserts = events.flatMap((e) => (e.kind === 'upsert' ? [e.task] : []));
    const accounts = await accountDirectory(source, upserts.flatMap((t) => [t.assignee, t.assignment?.by]), transaction, this.now());
    const ctx = await sourceContext(source, accounts);
    const keys = events.map((e) => (e.kind === 'upsert' ? e.task.externalId : e.externalId));
    const parents = upserts.flatMap((t) => (t.parentExternalId ? [t.parentExternalId] : []));
    const issues = await IssueStates.load(source.appId, keys, parents, transaction);
    const effects: ChangeEffects = { interactions: [], wrote: false };
    const results = groups.map((group) =>
      group.map((e) =>
        e.kind === 'upsert'
          ? { external_id: e.task.externalId, result: upsertTask(issues.of(e.task.externalId), ctx, e.task, issues.parentOf, effects) }
          : { external_id: e.externalId, result: removeTask(issues.of(e.externalId), e.at, effects) },
      ),
    );
    await issues.save(transaction);
    await noteUnmatchedAssignees(change, source, accounts, groups, results);
    await recordInteractions(change, effects.interactions);
    if (effects.wrote) change.wrote('tasks');
    return results;
  }
}

/** Tasks given to accounts no member is behind, when stored or assigned anew: what `apps unlinked` counts of them. */
function noteUnmatchedAssignees(change: Change, source: TaskSource, accounts: AccountDirectory, groups: TaskEvent[][], results: TaskOutcome['tasks'][]): Promise<void> {
  const assigned = groups.flatMap((group, i) =>
    group.flatMap((e, j) => {
      if (e.kind !== 'upsert' || !e.task.assignee || accounts.find(e.task.assignee)) return [];
      const { result } = results[i][j];
      return result === 'created' || (result === 'updated' && e.task.assignment) ? [{ account: accounts.keyOf(e.task.assignee), at: e.task.assignment?.at ?? e.task.createdAt }] : [];
    }),
  );
  return noteUnmatched(change.transaction, { id: source.appId, organizationId: source.organizationId }, 'task_assigned', assigned);
}
