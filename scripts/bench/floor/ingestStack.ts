/**
 * The app-ingest stack floor: the ingest floor's writes for an app's deliveries (floor/ingest.ts: the prepared rows of
 * each body, one transaction with mysql2) behind what any verified JSON webhook must do, on the API's fixed stack:
 * express reading the raw body (express.raw, as the API's ingest does), the HMAC-SHA256 of the body with the app's
 * secret compared in constant time, JSON.parse, and a zod check of the delivery's outline. None of the API's own
 * work: no app looked up, no rate limit, no translation, no writer's reads, no security headers. The benchmark's
 * "API / stack" ratio of the row is thus the price of what the API adds to the work a webhook receiver cannot skip.
 *
 * Environment: PORT, DATABASE_URL, FLOOR_INGEST_APP, FLOOR_INGEST_APP_PATH and FLOOR_INGEST_APP_PROVIDER (as the
 * ingest floor), and FLOOR_INGEST_APP_SECRET, the app's plain secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import express from 'express';
import { createPool } from 'mysql2/promise';
import { z } from 'zod';
import { listen, runFloor } from './listen';
import { loadStatementSets, POOL_SIZE, storeInOneTransaction } from './store';

/** The API's default limit of a delivery's body (INGEST_BODY_LIMIT_KB). */
const BODY_LIMIT = '25600kb';

/** Per provider: where its signature is and how it is written, and the outline of its deliveries. */
const PROVIDERS = {
  jira: {
    signature: (req: express.Request) => /^sha256=([0-9a-f]{64})$/.exec(String(req.headers['x-hub-signature'] ?? ''))?.[1],
    outline: z.looseObject({
      webhookEvent: z.string().min(1),
      timestamp: z.number(),
      issue: z.looseObject({ id: z.string().min(1), fields: z.looseObject({ project: z.looseObject({ key: z.string() }), status: z.looseObject({ name: z.string() }) }) }),
    }),
    event: (d: Record<string, unknown>) => String(d.webhookEvent),
  },
  pagerduty: {
    signature: (req: express.Request) => /^v1=([0-9a-f]{64})$/.exec(String(req.headers['x-pagerduty-signature'] ?? ''))?.[1],
    outline: z.looseObject({
      event: z.looseObject({
        id: z.string().min(1),
        event_type: z.string().min(1),
        occurred_at: z.string(),
        data: z.looseObject({ id: z.string().min(1), title: z.string(), created_at: z.string(), service: z.looseObject({ id: z.string().min(1) }) }),
      }),
    }),
    event: (d: Record<string, unknown>) => String((d.event as Record<string, unknown>).event_type),
  },
} as const;

const isProvider = (name: string | undefined): name is keyof typeof PROVIDERS => name !== undefined && Object.hasOwn(PROVIDERS, name);

async function main(): Promise<void> {
  const uri = process.env.DATABASE_URL;
  const route = process.env.FLOOR_INGEST_APP_PATH;
  const secret = process.env.FLOOR_INGEST_APP_SECRET;
  const providerName = process.env.FLOOR_INGEST_APP_PROVIDER;
  if (!uri || !route || !secret || !isProvider(providerName)) throw new Error('DATABASE_URL, FLOOR_INGEST_APP_PATH, FLOOR_INGEST_APP_SECRET and FLOOR_INGEST_APP_PROVIDER (jira or pagerduty) are required');
  const provider = PROVIDERS[providerName];
  const sets = await loadStatementSets(process.env.FLOOR_INGEST_APP);
  const pool = createPool({ uri, connectionLimit: POOL_SIZE });
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.post(route, express.raw({ type: () => true, limit: BODY_LIMIT }), (req, res, next) => {
    const statements = sets[Number(req.headers['x-bench-body'])];
    const body = req.body as Buffer;
    const given = provider.signature(req);
    if (!statements) return res.status(404).json({ status: 'error', error: { code: 'NOT_FOUND', message: 'no prepared rows for this body' } });
    if (!given || !timingSafeEqual(Buffer.from(given, 'hex'), createHmac('sha256', secret).update(body).digest())) {
      return res.status(401).json({ status: 'error', error: { code: 'UNAUTHENTICATED', message: 'signature mismatch' } });
    }
    const parsed = provider.outline.safeParse(JSON.parse(body.toString('utf8')));
    if (!parsed.success) return res.status(400).json({ status: 'error', error: { code: 'VALIDATION_ERROR', message: parsed.error.issues[0].message } });
    storeInOneTransaction(pool, statements).then(
      () => res.json({ status: 'success', data: { event: provider.event(parsed.data), result: 'applied' } }),
      (err: unknown) => next(err),
    );
  });
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    process.stderr.write(`ingest stack floor: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}\n`);
    res.status(500).json({ status: 'error', error: { code: 'SERVER_ERROR', message: 'Internal error' } });
  });
  listen(http.createServer(app), 'ingest stack floor', { describe: () => `${sets.length} ${providerName} deliveries`, end: () => pool.end() });
}

runFloor('ingest stack floor', main);
