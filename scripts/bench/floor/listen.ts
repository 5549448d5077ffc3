import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { Floor } from './answer';

/** Listens on PORT (127.0.0.1) and stops cleanly on SIGTERM/SIGINT; shared by every floor server, lists' and ingest's. */
export function listen(server: Server, name: string, floor: Pick<Floor, 'describe' | 'end'>): void {
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

/**
 * Runs a floor server's `main`: in this process, or with FLOOR_WORKERS > 1 in that many worker processes sharing
 * PORT through node:cluster, as the API's WEB_CONCURRENCY does (the benchmark's cluster rows compare the two).
 */
export function runFloor(name: string, main: () => Promise<void>): void {
  const workers = Number(process.env.FLOOR_WORKERS ?? 1);
  if (workers > 1 && cluster.isPrimary) {
    for (let i = 0; i < workers; i++) cluster.fork();
    const stop = () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    cluster.on('exit', (worker, code) => {
      // One worker gone is a broken floor: stop the rest, and say so by the exit code.
      if (code !== 0) stop();
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(code ?? 0);
    });
    return;
  }
  main().catch((err: unknown) => {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
