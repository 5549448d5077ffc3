/**
 * Linear's issues in the domain's words (docs/trackers.md#linear): a webhook's `Issue` delivery and an issue of the
 * GraphQL API's `issues` connection both become a TaskInput. Shared by the ingest transport and the importer, so
 * both read Linear the same way.
 */
import { z } from 'zod';
import type { TaskStatus } from '../../../db/models';
import type { StatusTransition, TaskEvent, TaskInput, TrackerAccount } from '../../services/work/taskInput';

/** Linear's workflow state types (`WorkflowState.type`) and the category each means. */
const STATE_CATEGORIES = { triage: 'backlog', backlog: 'backlog', unstarted: 'backlog', started: 'active', completed: 'done', canceled: 'canceled' } as const satisfies Record<string, TaskStatus>;
type StateType = keyof typeof STATE_CATEGORIES;

const id = z.string().min(1).max(100);
const time = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const nullableTime = time.nullish().transform((v) => v ?? null);
const state = z.looseObject({ id, name: z.string().min(1), type: z.enum(Object.keys(STATE_CATEGORIES) as [StateType, ...StateType[]]) });
const user = z.looseObject({ id, email: z.string().nullish() });
const team = z.looseObject({ id, key: z.string().min(1).max(100) });
const labelNames = z.array(z.looseObject({ name: z.string() }));

/** The issue fields both shapes carry. */
const issueFields = {
  id,
  title: z.string(),
  createdAt: time,
  updatedAt: time,
  completedAt: nullableTime,
  canceledAt: nullableTime,
  estimate: z.number().nonnegative().max(1_000_000).nullish(),
  state,
};

/** A webhook's `data` for type `Issue`: ids beside the objects (`teamId`, `assigneeId`, `parentId`). */
const webhookIssue = z.looseObject({
  ...issueFields,
  teamId: id,
  team: team.nullish(),
  assigneeId: id.nullish(),
  assignee: user.nullish(),
  labels: labelNames.nullish(),
  parentId: id.nullish(),
  archivedAt: nullableTime,
});

/** Who made the change (`actor`, sent since 2024); an integration or an OAuth app has no e-mail. */
const actor = z.looseObject({ id, email: z.string().nullish() });

/** A data change webhook's envelope (https://linear.app/developers/webhooks, "The webhook payload"). */
export const linearWebhook = z.looseObject({
  // The event `${type}:${action}` is kept with the delivery's id, in at most 64 characters.
  action: z.string().min(1).max(23),
  type: z.string().min(1).max(40),
  createdAt: nullableTime,
  data: z.looseObject({}),
  actor: actor.nullish(),
  updatedFrom: z.looseObject({}).nullish(),
  webhookTimestamp: z.number().nullish(),
});
export type LinearWebhook = z.infer<typeof linearWebhook>;

/** What an `Issue` update changed: the previous state (its id; its name and type only when sent) and assignee. */
const updatedFrom = z.looseObject({ stateId: id.nullish(), state: state.partial().nullish() });

/** A history entry of the GraphQL API: a change of state when `toState` is set, else another field's change. */
const historyEntry = z.looseObject({ id, createdAt: time, fromState: state.nullish(), toState: state.nullish() });
const connection = <T extends z.ZodType>(node: T) =>
  z.looseObject({ nodes: z.array(node), pageInfo: z.looseObject({ hasNextPage: z.boolean(), endCursor: z.string().nullish() }).optional() });
export const linearHistory = connection(historyEntry);
export type LinearHistory = z.infer<typeof linearHistory>;

/** An issue as the importer's query asks for it (src/integrations/linear/importer.ts). */
export const linearIssueNode = z.looseObject({
  ...issueFields,
  team,
  assignee: user.nullish(),
  labels: z.looseObject({ nodes: labelNames }).nullish(),
  parent: z.looseObject({ id }).nullish(),
  history: linearHistory,
});
export type LinearIssueNode = z.infer<typeof linearIssueNode>;

/** An `Issue` delivery: the issue's new state, and what the change replaced. */
export const linearIssueWebhook = linearWebhook.extend({ data: webhookIssue, updatedFrom: updatedFrom.nullish() });
export type LinearIssueWebhook = z.infer<typeof linearIssueWebhook>;

