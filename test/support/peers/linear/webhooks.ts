/**
 * Linear's data change webhooks as Linear sent them, copied verbatim (only ids and e-mails may be rewritten) from:
 *
 * - `issueCreated`: Port's Linear integration docs, "Alternative installation via webhook" → "Let's Test It" →
 *   "Webhook event payload" ("an example of the payload structure sent to the webhook URL when a Linear issue is
 *   created"): port-labs/port-docs, docs/build-your-software-catalog/sync-data-to-catalog/project-management/linear/linear.md
 *   at 05c8b654e3f12fa2946a2d68f7b6dee7acebd0f8 (https://docs.port.io/build-your-software-catalog/sync-data-to-catalog/project-management/linear/).
 *   A 2024 delivery: `actor`, `webhookTimestamp` and `webhookId` present.
 * - `kintoneIssueCreated`, `kintoneIssueUpdated`, `kintoneIssueRemoved`: the fixtures of linear-kintone-sync, by the
 *   author of the `linear-webhook` npm package: korosuke613/linear-kintone-sync,
 *   packages/lks-core/src/__tests__/data/createIssue.ts (at 069a287ebca997cd713e608d970072607a259d79),
 *   updateIssue.ts (`updateIssueForLabel`, at 5df08e68f680ea54f34c55571ce347de816d3bac) and removeIssue.ts (at
 *   5df08e68f680ea54f34c55571ce347de816d3bac). One issue created in Backlog, then moved to Todo and assigned
 *   (`updatedFrom.stateId` is the Backlog state's id), and another removed. They were captured in January 2021,
 *   before Linear added `webhookTimestamp` and `actor` to every delivery: `linearDelivery()` below stamps the
 *   dispatch time the way Linear does today, and the tests add an `actor` where an assignment needs one.
 * - `issueDescriptionUpdated`, `commentCreated`: morgs32/linear-hill-charts,
 *   lhc/src/app/api/public/inngest/fixtures/linearIssueCreated.ts (an `update` of the description despite its name)
 *   and linearCommentCreated.ts, at b76f7e7e88b617549ac3435925c7165ded1d2414 (2023 deliveries).
 *
 * Delivery headers and signature, per https://linear.app/developers/webhooks ("Securing webhooks"): `Linear-Delivery`
 * (a UUID per delivery), `Linear-Event` (the type), `Linear-Signature`: the hex HMAC-SHA256 of the raw body with the
 * webhook's signing secret; the body's `webhookTimestamp` (ms) should be within a minute of the receiver's clock.
 */
import { createHmac, randomUUID } from 'node:crypto';

type Payload = Record<string, any>;

export const issueCreated: Payload = {
  "action": "create",
  "actor": {
    "id": "11c5ce7d-229b-4487-b23b-f404e4a8c85d",
    "name": "Mor Paz",
    "type": "user"
  },
  "createdAt": "2024-05-19T17:55:29.277Z",
  "data": {
    "id": "d62a755d-5389-4dbd-98bb-3db03f239d9d",
    "createdAt": "2024-05-19T17:55:29.277Z",
    "updatedAt": "2024-05-19T17:55:29.277Z",
    "number": 5,
    "title": "New issue again",
    "priority": 0,
    "boardOrder": 0,
    "sortOrder": -3975,
    "labelIds": [],
    "teamId": "92d25fa4-fb1c-449f-b314-47f82e8f280d",
    "previousIdentifiers": [],
    "creatorId": "11c5ce7d-229b-4487-b23b-f404e4a8c85d",
    "stateId": "f12cad17-9b8f-470d-b20a-5e17da8e46b9",
    "priorityLabel": "No priority",
    "botActor": null,
    "identifier": "POR-5",
    "url": "https://linear.app/getport/issue/POR-5/new-issue-again",
    "state": {
      "id": "f12cad17-9b8f-470d-b20a-5e17da8e46b9",
      "color": "#e2e2e2",
      "name": "Todo",
      "type": "unstarted"
    },
    "team": {
      "id": "92d25fa4-fb1c-449f-b314-47f82e8f280d",
      "key": "POR",
      "name": "Port"
    },
    "subscriberIds": [
      "11c5ce7d-229b-4487-b23b-f404e4a8c85d"
    ],
    "labels": []
  },
  "url": "https://linear.app/getport/issue/POR-5/new-issue-again",
  "type": "Issue",
  "organizationId": "36968e1b-496c-4610-8c25-641364da172e",
  "webhookTimestamp": 1716141329394,
  "webhookId": "ee1fa20e-6b57-4448-86f7-39d9672ddedd"
};

