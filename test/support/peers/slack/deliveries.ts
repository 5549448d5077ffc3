import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { TestApp } from '../../harness';

/** Slack's Events API bodies (README.md here), as stored: the bytes Slack sent. */
export const rawBody = (file: string) => readFileSync(join(__dirname, file), 'utf8');
export const payload = (file: string): Record<string, any> => JSON.parse(rawBody(file));

/** Slack's signature: `v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{body}` keyed with the signing secret. */
export const slackSignature = (secret: string, timestamp: string, body: string) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

export interface SlackDelivery {
  body: string | Record<string, unknown>;
  /** Unix seconds; defaults to now. */
  timestamp?: string;
  /** Defaults to the body signed with the secret; null sends none. */
  signature?: string | null;
  headers?: Record<string, string>;
}

/** A request as Slack's Events API makes it. */
export function deliverToSlack(t: TestApp, appId: string, secret: string, d: SlackDelivery) {
  const body = typeof d.body === 'string' ? d.body : JSON.stringify(d.body);
  const timestamp = d.timestamp ?? String(Math.floor(Date.now() / 1000));
  const signature = d.signature === undefined ? slackSignature(secret, timestamp, body) : d.signature;
  const req = request(t.runtime.app)
    .post(`/ingest/slack/${appId}`)
    .set('Content-Type', 'application/json')
    .set('User-Agent', 'Slackbot 1.0 (+https://api.slack.com/robots)')
    .set('X-Slack-Request-Timestamp', timestamp);
  if (signature !== null) req.set('X-Slack-Signature', signature);
  for (const [name, value] of Object.entries(d.headers ?? {})) req.set(name, value);
  return req.send(body);
}
