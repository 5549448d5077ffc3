/**
 * npm run worker
 *
 * Sends outgoing webhooks (docs/webhooks.md), deletes rows past their retention (docs/operating.md), pulls the AI vendors'
 * apps daily (docs/ai-vendors.md#the-daily-pull) and catches up each connection's history daily (docs/history.md) without serving HTTP: the same delivery worker, pruner and pull schedule
 * every API process runs,
 * for operators who want more senders, or senders apart from the API. Any number may run against MySQL/MariaDB
 * (they lease endpoints with FOR UPDATE SKIP LOCKED); on the embedded SQLite database one process should send,
 * and the API already does. SIGTERM or SIGINT: the attempts in flight finish and the endpoints are given back.
 */
import { loadConfig, requireServingConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { providerCatalog } from '../src/integrations/catalog';
import { createDeliveryWorker, createHistoryCatchUp, createPruner, createRecomputations, createVendorPullSchedule } from '../src/runtime/background';
import { SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { ChangeRunner } from '../src/persistence/changes/change';
import { databasePools, ServiceMetrics } from '../src/observability/serviceMetrics';
import { startMetricsServer } from '../src/observability/metricsServer';
import { openServerDatabase, runCli } from './cli';

async function main(): Promise<number> {
  const config = loadConfig();
  requireServingConfig(config);
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openServerDatabase('worker', config, true);
  if (!database) return 1;
  const { sequelize } = database;
  // With METRICS_PORT, its own figures (webhook attempts, the due queue, the pool, Node's) on that port.
  const metrics = config.METRICS_PORT
    ? new ServiceMetrics({ dueWebhookDeliveries: () => worker.status().due, databasePools: () => databasePools(sequelize.connectionManager) })
    : undefined;
  const secrets = new SecretBox(() => secretsKeyFor(config));
  const worker = createDeliveryWorker(config, logger, ChangeRunner.for(sequelize), secrets, metrics);
  worker.start();
  if (metrics && config.METRICS_PORT) await startMetricsServer(config.METRICS_PORT, config.HOST, () => metrics.registry.metrics(), logger);
  const pruner = createPruner(config, logger, sequelize);
  pruner.start();
  const aiPulls = createVendorPullSchedule(config, logger, ChangeRunner.for(sequelize), secrets, providerCatalog());
  aiPulls.start();
  const historyCatchUp = createHistoryCatchUp(config, logger, ChangeRunner.for(sequelize), secrets, providerCatalog());
  historyCatchUp.start();
  const recomputations = createRecomputations(logger, ChangeRunner.for(sequelize));
  recomputations.start();
  logger.info({ database: config.DATABASE_URL ? 'mysql' : 'sqlite' }, 'webhook worker started');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  logger.info('webhook worker stopping');
  await Promise.all([worker.stop(), pruner.stop(), aiPulls.stop(), historyCatchUp.stop(), recomputations.stop()]);
  await ChangeRunner.for(sequelize).close();
  await database.close();
  return 0;
}

runCli('worker', main);
