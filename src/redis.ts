import { createClient } from 'redis';

const makeClient = (url: string) =>
  createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2_000,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000),
    },
  });

export type RedisClient = ReturnType<typeof makeClient>;

/**
 * Commands fail at once while disconnected (no offline queue), so a Redis outage degrades to the in-memory
 * limiter instead of stalling requests; the client keeps reconnecting in the background.
 */
export function createRedisClient(url: string, onError: (err: Error) => void): RedisClient {
  const client = makeClient(url);
  let lastLogged = 0;
  client.on('error', (err: Error) => {
    // A down Redis emits an error per reconnect attempt; one line every 30 s is enough.
    if (Date.now() - lastLogged > 30_000) {
      lastLogged = Date.now();
      onError(err);
    }
  });
  client.connect().catch(() => {
    /* reported through the 'error' event; reconnection continues */
  });
  return client;
}
