import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { TestApp } from '../../harness';

/**
 * PagerDuty's Webhooks v3 deliveries (README.md here): the five signed ones byte for byte, with the signature PagerDuty
 * sent and the subscription secret that made it; the others signed here as PagerDuty documents.
 */
export const PUBLISHED_SECRET = 'HvPtlQNKMPpHSSqJpCdndXfo7HnGXa1pnH6w5axpxLFn9aRBNBGh4e8/HlonK5mz';

const raw = (file: string) => readFileSync(join(__dirname, file));

/** The bytes PagerDuty sent, with its own `X-PagerDuty-Signature`. */
export const signed = {
  triggered: { body: raw('incidentTriggered.json'), signature: 'v1=3e3032b45bbe1801c13f182b0e0a7f4f3f530225cef07e3e90cbc57874d01c49' },
  acknowledged: { body: raw('incidentAcknowledged.json'), signature: 'v1=91f533c0411d09f3e68622e2b57fdb561e7113ce7635318a2bbf5cde45d3d876' },
  resolved: { body: raw('incidentResolved.json'), signature: 'v1=60a745384fb05b03acfc592b157b05e105e498da2f72f53c437c9d7c8d9aa879' },
  annotated: { body: raw('incidentAnnotated.json'), signature: 'v1=7b1cc279d644e35511cfca431696498477e97d46f2403ed46d426435e0efef2b' },
  ping: { body: raw('pageyPing.json'), signature: 'v1=0e83584cbab86f98c51517cf96a70c90e910532d3d2f067d58c753cc8980a05b' },
};

export const payload = (file: string): Record<string, any> => JSON.parse(raw(file).toString('utf8'));

export const pagerdutySignature = (secret: string, body: Buffer | string) => `v1=${createHmac('sha256', secret).update(body).digest('hex')}`;

export interface PagerDutyDelivery {
  body: Buffer | string;
  /** Defaults to the body signed with `secret`; null sends none. */
  signature?: string | null;
  headers?: Record<string, string>;
}

/** A delivery as PagerDuty makes it: JSON, its user agent, `X-Webhook-Id`, the signature header. */
export function deliverToPagerDuty(t: TestApp, appId: string, secret: string, d: PagerDutyDelivery) {
  const signature = d.signature === undefined ? pagerdutySignature(secret, d.body) : d.signature;
  const req = request(t.runtime.app)
    .post(`/ingest/pagerduty/${appId}`)
    .set('Content-Type', 'application/json')
    .set('User-Agent', 'PagerDuty-Webhook/V3.0')
    .set('X-Webhook-Id', randomUUID());
  if (signature !== null) req.set('X-PagerDuty-Signature', signature);
  for (const [name, value] of Object.entries(d.headers ?? {})) req.set(name, value);
  return req.send(typeof d.body === 'string' ? d.body : d.body.toString('utf8'));
}