export const kintoneIssueCreated: Payload = {
  action: "create",
  createdAt: "2021-01-30T11:19:39.427Z",
  data: {
    id: "236e0fe8-xxxx-xxxx-xxxx-b2df06e33810",
    createdAt: "2021-01-30T11:19:39.427Z",
    updatedAt: "2021-01-30T11:19:39.427Z",
    number: 70,
    title: "webhook test",
    priority: 0,
    boardOrder: -86.81,
    previousIdentifiers: [],
    priorityLabel: "No priority",
    teamId: "eeaa0cbd-xxxx-xxxx-xxxx-1c701c3485f1",
    stateId: "c02edc3a-xxxx-xxxx-xxxx-85c349766a13",
    subscriberIds: ["80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39"],
    creatorId: "80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39",
    labelIds: [],
    state: {
      id: "c02edc3a-xxxx-xxxx-xxxx-85c349766a13",
      name: "Backlog",
      color: "#bec2c8",
      type: "backlog",
    },
    team: {
      id: "eeaa0cbd-xxxx-xxxx-xxxx-1c701c3485f1",
      name: "korosuke613",
      key: "KOR",
    },
  },
  url: "https://linear.app/korosuke613/issue/KOR-11/webhook-test",
  type: "Issue",
};

export const kintoneIssueUpdated: Payload = {
  action: "update",
  createdAt: "2021-01-30T11:24:17.747Z",
  data: {
    id: "236e0fe8-xxxx-xxxx-xxxx-b2df06e33810",
    createdAt: "2021-01-30T11:19:39.427Z",
    updatedAt: "2021-01-30T11:24:17.747Z",
    number: 11,
    title: "webhook test",
    priority: 0,
    boardOrder: -86.81,
    previousIdentifiers: [],
    priorityLabel: "No priority",
    teamId: "eeaa0cbd-xxxx-xxxx-xxxx-1c701c3485f1",
    cycleId: "8becebd5-xxxx-xxxx-xxxx-5a4c46206590",
    stateId: "e788ada6-xxxx-xxxx-xxxx-5717c26104ad",
    assigneeId: "80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39",
    subscriberIds: ["80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39"],
    creatorId: "80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39",
    labelIds: [],
    assignee: {
      id: "80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39",
      name: "user@example.com",
    },
    state: {
      id: "e788ada6-xxxx-xxxx-xxxx-5717c26104ad",
      name: "Todo",
      color: "#e2e2e2",
      type: "unstarted",
    },
    team: {
      id: "eeaa0cbd-xxxx-xxxx-xxxx-1c701c3485f1",
      name: "korosuke613",
      key: "KOR",
    },
  },
  updatedFrom: {
    updatedAt: "2021-01-30T11:22:06.587Z",
    archivedAt: null,
    description: null,
    estimate: null,
    startedAt: null,
    completedAt: null,
    canceledAt: null,
    autoClosedAt: null,
    autoArchivedAt: null,
    dueDate: null,
    cycleId: null,
    projectId: null,
    stateId: "c02edc3a-xxxx-xxxx-xxxx-85c349766a13",
    parentId: null,
    subIssueSortOrder: null,
  },
  url: "https://linear.app/korosuke613/issue/KOR-11/webhook-test",
  type: "Issue",
};

export const kintoneIssueRemoved: Payload = {
  action: "remove",
  createdAt: "2021-01-30T11:48:48.707Z",
  data: {
    id: "ac36bcc2-xxxx-xxxx-xxxx-3e13107f89be",
    createdAt: "2021-01-30T11:33:45.487Z",
    updatedAt: "2021-01-30T11:33:45.487Z",
    archivedAt: "2021-01-30T11:48:48.707Z",
    number: 12,
    title: "webhook test 2",
    priority: 0,
    boardOrder: -40.42,
    previousIdentifiers: [],
    priorityLabel: "No priority",
    teamId: "eeaa0cbd-xxxx-xxxx-xxxx-1c701c3485f1",
    stateId: "c02edc3a-xxxx-xxxx-xxxx-85c349766a13",
    subscriberIds: ["80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39"],
    creatorId: "80e102b0-xxxx-xxxx-xxxx-044bcfb4cd39",
    labelIds: [],
    state: {
      id: "c02edc3a-xxxx-xxxx-xxxx-85c349766a13",
      name: "Backlog",
      color: "#bec2c8",
      type: "backlog",
    },
    team: {
      id: "eeaa0cbd-xxxx-xxxx-xxxx-1c701c3485f1",
      name: "korosuke613",
      key: "KOR",
    },
  },
  type: "Issue",
};

