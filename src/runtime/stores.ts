import type { Sequelize } from 'sequelize';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createSequelize, pingReplicas } from '../../db/connection';
import { initModels } from '../../db/models';
import { createRedisClient, RedisClient } from '../redis';
import { shareDataVersions } from '../persistence/query/versionBroadcast';
import type { DataVersions } from '../persistence/query/dataVersions';
import { ListingService } from '../persistence/query/listing';
import { CountCache } from '../persistence/query/countCache';
import { ChangeRunner } from '../persistence/changes/change';

export interface Connections {
  sequelize: Sequelize;
  redis?: RedisClient;
}

/** The database (its models bound to it) and, with REDIS_URL, Redis. */
export function connect(config: Config, logger: Logger): Connections {
  // With DATABASE_READ_URLS, SELECTs outside transactions read from the replicas (see db/connection.ts).
  const sequelize = createSequelize({
    url: config.DATABASE_URL,
    readUrls: config.DATABASE_READ_URLS,
    sqlitePath: config.SQLITE_PATH,
  });
  initModels(sequelize);
  const redis = config.REDIS_URL
    ? createRedisClient(config.REDIS_URL, (err) => logger.warn({ err: err.message }, 'redis unavailable; rate limits fall back to memory'))
    : undefined;
  return { sequelize, redis };
}

export interface Data {
  dataVersions: DataVersions;
  listing: ListingService;
  changes: ChangeRunner;
}

/** How the data is read (lists, with their counts cached until a change) and changed. */
export function openData(config: Config, logger: Logger, { sequelize, redis }: Connections): Data {
  // Other instances' changes arrive by Redis pub/sub when it is set, else by polling (src/persistence/query/dataVersions.ts).
  const dataVersions = shareDataVersions(sequelize, {
    database: { url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH },
    redis,
    pollMs: config.DATA_VERSIONS_POLL_MS,
    onError: (err) => logger.warn({ err }, 'could not learn data versions; lists read them from the database meanwhile'),
  });
  const listing = new ListingService(dataVersions, new CountCache(config.COUNT_CACHE_TTL_MS));
  return { dataVersions, listing, changes: ChangeRunner.for(sequelize) };
}

/** /readyz's checks: the process (down while draining), the database, each replica, Redis. */
export function readiness(config: Config, { sequelize, redis }: Connections, lifecycle: { draining: boolean }) {
  return async (): Promise<Record<string, 'ok' | 'down'>> => {
    const checks: Record<string, 'ok' | 'down'> = {};
    if (lifecycle.draining) checks.process = 'down';
    // authenticate() is a SELECT: without useMaster it would ask a replica when there are any. Every replica
    // must answer too (each serves a share of the reads; Sequelize does not fail over to another one).
    const [database, replicas] = await Promise.all([
      sequelize.authenticate({ useMaster: true }).then(() => 'ok' as const, () => 'down' as const),
      config.DATABASE_READ_URLS.length ? pingReplicas(config.DATABASE_READ_URLS) : undefined,
    ]);
    checks.database = database;
    if (replicas) checks.database_replicas = replicas.every(Boolean) ? 'ok' : 'down';
    if (redis) checks.redis = await redis.ping().then(() => 'ok' as const, () => 'down' as const);
    return checks;
  };
}

/** Closes Redis, then the database pool. */
export async function disconnect({ sequelize, redis }: Connections): Promise<void> {
  // QUIT waits for a connection that may never come back (Redis down): only a ready client says goodbye.
  if (redis?.isReady) await redis.quit().catch(() => redis.destroy());
  else if (redis?.isOpen) redis.destroy();
  await sequelize.close();
}
