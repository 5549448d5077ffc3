import type { Delivery } from '../integrations/provider';
import type { ConversationWriter } from '../services/activity/conversations';
import type { GitActivityWriter } from '../services/git/writer';
import type { OperationResult, OperationsWriter } from '../services/operations/operationsWriter';
import type { TaskWriter } from '../services/work/taskWriter';
import { Connection, taskSourceOf } from './connections';

/** The domain's writers, one per kind of thing a delivery brings; none knows which provider sent it. */
export interface DeliveryWriters {
  activity: GitActivityWriter;
  tasks: TaskWriter;
  operations: OperationsWriter;
  conversations: ConversationWriter;
}

type Storable = Exclude<Delivery, { ignored: string } | { ping: true } | { reply: Record<string, string> }>;

/**
 * Stores what a delivery brought through the writer of its kind. Each writer records the delivery under its
 * connection's id in the same change, so a redelivery is a duplicate whichever writer took the first one (an
 * issue is a task or, labelled an incident, git activity: never both).
 */
export async function stored(writers: DeliveryWriters, connection: Connection, delivery: Storable) {
  const { event } = delivery;
  if ('tasks' in delivery) return writers.tasks.receive({ source: taskSourceOf(connection), id: delivery.id, event }, delivery.tasks);
  if ('activity' in delivery) {
    if (connection.kind !== 'git_app') throw new Error(`git activity arrived for app ${connection.app.id}: only a git provider brings it`);
    return writers.activity.receive({ gitApp: connection.gitApp, id: delivery.id, event }, delivery.activity);
  }
  if (connection.kind !== 'app') throw new Error(`${event} arrived for git app ${connection.gitApp.id}: only an app's provider brings messages, incidents or deployments`);
  const { app } = connection;
  if ('messages' in delivery) return writers.conversations.receive({ source: { appId: app.id, organizationId: app.organization_id, provider: app.provider }, id: delivery.id, event }, delivery.messages);
  const { result, items } = await writers.operations.receive({ source: { appId: app.id, organizationId: app.organization_id }, id: delivery.id, event }, delivery.operations);
  const of = (kind: OperationResult['kind']) => items.filter((i) => i.kind === kind).map(({ kind: _, ...item }) => item);
  return { result, incidents: of('incident'), deployments: of('deployment') };
}
