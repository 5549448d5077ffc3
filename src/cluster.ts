import cluster, { Worker } from 'node:cluster';
import type { Config } from './config';
import type { Logger } from './logger';
import { createSequelize, waitForDatabase } from '../db/connection';
import { initModels } from '../db/models';
import { migrate } from '../db/migrator';
import { clusterGatherer, startMetricsServer } from './observability/metricsServer';

/** A worker that dies sooner than this after starting is not replaced again: it would only die again. */
const MIN_LIFETIME_MS = 10_000;

/**
 * `WEB_CONCURRENCY` workers serving one port (node:cluster spreads the connections). The primary migrates the
 * database once before forking, replaces a worker that dies, and on SIGTERM or SIGINT passes the signal on: each
 * worker drains and finishes what is in flight as a single process does, and the primary exits when all have,
 * with 0 only if every worker stopped cleanly.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  const sequelize = createSequelize({ url: config.DATABASE_URL, readUrls: [], sqlitePath: config.SQLITE_PATH });
  initModels(sequelize);
  await waitForDatabase(sequelize, { url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH }, config.DATABASE_START_WAIT_S * 1000);
  const applied = await migrate(sequelize);
  await sequelize.close();
  if (applied.length) logger.info({ migrations: applied }, 'database migrated');

  let stopping = false;
  let failed = false;
  const startedAt = new Map<Worker, number>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());
  for (let i = 0; i < config.WEB_CONCURRENCY; i++) fork();
  logger.info({ workers: config.WEB_CONCURRENCY }, 'cluster started');
  if (config.METRICS_PORT) await startMetricsServer(config.METRICS_PORT, config.HOST, clusterGatherer(), logger);

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (code !== 0) failed = true;
    if (stopping) {
      if (startedAt.size === 0) process.exit(failed ? 1 : 0);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited');
    if (lived >= MIN_LIFETIME_MS) fork();
    else if (startedAt.size === 0) process.exit(1);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down the cluster');
    for (const worker of startedAt.keys()) worker.process.kill(signal);
    // Past every worker's own drain and timeout, whatever still runs is stopped.
    setTimeout(() => {
      for (const worker of startedAt.keys()) worker.process.kill('SIGKILL');
    }, config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_TIMEOUT_MS + 5_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