export const issueDescriptionUpdated: Payload = {
  action: 'update' as const,
  type: 'Issue' as const,
  createdAt: '2023-07-11T13:36:45.293Z',
  data: {
    id: '7f2cba4d-6244-415c-ac09-63eb071755a8',
    createdAt: '2023-07-11T13:01:40.980Z',
    updatedAt: '2023-07-11T13:36:45.293Z',
    archivedAt: null,
    number: 34,
    title: 'Foobar',
    priority: 0,
    estimate: null,
    boardOrder: 0,
    sortOrder: 20,
    startedAt: null,
    completedAt: null,
    startedTriageAt: null,
    triagedAt: null,
    canceledAt: null,
    autoClosedAt: null,
    autoArchivedAt: null,
    dueDate: null,
    slaStartedAt: null,
    slaBreachesAt: null,
    trashed: null,
    snoozedUntilAt: null,
    teamId: 'df657590-816b-4754-9518-68e6cc61f275',
    cycleId: null,
    projectId: '30c1f0c4-086a-4f38-bd9c-48c63e2be880',
    projectMilestoneId: null,
    previousIdentifiers: [],
    creatorId: '14982762-f00e-4595-8dc5-5a93d8ba4ba2',
    externalUserCreatorId: null,
    assigneeId: null,
    snoozedById: null,
    stateId: '3b2acb0f-0c93-4f09-a534-c3e83e8d9fc7',
    subIssueSortOrder: null,
    priorityLabel: 'No priority',
    subscriberIds: ['14982762-f00e-4595-8dc5-5a93d8ba4ba2'],
    parentId: null,
    labelIds: [],
    project: {
      id: '30c1f0c4-086a-4f38-bd9c-48c63e2be880',
      name: 'Testing',
    },
    state: {
      id: '3b2acb0f-0c93-4f09-a534-c3e83e8d9fc7',
      color: '#bec2c8',
      name: 'Backlog',
      type: 'backlog',
    },
    team: {
      id: 'df657590-816b-4754-9518-68e6cc61f275',
      key: 'LIN',
      name: 'Linear hill charts',
    },
    labels: [],
    description: '',
    descriptionData: '{"type":"doc","content":[{"type":"paragraph"}]}',
  },
  updatedFrom: {
    description: null,
    descriptionData: null,
    updatedAt: '2023-07-11T13:36:45.293Z',
  },
  url: 'https://linear.app/linear-hill-charts/issue/LIN-34/foobar',
  organizationId: 'c8986123-11f1-4eef-8227-55102f7eac46',
  webhookTimestamp: 1689082605387,
};

export const commentCreated: Payload = {
  action: 'create' as const,
  type: 'Comment' as const,
  createdAt: '2023-06-19T23:49:08.407Z',
  data: {
    id: '66b59ec2-931e-49b6-9a10-4efeee1603ec',
    createdAt: '2023-06-19T23:49:08.407Z',
    updatedAt: '2023-06-19T23:49:08.407Z',
    body: 'This is a comment created',
    issueId: '6a17c5cc-5188-4487-ab56-44626a9b2daf',
    userId: '14982762-f00e-4595-8dc5-5a93d8ba4ba2',
    reactionData: [],
    issue: {
      id: '6a17c5cc-5188-4487-ab56-44626a9b2daf',
      title: 'Save comments!',
    },
    user: {
      id: '14982762-f00e-4595-8dc5-5a93d8ba4ba2',
      name: 'Morgan',
    },
  },
  url: 'https://linear.app/linear-hill-charts/issue/LIN-28#comment-66b59ec2',
  organizationId: 'c8986123-11f1-4eef-8227-55102f7eac46',
  webhookTimestamp: 1687218548502,
};

/** `Linear-Signature`: the hex HMAC-SHA256 of the raw body with the signing secret, as Linear documents it. */
export const linearSignature = (secret: string, body: string | Buffer) => createHmac('sha256', secret).update(body).digest('hex');

export interface LinearDelivery {
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A delivery as Linear sends it: the payload with `webhookTimestamp` set to the dispatch time (when `sentAt` is
 * given; kept otherwise), its raw JSON body signed with `secret`, and Linear's headers.
 */
export function linearDelivery(payload: Payload, secret: string, options: { sentAt?: Date; id?: string } = {}): LinearDelivery {
  const stamped = options.sentAt ? { ...payload, webhookTimestamp: options.sentAt.getTime() } : payload;
  const body = Buffer.from(JSON.stringify(stamped));
  return {
    body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Linear-Webhook',
      'linear-delivery': options.id ?? randomUUID(),
      'linear-event': String(payload.type),
      'linear-signature': linearSignature(secret, body),
    },
  };
}
