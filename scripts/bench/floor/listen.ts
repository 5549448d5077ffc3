import type { Server } from 'node:http';
import type { Floor } from './answer';

/** Listens on PORT (127.0.0.1) and stops cleanly on SIGTERM/SIGINT; shared by both floor servers. */
export function listen(server: Server, name: string, floor: Floor): void {
  // Long keep-alive: autocannon's connections stay open for the whole run, as they do against the API.
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : '?';
    process.stdout.write(`${name} listening on ${port} (${floor.describe()})\n`);
  });
  const stop = () => {
    server.close(() => void floor.end().finally(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
