import type { Sequelize } from 'sequelize';
import { DatabaseOptions, describeDatabase } from '../../../db/connection';
import type { RedisClient } from '../../redis';
import { DataVersions, VersionBroadcast } from './dataVersions';

/**
 * How a process tells and learns data versions: every process that writes a database (an API instance, a CLI,
 * `npm run worker`) publishes on that database's channel, so a change it made is known to every instance before it
 * reports success; without Redis the instances' poll of the table is the only way, within `pollMs`.
 */
export function shareDataVersions(
  sequelize: Sequelize,
  options: { database: DatabaseOptions; redis?: RedisClient; pollMs: number; onError(err: unknown): void },
): DataVersions {
  const versions = DataVersions.for(sequelize);
  versions.configure({
    broadcast: options.redis ? new RedisVersionBroadcast(options.redis, `data-versions:${describeDatabase(options.database)}`) : undefined,
    pollMs: options.pollMs,
    onError: options.onError,
  });
  return versions;
}

/**
 * Data versions over Redis pub/sub, on a channel of the database's own (instances of two databases may share one
 * Redis, as the tests do). Publishing uses the service's client; listening needs a connection of its own, opened
 * on the first subscribe, which node-redis subscribes again after every reconnect before it reports `ready`.
 */
export class RedisVersionBroadcast implements VersionBroadcast {
  private subscriber?: RedisClient;

  constructor(
    private readonly redis: RedisClient,
    private readonly channel: string,
  ) {}

  async publish(versions: Record<string, number>): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(versions));
  }

  async subscribe(handlers: { message(versions: Record<string, number>): void; connected(): void; lost(): void }): Promise<void> {
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    let subscribed = false;
    // The service's own client reports Redis being down; this one only says messages may have been missed.
    subscriber.on('error', () => handlers.lost());
    subscriber.on('reconnecting', () => handlers.lost());
    subscriber.on('end', () => handlers.lost());
    subscriber.on('ready', () => {
      if (subscribed) handlers.connected();
    });
    await subscriber.connect();
    await subscriber.subscribe(this.channel, (message) => {
      const versions = parseVersions(message);
      if (versions) handlers.message(versions);
    });
    subscribed = true;
    handlers.connected();
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    // As the service's own client: only a ready connection says goodbye, a down one is dropped.
    if (subscriber?.isReady) await subscriber.quit().catch(() => subscriber.destroy());
    else if (subscriber?.isOpen) subscriber.destroy();
  }
}

/** Only what a writer publishes is taken: `{ "<table>": <version>, … }`. */
function parseVersions(message: string): Record<string, number> | undefined {
  try {
    const value: unknown = JSON.parse(message);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const entries = Object.entries(value).filter((entry): entry is [string, number] => Number.isSafeInteger(entry[1]));
    return Object.fromEntries(entries);
  } catch {
    return undefined;
  }
}
