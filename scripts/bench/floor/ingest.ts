/**
 * The ingest floor: what storing an OTLP request costs with nothing but node:http and a mysql2 pool. Per
 * `POST /otlp/v1/metrics` or `/otlp/v1/logs` it reads the body, decodes nothing, and inserts the rows the
 * service would write for that body, worked out before the load (scripts/bench/otlp/rows.ts): the batch row,
 * the points or events, the account ids, the rollup additions, as multi-row INSERTs in one transaction (a
 * deadlock victim runs again, as the service's changes do). Which body a request carries is named by the
 * benchmark's `x-bench-body` header. The answer is the empty (full success) protobuf response.
 *
 * Environment: PORT, DATABASE_URL, FLOOR_INGEST_METRICS and/or FLOOR_INGEST_LOGS (files of one JSON array of
 * SQL statements per line, one line per body).
 */
import fs from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import { createPool, Pool } from 'mysql2/promise';

// As many connections as the API's Sequelize pool (floor/answer.ts).
const POOL_SIZE = 20;
const ATTEMPTS = 5;

async function load(file: string | undefined): Promise<string[][]> {
  if (!file) return [];
  const sets: string[][] = [];
  for await (const line of readline.createInterface({ input: fs.createReadStream(file) })) if (line) sets.push(JSON.parse(line) as string[]);
  return sets;
}

async function store(pool: Pool, statements: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const conn = await pool.getConnection();
    try {
      await conn.query('START TRANSACTION');
      for (const sql of statements) await conn.query(sql);
      await conn.query('COMMIT');
      return;
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => undefined);
      if ((err as { errno?: number }).errno !== 1213 || attempt >= ATTEMPTS) throw err;
    } finally {
      conn.release();
    }
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
  }
}

async function main(): Promise<void> {
  const uri = process.env.DATABASE_URL;
  if (!uri) throw new Error('DATABASE_URL is required');
  const sets: Record<string, string[][]> = {
    '/otlp/v1/metrics': await load(process.env.FLOOR_INGEST_METRICS),
    '/otlp/v1/logs': await load(process.env.FLOOR_INGEST_LOGS),
  };
  const pool = createPool({ uri, connectionLimit: POOL_SIZE });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const done = (status: number, text = '') => {
      res.writeHead(status, status === 200 ? { 'content-type': 'application/x-protobuf', 'content-length': 0 } : { 'content-type': 'text/plain' });
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
      store(pool, statements).then(
        () => done(200),
        (err: unknown) => {
          process.stderr.write(`ingest floor: ${err instanceof Error ? err.message.slice(0, 300) : String(err)}\n`);
          done(500);
        },
      );
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(`ingest floor listening (${sets['/otlp/v1/metrics'].length} metrics bodies, ${sets['/otlp/v1/logs'].length} logs bodies)\n`);
  });
  const stop = () => {
    server.close(() => void pool.end().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest floor: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
