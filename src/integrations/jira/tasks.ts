/**
 * Jira Cloud's issue JSON in the domain's words (docs/trackers.md#trackers): the same issue representation arrives in
 * an admin webhook's delivery and in a page of `GET /rest/api/3/search/jql`, so the ingest transport and the
 * importer share this translation. Only what a task keeps is read: never a description or a comment.
 */
import { z } from 'zod';
import { invalid } from '../../errors';
import type { StatusTransition, TaskEvent, TaskInput, TrackerAccount } from '../../services/work/taskInput';

type Category = TaskInput['statusCategory'];

/** Jira's own three status categories; "No Category" (`undefined`) statuses are counted as not started. */
const CATEGORY_OF_KEY: Record<string, Category> = { new: 'backlog', indeterminate: 'active', done: 'done' };
const categoryOfKey = (key: string): Category => CATEGORY_OF_KEY[key] ?? 'backlog';

const TYPE_OF_NAME: Record<string, TaskInput['type']> = { story: 'story', bug: 'bug', epic: 'epic' };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Jira writes `2019-01-30T15:51:33.199+0300`; the offset gains its colon so every engine reads it alike. */
const jiraTime = z.string().transform((value, ctx) => {
  const date = ISO.test(value) ? new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) {
    ctx.addIssue({ code: 'custom', message: `a time like 2019-01-30T15:51:33.199+0300 (got ${JSON.stringify(value).slice(0, 60)})` });
    return z.NEVER;
  }
  return date;
});

const id = z.union([z.number().int(), z.string().min(1).max(100)]).transform(String);

const account = z
  .looseObject({ accountId: z.string().min(1).max(200).nullish(), emailAddress: z.string().max(320).nullish() })
  .nullish()
  .transform((a): TrackerAccount | null => (a?.accountId || a?.emailAddress ? { externalId: a.accountId ?? null, email: a.emailAddress ?? null } : null));

const status = z.looseObject({ name: z.string().min(1), statusCategory: z.looseObject({ key: z.string() }) });

const changeItem = z.looseObject({
  field: z.string(),
  fieldId: z.string().nullish(),
  to: z.union([z.string(), z.number()]).nullish(),
  fromString: z.string().nullish(),
  toString: z.string().nullish(),
});
type ChangeItem = z.infer<typeof changeItem>;

const history = z.looseObject({ id, created: jiraTime, items: z.array(changeItem) });

const issue = z.looseObject({
  id,
  fields: z.looseObject({
    project: z.looseObject({ key: z.string().min(1).max(200) }),
    summary: z.string(),
    issuetype: z.looseObject({ name: z.string(), subtask: z.boolean().nullish() }),
    status,
    assignee: account,
    parent: z.looseObject({ id }).nullish(),
    created: jiraTime,
    updated: jiraTime,
    resolutiondate: jiraTime.nullish(),
  }),
  /** Present in a search page asked with `expand=changelog` (at most its latest 100 histories). */
  changelog: z.looseObject({ histories: z.array(history) }).nullish(),
});
type JiraIssue = z.infer<typeof issue>;

const ISSUE_EVENTS = ['jira:issue_created', 'jira:issue_updated', 'jira:issue_deleted'] as const;

const webhook = z.looseObject({
  webhookEvent: z.string().min(1).max(100),
  /** Milliseconds since the epoch, when Jira sent the event. */
  timestamp: z.unknown(),
  user: account,
  /** Read once the event is known: a deletion needs only its id and project. */
  issue: z.unknown().optional(),
  changelog: z.looseObject({ id, items: z.array(changeItem) }).nullish(),
});

const deletedIssue = z.looseObject({ id, fields: z.looseObject({ project: z.looseObject({ key: z.string().min(1).max(200) }) }) });

const searchPage = z.looseObject({
  issues: z.array(z.unknown()),
  nextPageToken: z.string().min(1).nullish(),
  isLast: z.boolean().nullish(),
});

/** A mismatch is a 400 (or an importer's error) naming the first bad field. */
function read<S extends z.ZodType>(schema: S, value: unknown, what: string, at = ''): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const path = [at, ...first.path.map(String)].filter(Boolean).join('.');
  throw invalid(`Not ${what}: ${path || 'the body'}: ${first.message}`);
}

/** What a webhook delivery's body asks for: tasks, or why it is acknowledged and ignored. */
export type JiraWebhookOutcome = { event: string; tasks: TaskEvent[] } | { event: string; ignored: string };

/**
 * An admin webhook's body: `jira:issue_created` and `jira:issue_updated` store the issue as it is now, with the
 * status change (and the assignment) its changelog records; `jira:issue_deleted` removes it. Other events (comments,
 * worklogs, sprints…) are acknowledged and ignored.
 */
