import { jiraSearchPage, jiraWebhookTasks } from '../../src/integrations/jira/tasks';
import type { TaskInput } from '../../src/services/work/taskInput';
import { copy } from '../support/peers/ingest';
import { issueAssigned, issueCreated, issueStatusChanged } from '../support/peers/jira/deliveries';

/**
 * Jira's issue JSON in the domain's words (src/integrations/jira/tasks.ts), on Jira Cloud's own deliveries
 * (test/support/peers/jira/README.md): types, points, and the categories a changelog leaves out.
 */

const upserted = (outcome: ReturnType<typeof jiraWebhookTasks>): TaskInput => {
  if (!('tasks' in outcome) || outcome.tasks[0].kind !== 'upsert') throw new Error(`not an upsert: ${JSON.stringify(outcome)}`);
  return outcome.tasks[0].task;
};

/** The delivery with its issue's type set as a site may name it. */
function typed(name: string, subtask = false) {
  const payload = copy(issueCreated);
  payload.issue.fields.issuetype = { ...payload.issue.fields.issuetype, name, subtask };
  return upserted(jiraWebhookTasks(payload, null)).type;
}

test('types: Story, Bug and Epic as named (any case); Task, Sub-task, sub-tasks and other names are tasks', () => {
  expect([typed('Story'), typed('bug'), typed('Epic'), typed('Task'), typed('Sub-task', true), typed('Story', true), typed('Tarea')]).toEqual([
    'story',
    'bug',
    'epic',
    'task',
    'task',
    'task',
    'task',
  ]);
});

test("story points: the app's field when it holds a number; null when unset, not a number, or no field is named", () => {
  const payload = copy(issueStatusChanged);
  // On the site that sent this delivery, customfield_10016 holds a date.
  expect(upserted(jiraWebhookTasks(payload, 'customfield_10016')).storyPoints).toBeNull();
  payload.issue.fields.customfield_10016 = 5;
  expect(upserted(jiraWebhookTasks(payload, 'customfield_10016')).storyPoints).toBe(5);
  expect(upserted(jiraWebhookTasks(payload, null)).storyPoints).toBeNull();
  expect(upserted(jiraWebhookTasks(payload, 'customfield_99999')).storyPoints).toBeNull();
});

test('a delivery: the issue as it is now, its change of status, its assignment with who made it', () => {
  const moved = upserted(jiraWebhookTasks(issueStatusChanged, null));
  expect(moved).toMatchObject({ board: 'INDEV', externalId: '11442', statusName: 'In Progress', statusCategory: 'active', assignee: { externalId: '5b912f1c1aa25f2be7d36947', email: null } });
  expect(moved.transitions).toEqual([{ externalId: '34911', fromName: 'To Do', fromCategory: null, toName: 'In Progress', toCategory: 'active', at: new Date('2019-01-30T12:51:33.199Z') }]);
  expect(moved.assignment).toBeUndefined();

  const assigned = upserted(jiraWebhookTasks(issueAssigned, null));
  expect(assigned.transitions).toEqual([]);
  expect(assigned.assignment).toEqual({ externalId: '76941', by: { externalId: '5c07f55ba1b46046f530e0f3', email: null }, at: new Date('2019-06-13T09:51:58.248Z') });
  // With Jira's timestamp (milliseconds), that is the time of the change.
  const timed = upserted(jiraWebhookTasks({ ...issueAssigned, timestamp: Date.parse('2019-06-13T09:52:00Z') }, null));
  expect(timed.assignment?.at).toEqual(new Date('2019-06-13T09:52:00Z'));
});

test("a change's categories: the current status's, else a status of that name seen in the same page, else unknown (from) or active (to)", () => {
  const history = (id: string, created: string, items: unknown[]) => ({ id, created, author: issueStatusChanged.user, items });
  const moved = copy(issueStatusChanged.issue);
  moved.changelog = {
    startAt: 0,
    maxResults: 3,
    total: 3,
    histories: [
      // Newest first, as Jira lists them.
      history('34912', '2019-01-30T16:00:00.000+0300', [{ field: 'status', fieldtype: 'jira', fieldId: 'status', from: '10258', fromString: 'In Progress', to: '10300', toString: 'Code Review' }]),
      history('34911', '2019-01-30T15:51:33.199+0300', issueStatusChanged.changelog.items),
      history('34900', '2018-12-05T14:32:11.571+0300', [{ field: 'Status', fieldtype: 'jira', fieldId: 'status', from: null, fromString: null, to: '10257', toString: 'To Do' }]),
    ],
  };
  // The other issue of the page is in "To Do" (category new): that names the category of "To Do".
  const page = jiraSearchPage({ issues: [moved, issueAssigned.issue], isLast: true }, null);
  expect(page.nextPageToken).toBeUndefined();
  expect(page.tasks[0].transitions.map((t) => [t.externalId, t.fromName, t.fromCategory, t.toName, t.toCategory])).toEqual([
    ['34900', null, null, 'To Do', 'backlog'],
    ['34911', 'To Do', 'backlog', 'In Progress', 'active'],
    ['34912', 'In Progress', 'active', 'Code Review', 'active'],
  ]);
  expect(page.tasks[1]).toMatchObject({ externalId: '19435', type: 'story', statusCategory: 'backlog', parentExternalId: '11389', transitions: [] });
});

test('paging: a token means another page unless Jira says this is the last; a page not Jira\'s names its first bad field', () => {
  expect(jiraSearchPage({ issues: [], nextPageToken: 'CAEaAggD', isLast: false }, null).nextPageToken).toBe('CAEaAggD');
  expect(jiraSearchPage({ issues: [], nextPageToken: 'CAEaAggD', isLast: true }, null).nextPageToken).toBeUndefined();
  expect(jiraSearchPage({ issues: [] }, null).nextPageToken).toBeUndefined();
  const broken = copy(issueCreated.issue);
  broken.fields.created = 'yesterday';
  expect(() => jiraSearchPage({ issues: [issueStatusChanged.issue, broken] }, null)).toThrow(/issues\.1\.fields\.created: a time like/);
});
