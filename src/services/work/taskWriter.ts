import { IngestDelivery } from '../../../db/models';
import type { Change, ChangeRunner } from '../../persistence/changes/change';
import { accountDirectory } from './accounts';
import type { TaskEvent, TaskInput, TaskResult, TaskSource } from './taskInput';
import { recordTask, removeTask, sourceContext } from './tasks';

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

/**
 * Stores work from trackers (docs/trackers.md#trackers) on the write path of docs/architecture.md#writers, whichever
 * transport brought it: each delivery is one change, recorded with its id so that a redelivery changes nothing;
 * each page of an import is one change too. Tasks are unique per app and provider id, so an issue that arrives
 * by a webhook and by an import is stored once.
 */
export class TaskWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  receive(delivery: TrackerDelivery, events: TaskEvent[]): Promise<TaskOutcome> {
    return this.changes.run(async (change) => {
      const { transaction } = change;
      const key = { app_id: delivery.source.appId, delivery_id: delivery.id };
      if (await IngestDelivery.findOne({ where: key, attributes: ['delivery_id'], transaction })) return { result: 'duplicate', tasks: [] };
      await IngestDelivery.create({ ...key, event: delivery.event, received_at: this.now() }, { transaction });
      return { result: 'applied', tasks: await this.apply(change, delivery.source, events) };
    }, READ_COMMITTED);
  }

  /** One page of an import (npm run import -- jira|linear): issues with their whole history. */
  importPage(source: TaskSource, inputs: TaskInput[]): Promise<ImportedPage> {
    return this.changes.run(async (change) => {
      const results = await this.apply(change, source, inputs.map((task) => ({ kind: 'upsert', task })));
      const count = (r: TaskResult) => results.filter((x) => x.result === r).length;
      return { created: count('created'), updated: count('updated'), unchanged: results.length - count('created') - count('updated') };
    }, READ_COMMITTED);
  }

  private async apply(change: Change, source: TaskSource, events: TaskEvent[]): Promise<TaskOutcome['tasks']> {
    const upserts = events.flatMap((e) => (e.kind === 'upsert' ? [e.task] : []));
    const accounts = await accountDirectory(source, upserts.flatMap((t) => [t.assignee, t.assignment?.by]), change.transaction, this.now());
    const ctx = await sourceContext(source, upserts.map((t) => t.board), accounts, change.transaction);
    const results: TaskOutcome['tasks'] = [];
    for (const event of events) {
      const result = event.kind === 'upsert' ? await recordTask(change, ctx, event.task) : await removeTask(change, source, event.externalId, event.at);
      results.push({ external_id: event.kind === 'upsert' ? event.task.externalId : event.externalId, result });
    }
    return results;
  }
}