/**
 * Why a delivery is acknowledged and ignored, if it is: only Issues are stored, created, updated or removed. Other
 * types (comments, labels, reactions, projects…) are not; descriptions and comments are never stored.
 */
export function ignoredLinearChange(body: LinearWebhook): string | undefined {
  if (body.type !== 'Issue') return `Linear ${body.type} changes are not stored; only Issues are`;
  if (!['create', 'update', 'remove'].includes(body.action)) return `Linear Issue action '${body.action}' is not stored`;
  return undefined;
}

/** The task an `Issue` delivery brings: its new state (create, update), or its removal. */
export function linearIssueEvent(body: LinearIssueWebhook): TaskEvent {
  const issue = body.data;
  const board = issue.team?.key ?? issue.teamId;
  if (body.action === 'remove') {
    const at = issue.archivedAt ?? body.createdAt ?? (body.webhookTimestamp ? new Date(body.webhookTimestamp) : issue.updatedAt);
    return { kind: 'remove', board, externalId: issue.id, at };
  }
  const previous = body.updatedFrom;
  const task: TaskInput = {
    ...common(issue, board, issue.labels ?? []),
    assignee: issue.assignee ? account(issue.assignee) : issue.assigneeId ? { externalId: issue.assigneeId, email: null } : null,
    parentExternalId: issue.parentId ?? null,
    transitions: previous?.stateId && previous.stateId !== issue.state.id ? [webhookTransition(previous, issue.state, issue.updatedAt)] : [],
  };
  // Assigned now, by someone Linear names: on creation, or when this update changed the assignee.
  const assigned = body.action === 'create' || (previous ? 'assigneeId' in previous : false);
  if (assigned && issue.assigneeId && body.actor) {
    task.assignment = { externalId: `${issue.id}:assignee@${issue.updatedAt.toISOString()}`, by: account(body.actor), at: issue.updatedAt };
  }
  return { kind: 'upsert', task };
}

/** An issue of the GraphQL API with the state changes its history shows. */
export function linearIssueTask(node: LinearIssueNode, history: LinearHistory['nodes'] = node.history.nodes): TaskInput {
  return {
    ...common(node, node.team.key, node.labels?.nodes ?? []),
    assignee: node.assignee ? account(node.assignee) : null,
    parentExternalId: node.parent?.id ?? null,
    transitions: history.flatMap((h): StatusTransition[] =>
      h.toState
        ? [{ externalId: h.id, fromName: h.fromState?.name ?? null, fromCategory: h.fromState ? STATE_CATEGORIES[h.fromState.type] : null, toName: h.toState.name, toCategory: STATE_CATEGORIES[h.toState.type], at: h.createdAt }]
        : [],
    ),
  };
}

type IssueFields = z.infer<z.ZodObject<typeof issueFields>>;

function common(issue: IssueFields, board: string, labels: { name: string }[]) {
  return {
    board,
    externalId: issue.id,
    title: issue.title,
    type: labels.some((l) => l.name.trim().toLowerCase() === 'bug') ? ('bug' as const) : ('task' as const),
    statusName: issue.state.name,
    statusCategory: STATE_CATEGORIES[issue.state.type],
    storyPoints: issue.estimate ?? null,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    resolvedAt: issue.completedAt ?? issue.canceledAt ?? null,
  };
}

const account = (u: { id: string; email?: string | null }): TrackerAccount => ({ externalId: u.id, email: u.email ?? null });

/**
 * The state change an update made. Linear sends only the previous state's id: its name and category stay unknown
 * (null) unless the delivery carries them. The id is the change's own facts, the same in every redelivery.
 */
function webhookTransition(previous: z.infer<typeof updatedFrom>, to: z.infer<typeof state>, at: Date): StatusTransition {
  const fromType = previous.state?.type;
  return {
    externalId: `${previous.stateId}->${to.id}@${at.toISOString()}`,
    fromName: previous.state?.name ?? null,
    fromCategory: fromType ? STATE_CATEGORIES[fromType] : null,
    toName: to.name,
    toCategory: STATE_CATEGORIES[to.type],
    at,
  };
}
