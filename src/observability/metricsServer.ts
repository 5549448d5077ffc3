import http from 'node:http';
import cluster from 'node:cluster';
import { AggregatorRegistry, Registry } from 'prom-client';
import type { Logger } from '../logger';

/**
 * Prometheus' scrape endpoint, `GET /metrics` on METRICS_PORT: a listener of its own, never the public port, with
 * no token (keep the port to the private network). `gather` answers the text format.
 */
export async function startMetricsServer(port: number, host: string, gather: () => Promise<string>, logger: Logger): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Prometheus scrapes GET /metrics here\n');
      return;
    }
    gather().then(
      (text) => res.writeHead(200, { 'Content-Type': Registry.PROMETHEUS_CONTENT_TYPE }).end(text),
      (err: unknown) => {
        logger.warn({ err }, 'could not gather metrics');
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics unavailable; try again\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.unref();
  return server;
}

/** In a cluster's worker: its registry answers the primary's requests, which gathers every worker's figures. */
export function shareWithPrimary(registry: Registry): void {
  if (!cluster.isWorker) return;
  // Constructing one is what makes a worker listen for the primary's requests (prom-client's cluster module).
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/** In a cluster's primary: every worker's figures, summed (or as each metric's aggregator says). */
export function clusterGatherer(): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  return () => aggregator.clusterMetrics();
}
