/**
 * The service floor: the stack floor plus what every request of the API must do before its list, done the
 * shortest way the stack's libraries allow: the bearer token looked up by its SHA-256 in `api_tokens` behind a
 * bounded cache (five seconds, as the API keeps a principal), then one consume on each of two Redis limiters
 * (the minute's and the hour's, rate-limiter-flexible over the `redis` client, as the API charges a user). The
 * benchmark's "API / service" ratio is thus the price of the API's own work alone: access, ORM, envelopes, ETag,
 * compression and the rest; "service / stack" the price of authenticating and limiting.
 *
 * Environment: PORT, REDIS_URL, and those of `openFloor` (answer.ts).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { RequestHandler, Response } from 'express';
import { createPool, Pool, RowDataPacket } from 'mysql2/promise';
import { createClient } from 'redis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { openFloor } from './answer';
import { stackApp } from './stackApp';
import { listen, runFloor } from './listen';

const CACHE_TTL_MS = 5_000;
const CACHE_ENTRIES = 1_000;
// As many as the benchmark lets the API's user make: the limit is charged, never reached.
const POINTS = 100_000_000;

type Holder = { userId: string; expiresAt: number | null };

/** Who holds a token, by its hash, as read in the last five seconds; at most CACHE_ENTRIES, oldest out first. */
function tokenHolders(pool: Pool) {
  const cache = new Map<string, { holder: Holder | null; until: number }>();
  return async (hash: string, now: number): Promise<Holder | null> => {
    const cached = cache.get(hash);
    if (cached && cached.until > now) return cached.holder;
    const [rows] = await pool.query<RowDataPacket[]>(
      'SELECT user_id, expires_at FROM api_tokens WHERE token_hash = ? AND is_active = 1 AND revoked_at IS NULL',
      [hash],
    );
    const holder = rows[0] ? { userId: rows[0].user_id as string, expiresAt: rows[0].expires_at ? Date.parse(`${rows[0].expires_at as string}Z`) : null } : null;
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(hash, { holder, until: now + CACHE_TTL_MS });
    return holder;
  };
}

function refuse(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ status: 'error', error: { code, message } });
}

async function main(): Promise<void> {
  const floor = await openFloor();
  const pool = createPool({ uri: process.env.DATABASE_URL, connectionLimit: 2, dateStrings: true });
  const redis = createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', disableOfflineQueue: true });
  await redis.connect();
  const limiters = [
    { name: 'minute', duration: 60 },
    { name: 'hour', duration: 3600 },
  ].map(({ name, duration }) => new RateLimiterRedis({ storeClient: redis, useRedisPackage: true, points: POINTS, duration, keyPrefix: `floor:${name}` }));
  const holderOf = tokenHolders(pool);
  const guard: RequestHandler = (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const now = Date.now();
    holderOf(createHash('sha256').update(token, 'utf8').digest('hex'), now)
      .then(async (holder) => {
        if (!token || !holder || (holder.expiresAt !== null && holder.expiresAt <= now)) return refuse(res, 401, 'UNAUTHORIZED', 'Invalid API token');
        const charged = await Promise.all(limiters.map((l) => l.consume(`user:${holder.userId}`)));
        const tightest = charged.reduce((a, b) => (b.remainingPoints < a.remainingPoints ? b : a));
        res.setHeader('X-RateLimit-Limit', String(POINTS));
        res.setHeader('X-RateLimit-Remaining', String(tightest.remainingPoints));
        res.setHeader('X-RateLimit-Reset', String(Math.ceil((now + tightest.msBeforeNext) / 1000)));
        next();
      })
      .catch((err: unknown) => {
        if (err instanceof RateLimiterRes) return refuse(res, 429, 'RATE_LIMITED', 'Rate limit exceeded');
        next(err);
      });
  };
  listen(http.createServer(stackApp(floor, guard)), 'service floor', {
    describe: floor.describe,
    end: async () => {
      await Promise.all([floor.end(), pool.end(), redis.quit()]);
    },
  });
}

runFloor('service floor', main);
