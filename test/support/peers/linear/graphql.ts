/**
 * Linear's GraphQL API as the importer meets it: `POST /graphql` answering `{"data": {...}}` (or `{"errors": [...]}`),
 * connections as `{nodes, pageInfo: {hasNextPage, endCursor}}` (https://linear.app/developers/graphql,
 * "Pagination"), rate-limited requests refused with the `RATELIMITED` error code and the `X-RateLimit-Requests-*`
 * headers (https://linear.app/developers/rate-limiting).
 *
 * The issues are the "Issue response data" node of Port's Linear integration docs (port-labs/port-docs,
 * docs/build-your-software-catalog/sync-data-to-catalog/project-management/linear/linear.md at
 * 05c8b654e3f12fa2946a2d68f7b6dee7acebd0f8: `POR-2`, a sub-issue of `POR-1`), its e-mail rewritten to a demo member,
 * with the fields the importer's query selects beside it (a state's `id` and `type`, an assignee's `id`, `labels`,
 * `history` with `fromState`/`toState`) as Linear's schema names them; `POR-1` and a third issue are written the
 * same way.
 */
type Payload = Record<string, any>;

const TEAM = { id: '92d25fa4-fb1c-449f-b314-47f82e8f280d', name: 'Port', key: 'POR' };
const BACKLOG = { id: 'c02edc3a-1a2b-4c3d-8e4f-85c349766a13', name: 'Backlog', type: 'backlog' };
const TODO = { id: 'f12cad17-9b8f-470d-b20a-5e17da8e46b9', name: 'Todo', type: 'unstarted' };
const STARTED = { id: '5d1c7a52-6f0e-4d0b-9a53-0c3bf1f7d8a1', name: 'In Progress', type: 'started' };
const DONE = { id: 'a4b1e7c0-3c55-4b8e-8a0c-5f7e2d9b6c14', name: 'Done', type: 'completed' };
const CANCELED = { id: '9e3f0b6d-2a71-4c8e-b5d4-7a1c0e8f3b25', name: 'Canceled', type: 'canceled' };

const change = (id: string, createdAt: string, fromState: Payload | null, toState: Payload | null) => ({ id, createdAt, fromState, toState });

/** POR-2: in progress; its history runs over two pages (the second read with the `IssueHistory` query). */
export const subIssue: Payload = {
  "id": "9b4745c2-a8e6-4432-9e56-0fa97b79ccbf",
  "createdAt": "2024-05-16T21:52:00.299Z",
  "updatedAt": "2024-05-17T09:27:40.077Z",
  "archivedAt": null,
  "number": 2,
  "title": "sub issue with new title",
  "priority": 3,
  "estimate": 2,
  "sortOrder": -991,
  "startedAt": "2024-05-17T09:27:40.077Z",
  "completedAt": null,
  "canceledAt": null,
  "labelIds": [
      "402b218c-938c-4ddf-85db-0019bc632316"
  ],
  "priorityLabel": "Medium",
  "identifier": "POR-2",
  "url": "https://linear.app/getport/issue/POR-2/sub-issue-with-new-title",
  "team": TEAM,
  "state": STARTED,
  "assignee": {
      "id": "6f1e2d3c-4b5a-4697-8877-665544332211",
      "name": "Dudi Elhadad",
      "email": "linus@demo.test"
  },
  "parent": {
      "id": "5ddd8e85-ad89-4c96-b901-0b901b29100d",
      "identifier": "POR-1"
  },
  "labels": { "nodes": [{ "name": "Bug" }] },
  "history": {
    "nodes": [
      change('0a6e4f57-3f0c-4a55-9d3e-2b8f1c7a9e01', '2024-05-16T21:52:00.299Z', null, null),
      change('1b7f5068-4011-4b66-8e4f-3c902d8bae12', '2024-05-17T08:00:00.000Z', BACKLOG, TODO),
    ],
    "pageInfo": { "hasNextPage": true, "endCursor": "por-2-history-2" }
  }
};

/** The second page of POR-2's history. */
export const subIssueHistoryRest: Payload = {
  nodes: [change('2c806179-5122-4c77-9f50-4da13e9cbf23', '2024-05-17T09:27:40.077Z', TODO, STARTED)],
  pageInfo: { hasNextPage: false, endCursor: 'por-2-history-end' },
};

/** POR-1: done. */
export const parentIssue: Payload = {
  id: '5ddd8e85-ad89-4c96-b901-0b901b29100d',
  createdAt: '2024-05-16T21:50:00.000Z',
  updatedAt: '2024-05-18T10:00:00.000Z',
  title: 'Parent issue',
  estimate: 5,
  completedAt: '2024-05-18T10:00:00.000Z',
  canceledAt: null,
  identifier: 'POR-1',
  team: TEAM,
  state: DONE,
  assignee: null,
  parent: null,
  labels: { nodes: [] },
  history: {
    nodes: [change('3d91728a-6233-4d88-a061-5eb24fadc034', '2024-05-17T12:00:00.000Z', TODO, STARTED), change('4ea2839b-7344-4e99-b172-6fc35a0bd145', '2024-05-18T10:00:00.000Z', STARTED, DONE)],
    pageInfo: { hasNextPage: false, endCursor: null },
  },
};

/** POR-3: canceled from the backlog. */
export const canceledIssue: Payload = {
  id: '7c3e5f81-9a2b-4c4d-8e6f-a0b1c2d3e4f5',
  createdAt: '2024-05-17T07:00:00.000Z',
  updatedAt: '2024-05-19T16:00:00.000Z',
  title: 'Not worth doing',
  estimate: null,
  completedAt: null,
  canceledAt: '2024-05-19T16:00:00.000Z',
  identifier: 'POR-3',
  team: TEAM,
  state: CANCELED,
  assignee: null,
  parent: null,
  labels: { nodes: [{ name: 'Improvement' }] },
  history: { nodes: [change('5fb394ac-8455-4faa-8283-70d46b1ce256', '2024-05-19T16:00:00.000Z', BACKLOG, CANCELED)], pageInfo: { hasNextPage: false, endCursor: null } },
};

/** The `issues` connection in two pages. */
export const issuePages: Payload[] = [
  { issues: { nodes: [parentIssue, subIssue], pageInfo: { hasNextPage: true, endCursor: 'page-2' } } },
  { issues: { nodes: [canceledIssue], pageInfo: { hasNextPage: false, endCursor: 'page-end' } } },
];

/** Linear's answer to a request over its rate limit. */
export const rateLimited = { errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED' } }] };
/** Linear's answer to a request with a key it does not know. */
export const authenticationFailed = { errors: [{ message: 'Authentication required, not authenticated', extensions: { code: 'AUTHENTICATION_ERROR' } }] };
