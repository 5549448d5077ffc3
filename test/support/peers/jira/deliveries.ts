import { createHmac, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { TestApp } from '../../harness';
import { copy } from '../ingest';

/** Jira Cloud's deliveries, verbatim (see README.md beside this file for where each came from). */
export const issueCreated: Record<string, any> = require('./issueCreated.json');
export const issueStatusChanged: Record<string, any> = require('./issueStatusChanged.json');
export const issueAssigned: Record<string, any> = require('./issueAssigned.json');
export const commentCreated: Record<string, any> = require('./commentCreated.json');

/** As Atlassian signs an admin webhook's body with its secret. */
export const jiraSignature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export interface JiraDelivery {
  payload?: unknown;
  body?: string;
  /** `X-Atlassian-Webhook-Identifier`; a retry of a delivery repeats it. */
  id?: string;
  /** Defaults to the body signed with the app's secret; null sends none. */
  signature?: string | null;
  headers?: Record<string, string>;
}

/** A delivery as Jira Cloud sends it (its User-Agent, JSON, the identifier and the signature). */
export function deliverToJira(t: TestApp, appId: string, secret: string, d: JiraDelivery) {
  const body = d.body ?? JSON.stringify(d.payload);
  const signature = d.signature === undefined ? jiraSignature(secret, body) : d.signature;
  const req = request(t.runtime.app)
    .post(`/ingest/jira/${appId}`)
    .set('Content-Type', 'application/json; charset=UTF-8')
    .set('User-Agent', 'Atlassian Webhook HTTP Client')
    .set('X-Atlassian-Webhook-Identifier', d.id ?? randomUUID());
  if (signature !== null) req.set('X-Hub-Signature', signature);
  for (const [name, value] of Object.entries(d.headers ?? {})) req.set(name, value);
  return req.send(body);
}

/**
 * The issue of issueStatusChanged.json (To Do → In Progress on 2019-01-30) moved on to Done an hour later: the
 * status, its category, `updated`, `resolutiondate` and a changelog of its own are what change.
 */
export function issueDone(): Record<string, any> {
  const payload = copy(issueStatusChanged);
  const fields = payload.issue.fields;
  fields.status = { ...fields.status, name: 'Done', id: '10259', statusCategory: { ...fields.status.statusCategory, id: 3, key: 'done', colorName: 'green', name: 'Done' } };
  fields.updated = '2019-01-30T16:51:33.199+0300';
  fields.resolutiondate = '2019-01-30T16:51:33.199+0300';
  payload.changelog = { id: '34950', items: [{ ...payload.changelog.items[0], from: '10258', fromString: 'In Progress', to: '10259', toString: 'Done' }] };
  return payload;
}

/** Jira's deletion of an issue: the issue as it was, `webhookEvent` `jira:issue_deleted`, the time in milliseconds. */
export function issueDeleted(of: Record<string, any>, at: Date): Record<string, any> {
  const payload = copy(of);
  payload.webhookEvent = 'jira:issue_deleted';
  payload.issue_event_type_name = 'issue_deleted';
  payload.timestamp = at.getTime();
  delete payload.changelog;
  return payload;
}
