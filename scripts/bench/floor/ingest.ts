/**
 * The ingest floor: what storing a delivery costs with nothing but node:http and a mysql2 pool. Per
 * `POST /otlp/v1/metrics` or `/otlp/v1/logs` it reads the body, decodes nothing, and inserts the rows the
 * service would write for that body, worked out before the load (scripts/bench/otlp/rows.ts): the batch row,
 * the points or events, the account ids, the rollup additions, as multi-row INSERTs in one transaction (a
 * deadlock victim runs again, as the service's changes do). Per `POST /ingest/{provider}/{app_id}` likewise the
 * rows of an app's delivery (scripts/bench/jira/rows.ts: the delivery, the task, its status changes;
 * scripts/bench/pagerduty/source.ts: the delivery, the incident, its outbox event); no signature is checked and no
 * JSON read. Which body a request carries is named by the benchmark's `x-bench-body` header. The answer is the
 * empty (full success) protobuf response, or for an app an empty 200.
 *
 * Environment: PORT, DATABASE_URL, FLOOR_INGEST_METRICS and/or FLOOR_INGEST_LOGS and/or FLOOR_INGEST_APP with
 * FLOOR_INGEST_APP_PATH (files of one JSON array of SQL statements per line, one line per body; the app's path).
 */
import http from 'node:http';
import { createPool } from 'mysql2/promise';
import { listen, runFloor } from './listen';
import { loadStatementSets as load, POOL_SIZE, storeInOneTransaction } from './store';

async function main(): Promise<void> {
  const uri = process.env.DATABASE_URL;
  if (!uri) throw new Error('DATABASE_URL is required');
  const sets: Record<string, string[][]> = {
    '/otlp/v1/metrics': await load(process.env.FLOOR_INGEST_METRICS),
    '/otlp/v1/logs': await load(process.env.FLOOR_INGEST_LOGS),
  };
  const appPath = process.env.FLOOR_INGEST_APP_PATH;
  if (appPath) sets[appPath] = await load(process.env.FLOOR_INGEST_APP);
  const pool = createPool({ uri, connectionLimit: POOL_SIZE });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const done = (status: number, text = '') => {
      res.writeHead(status, status === 200 && path.startsWith('/otlp/') ? { 'content-type': 'application/x-protobuf', 'content-length': 0 } : { 'content-type': 'text/plain' });
      res.end(text);
    };
    if (path === '/healthz') return done(200);
    const statements = sets[path]?.[Number(req.headers['x-bench-body'])];
    if (req.method !== 'POST' || !statements) {
      req.resume();
      return done(404, `no prepared rows for ${req.method} ${path} body ${String(req.headers['x-bench-body'])}\n`);
    }
    // The body is read to its end, as the API must read it, then dropped.
    req.on('data', () => undefined);
    req.on('end', () => {
      storeInOneTransaction(pool, statements).then(
        () => done(200),
        (err: unknown) => {
          process.stderr.write(`ingest floor: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}\n`);
          done(500);
        },
      );
    });
  });
  const deliveries = appPath ? sets[appPath].length : 0;
  listen(server, 'ingest floor', {
    describe: () => `${sets['/otlp/v1/metrics'].length} metrics bodies, ${sets['/otlp/v1/logs'].length} logs bodies, ${deliveries} deliveries to ${appPath ?? 'no app'}`,
    end: () => pool.end(),
  });
}

runFloor('ingest floor', main);
