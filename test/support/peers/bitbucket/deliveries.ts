import { createHmac, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { TestApp } from '../../harness';

/** Bitbucket Cloud's deliveries, verbatim (see README.md beside this file for where each came from), by `X-Event-Key`. */
export const BITBUCKET_PAYLOADS = {
  'repo:push': require('./repoPush.json'),
  'repo:updated': require('./repoUpdated.json'),
  'pullrequest:created': require('./pullrequestCreated.json'),
  'pullrequest:updated': require('./pullrequestUpdated.json'),
  'pullrequest:fulfilled': require('./pullrequestFulfilled.json'),
  'pullrequest:rejected': require('./pullrequestRejected.json'),
  'pullrequest:approved': require('./pullrequestApproved.json'),
  'pullrequest:unapproved': require('./pullrequestUnapproved.json'),
  'pullrequest:changes_request_created': require('./pullrequestChangesRequestCreated.json'),
  'pullrequest:comment_created': require('./pullrequestCommentCreated.json'),
} as Record<string, Record<string, any>>;

/** As Bitbucket signs a webhook's body with its secret: `sha256=<hex HMAC-SHA256>`. */
export const bitbucketSignature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export interface BitbucketDelivery {
  event: string;
  payload?: unknown;
  body?: string;
  /** `X-Request-UUID`; a retry or a resend repeats it. */
  id?: string;
  /** Defaults to the body signed with the git app's secret; null sends none. */
  signature?: string | null;
  headers?: Record<string, string>;
}

/** A delivery as Bitbucket Cloud sends it: its User-Agent, JSON, the event key, request and hook ids, the signature. */
export function deliverToBitbucket(t: TestApp, gitAppId: string, secret: string, d: BitbucketDelivery) {
  const body = d.body ?? JSON.stringify(d.payload);
  const signature = d.signature === undefined ? bitbucketSignature(secret, body) : d.signature;
  const req = request(t.runtime.app)
    .post(`/ingest/bitbucket/${gitAppId}`)
    .set('Content-Type', 'application/json')
    .set('User-Agent', 'Bitbucket-Webhooks/2.0')
    .set('X-Event-Key', d.event)
    .set('X-Request-UUID', d.id ?? randomUUID())
    .set('X-Hook-UUID', '{cb4b3d0c-9c5e-4b2d-8f1e-2a6a1d3c9e70}')
    .set('X-Attempt-Number', '1');
  if (signature !== null) req.set('X-Hub-Signature', signature);
  for (const [name, value] of Object.entries(d.headers ?? {})) req.set(name, value);
  return req.send(body);
}
