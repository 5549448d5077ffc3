/**
 * npm run worker
 *
 * Sends outgoing webhooks (DESIGN §12) without serving HTTP: the same delivery worker every API process runs,
 * for operators who want more senders, or senders apart from the API. Any number may run against MySQL/MariaDB
 * (they lease endpoints with FOR UPDATE SKIP LOCKED); on the embedded SQLite database one process should send,
 * and the API already does. SIGTERM or SIGINT: the attempts in flight finish and the endpoints are given back.
 */
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { createDeliveryWorker } from '../src/runtime';
import { SecretBox, secretsKeyFor } from '../src/secrets/secretBox';
import { ChangeRunner } from '../src/services/changes/change';
import { openServerDatabase, runCli } from './cli';

async function main(): Promise<number> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const sequelize = await openServerDatabase('worker', config, true);
  if (!sequelize) return 1;
  const worker = createDeliveryWorker(config, logger, new ChangeRunner(sequelize), new SecretBox(() => secretsKeyFor(config)));
  worker.start();
  logger.info({ database: config.DATABASE_URL ? 'mysql' : 'sqlite' }, 'webhook worker started');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  logger.info('webhook worker stopping');
  await worker.stop();
  await sequelize.close();
  return 0;
}

runCli('worker', main);