export function jiraWebhookTasks(body: unknown, pointsField: string | null): JiraWebhookOutcome {
  const delivery = read(webhook, body, 'a Jira webhook delivery');
  const event = delivery.webhookEvent;
  if (!(ISSUE_EVENTS as readonly string[]).includes(event)) {
    return { event, ignored: `${event} is not an issue event; tick only Issue created, updated and deleted in the webhook` };
  }
  const raw = delivery.issue;
  const sentAt = typeof delivery.timestamp === 'number' && Number.isFinite(delivery.timestamp) ? new Date(delivery.timestamp) : null;
  if (event === 'jira:issue_deleted') {
    const gone = read(deletedIssue, raw, 'a Jira issue', 'issue');
    if (!sentAt) throw invalid('Not a Jira webhook delivery: timestamp: the time of the deletion in milliseconds since the epoch');
    return { event, tasks: [{ kind: 'remove', board: gone.fields.project.key, externalId: gone.id, at: sentAt }] };
  }
  const current = read(issue, raw, 'a Jira issue', 'issue');
  // The changelog names no time of its own: Jira sends the delivery as the change is made.
  const at = sentAt ?? current.fields.updated;
  const categories = statusesIn(raw);
  const task = taskOf(current, pointsField);
  const changelog = delivery.changelog;
  if (changelog) {
    task.transitions = changelog.items.filter(isField('status')).map((item) => transition(changelog.id, item, at, current, categories));
    const assigned = changelog.items.find(isField('assignee'));
    if (assigned && (assigned.to ?? null) !== null && delivery.user) task.assignment = { externalId: changelog.id, by: delivery.user, at };
  }
  return { event, tasks: [{ kind: 'upsert', task }] };
}

/** One page of `GET /rest/api/3/search/jql?expand=changelog`: its issues with their status history. */
export interface JiraSearchPage {
  tasks: TaskInput[];
  /** The token of the next page; undefined on the last one. */
  nextPageToken: string | undefined;
}

export function jiraSearchPage(body: unknown, pointsField: string | null): JiraSearchPage {
  const page = read(searchPage, body, 'a page of Jira search results');
  const issues = page.issues.map((raw, i) => read(issue, raw, 'a page of Jira search results', `issues.${i}`));
  // Every status the page shows, with its category: a history item names only the status.
  const categories = statusesIn(page.issues);
  const tasks = issues.map((current) => {
    const task = taskOf(current, pointsField);
    const histories = [...(current.changelog?.histories ?? [])].sort((a, b) => a.created.getTime() - b.created.getTime());
    task.transitions = histories.flatMap((h) => h.items.filter(isField('status')).map((item) => transition(h.id, item, h.created, current, categories)));
    return task;
  });
  // Jira omits the token on the last page (JRACLOUD-92184) or sends isLast; either ends the paging.
  const last = page.isLast === true || !page.nextPageToken;
  return { tasks, nextPageToken: last ? undefined : (page.nextPageToken ?? undefined) };
}

function taskOf(current: JiraIssue, pointsField: string | null): TaskInput {
  const f = current.fields;
  const points = pointsField ? f[pointsField] : null;
  return {
    board: f.project.key,
    externalId: current.id,
    title: f.summary,
    type: f.issuetype.subtask ? 'task' : (TYPE_OF_NAME[f.issuetype.name.trim().toLowerCase()] ?? 'task'),
    statusName: f.status.name,
    statusCategory: categoryOfKey(f.status.statusCategory.key),
    assignee: f.assignee,
    storyPoints: typeof points === 'number' && Number.isFinite(points) && points >= 0 ? points : null,
    parentExternalId: f.parent?.id ?? null,
    createdAt: f.created,
    updatedAt: f.updated,
    resolvedAt: f.resolutiondate ?? null,
    transitions: [],
  };
}

/** Cloud names the field `status` (`Status` on a created issue's changelog); `fieldId` is always lower case. */
const isField = (name: string) => (item: ChangeItem) => (item.fieldId ?? item.field).toLowerCase() === name;

/**
 * A changelog's status item names the statuses, not their categories. Each is looked up, by name in any case,
 * first as the issue's current status, then among the statuses seen in the same delivery or page (linked issues,
 * sub-tasks, parents, the page's other issues). A `from` not found stays unknown (null); a `to` not found counts as
 * active: a status left behind that Jira's payload no longer describes is most often a step of work in progress,
 * and `apps map-status` corrects it by name for the past too.
 */
function transition(changeId: string, item: ChangeItem, at: Date, current: JiraIssue, seen: Map<string, Category>): StatusTransition {
  const categoryOf = (name: string | null | undefined): Category | null => {
    if (!name) return null;
    const key = name.trim().toLowerCase();
    if (key === current.fields.status.name.trim().toLowerCase()) return categoryOfKey(current.fields.status.statusCategory.key);
    return seen.get(key) ?? null;
  };
  const toName = item.toString ?? current.fields.status.name;
  return {
    externalId: changeId,
    fromName: item.fromString ?? null,
    fromCategory: categoryOf(item.fromString),
    toName,
    toCategory: categoryOf(toName) ?? 'active',
    at,
  };
}

/** Every status object (a name with a statusCategory) anywhere in the JSON, by lower-cased name. */
function statusesIn(json: unknown): Map<string, Category> {
  const found = new Map<string, Category>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 12 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
    // Most objects of a payload are not statuses: they are told apart by their keys before any is parsed.
    const parsed = 'statusCategory' in value && 'name' in value ? status.safeParse(value) : undefined;
    if (parsed?.success) found.set(parsed.data.name.trim().toLowerCase(), categoryOfKey(parsed.data.statusCategory.key));
    for (const v of Object.values(value)) visit(v, depth + 1);
  };
  visit(json, 0);
  return found;
}
