import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { TestApp } from '../../harness';

/** Opsgenie's webhook deliveries (README.md here), as Opsgenie's Webhook integration posts them. */
export const payload = (file: string): Record<string, any> => JSON.parse(readFileSync(join(__dirname, file), 'utf8'));

/** The body as sent (Opsgenie writes its nanosecond times as long integers: JSON.parse of them would round them). */
export const rawBody = (file: string) => readFileSync(join(__dirname, file), 'utf8');

export interface OpsgenieDelivery {
  body: string | Record<string, unknown>;
  /** The integration's custom Authorization header; defaults to `Bearer <secret>`, null sends none. */
  authorization?: string | null;
}

export function deliverToOpsgenie(t: TestApp, appId: string, secret: string, d: OpsgenieDelivery) {
  const authorization = d.authorization === undefined ? `Bearer ${secret}` : d.authorization;
  const req = request(t.runtime.app).post(`/ingest/opsgenie/${appId}`).set('Content-Type', 'application/json');
  if (authorization !== null) req.set('Authorization', authorization);
  return req.send(typeof d.body === 'string' ? d.body : JSON.stringify(d.body));
}
