/**
 * Request bodies for the tracker-ingest row of `npm run bench`: Jira Cloud's admin webhook deliveries, made from
 * the deliveries Jira sent that the tests keep (test/support/peers/jira/, see its README for where each came from):
 * `jira:issue_created` and `jira:issue_updated` with a status changelog item (To Do → In Progress). Only ids, keys,
 * times and the project change. All of it happens before the load.
 *
 * Every body is new: a new issue (created) or a status change of an issue created earlier (a new changelog id),
 * about half each, and every delivery has its own X-Atlassian-Webhook-Identifier, so the service's redelivery
 * check never skips one. Each is signed as Jira signs an admin webhook with a secret.
 */
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const FIXTURES = path.resolve(__dirname, '../../../test/support/peers/jira');
const template = (file: string): Record<string, any> => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as Record<string, any>;

export type JiraDeliveryKind = 'created' | 'updated';

export interface JiraDelivery {
  kind: JiraDeliveryKind;
  /** X-Atlassian-Webhook-Identifier. */
  id: string;
  issueId: string;
  body: Buffer;
  headers: Record<string, string>;
}

/** As Atlassian signs an admin webhook's body with its secret (developer.atlassian.com/cloud/jira/platform/webhooks). */
export const jiraSignature = (secret: string, body: Buffer | string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Jira's own time format: `2019-01-30T15:51:33.199+0000`. */
const jiraTime = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');

export interface DeliveryOptions {
  /**
   * An update changes an issue created at least this many deliveries before, so with fewer concurrent senders its
   * creation has been stored when the update arrives (the floor's prepared UPDATE needs the row).
   */
  lag: number;
  /** When the first delivery happened; each next one a second later. */
  startMs: number;
  /** The first issue's id; the others follow. */
  firstIssueId?: number;
}

/** `count` deliveries: creations, and from the lag on every other one a status change of the oldest issue not yet changed. */
export function jiraDeliveries(count: number, secret: string, opts: DeliveryOptions): JiraDelivery[] {
  const created = template('issueCreated.json');
  const changed = template('issueStatusChanged.json');
  const project: Record<string, unknown> = created.issue.fields.project;
  const waiting: { issueId: string; key: string; createdMs: number }[] = [];
  let nextIssue = opts.firstIssueId ?? 100_001;
  const out: JiraDelivery[] = [];
  for (let i = 0; i < count; i++) {
    const at = opts.startMs + i * 1000;
    let payload: Record<string, any>;
    let issueId: string;
    if (i % 2 === 1 && waiting.length > opts.lag) {
      const issue = waiting.shift()!;
      issueId = issue.issueId;
      payload = structuredClone(changed);
      Object.assign(payload.issue, { id: issueId, key: issue.key, self: payload.issue.self.replace(/\/\d+$/, `/${issueId}`) });
      Object.assign(payload.issue.fields, { project, created: jiraTime(issue.createdMs), updated: jiraTime(at) });
      payload.changelog.id = String(900_000 + i);
    } else {
      issueId = String(nextIssue++);
      const key = `${String(project.key)}-${issueId}`;
      payload = structuredClone(created);
      Object.assign(payload.issue, { id: issueId, key, self: payload.issue.self.replace(/\/\d+$/, `/${issueId}`) });
      Object.assign(payload.issue.fields, { created: jiraTime(at), updated: jiraTime(at) });
      payload.changelog.id = String(900_000 + i);
      waiting.push({ issueId, key, createdMs: at });
    }
    // Jira sends milliseconds since the epoch (the fixtures' logger rewrote it as a date string).
    payload.timestamp = at;
    const body = Buffer.from(JSON.stringify(payload));
    const id = randomUUID();
    out.push({
      kind: payload.webhookEvent === 'jira:issue_created' ? 'created' : 'updated',
      id,
      issueId,
      body,
      headers: {
        'content-type': 'application/json; charset=UTF-8',
        'user-agent': 'Atlassian Webhook HTTP Client',
        'x-atlassian-webhook-identifier': id,
        'x-hub-signature': jiraSignature(secret, body),
      },
    });
  }
  return out;
}
