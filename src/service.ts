import cluster from 'node:cluster';
import { Config, loadConfig, requireServingConfig, StartupError } from './config';
import { createLogger, Logger } from './logger';
import { runPrimary } from './cluster';
import { createRuntime, shutdown } from './runtime';
import { FIRST_MIGRATION, migrate } from '../db/migrator';
import { DatabaseUnreachableError, waitForDatabase } from '../db/connection';
import { seedDemo } from '../db/demo/generator';
import { day } from './services/metrics/reading/window';
import { Organization } from '../db/models';
import { createToken } from './auth/tokens/apiTokens';
import { shareWithPrimary, startMetricsServer } from './observability/metricsServer';

/** `npm start -- --no-demo-data` says what DEMO_DATA=false says; nothing else is taken from the command line. */
function environmentWithFlags(argv: string[]): NodeJS.ProcessEnv {
  const unknown = argv.filter((arg) => arg !== '--no-demo-data');
  if (unknown.length) throw new StartupError(`Unknown argument ${unknown.map((a) => `'${a}'`).join(', ')}: the service takes --no-demo-data, and its configuration from the environment (docs/operating.md#configuration)`);
  return argv.length ? { ...process.env, DEMO_DATA: 'false' } : process.env;
}

async function main(options: { beforeExit?: () => Promise<void> }): Promise<void> {
  const config = loadConfig(environmentWithFlags(process.argv.slice(2)));
  requireServingConfig(config);
  const logger = createLogger(config.LOG_LEVEL);
  // With WEB_CONCURRENCY workers, the primary migrates once and supervises; each worker serves as a process alone would.
  if (config.WEB_CONCURRENCY > 1 && cluster.isPrimary) return runPrimary(config, logger);
  await serve(config, logger, { migrate: cluster.isPrimary, beforeExit: options.beforeExit });
}

async function serve(config: Config, logger: Logger, options: { migrate: boolean; beforeExit?: () => Promise<void> }): Promise<void> {
  const embedded = !config.DATABASE_URL;
  const runtime = createRuntime(config, logger);
  await waitForDatabase(runtime.sequelize, { url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH }, config.DATABASE_START_WAIT_S * 1000);

  const applied = options.migrate ? await migrate(runtime.sequelize) : [];
  if (applied.length) logger.info({ migrations: applied }, 'database migrated');

  // A new embedded database (its first migration applied just now) gets the demo, ending today (UTC), and a token
  // to try it, unless DEMO_DATA=false. Seeded data stays as it is on later starts: it ages until the database is
  // made anew. Any other database, or one that holds an organization, is never seeded.
  let demoToken: string | undefined;
  const newDatabase = applied.includes(FIRST_MIGRATION);
  if (embedded && newDatabase && config.DEMO_DATA && (await Organization.count()) === 0) {
    const endDay = day(runtime.clock());
    logger.info({ path: config.SQLITE_PATH, endDay }, 'new embedded database: seeding demo data');
    const counts = await seedDemo(runtime.sequelize, { scale: 'demo', endDay, log: (msg) => logger.info(msg) });
    logger.info({ counts }, 'demo data seeded');
    demoToken = (await createToken({ user: 'ada@demo.test', name: 'demo token (first start)' })).token;
  }
  const empty = !demoToken && cluster.isPrimary && (await Organization.count()) === 0;

  const server = runtime.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.PORT, config.HOST);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port, database: embedded ? 'sqlite' : 'mysql', redis: Boolean(config.REDIS_URL) }, 'platform API listening');
  runtime.webhooks.start();
  runtime.retention.start();
  runtime.aiPulls.start();
  runtime.recomputations.start();
  runtime.historyCatchUp.start();
  if (runtime.metrics && config.METRICS_PORT) {
    // In a cluster the primary serves every worker's figures together (src/cluster.ts).
    const { registry } = runtime.metrics;
    if (cluster.isWorker) shareWithPrimary(registry);
    else await startMetricsServer(config.METRICS_PORT, config.HOST, () => registry.metrics(), logger);
  }
  if (demoToken) {
    // Printed once, on stdout, outside the JSON log: the token is never logged.
    process.stdout.write(
      `\nDemo token for ada@demo.test (shown once; create more with "npm run tokens -- create --user ada@demo.test"):\n\n` +
        `  ${demoToken}\n\nTry it:\n\n  curl -s -H "Authorization: Bearer ${demoToken}" "http://localhost:${port}/v1/users?per_page=5"\n\n` +
        `The settings page (own tokens; webhooks, git apps, SCIM and telemetry for admins) is http://localhost:${port}/settings/;\n` +
        'sign in with a one-time link: npm run tokens -- login-link --user ada@demo.test\n\n',
    );
  }

  if (empty) {
    // On stdout, outside the JSON log, as the demo token is: the one step a new company takes next.
    process.stdout.write(
      '\nNo organization yet. Make yours, with its first admin:\n\n' +
        '  npm run orgs -- create --name "Your company" --admin you@company.com\n\n' +
        'then follow docs/getting-started.md (sign in, connect your identity provider, GitHub, your tracker, ...).\n\n',
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown(server, runtime, { drainMs: signal === 'SIGTERM' ? config.SHUTDOWN_DRAIN_MS : 0, timeoutMs: config.SHUTDOWN_TIMEOUT_MS })
      .then(() => options.beforeExit?.().catch((err: unknown) => logger.warn({ err }, 'could not send the last traces')))
      .then(() => process.exit(0))
      .catch((err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * The service as a process (started by src/main.ts): `beforeExit` runs before a clean exit (tracing's last spans).
 * A misconfiguration or an unreachable database says what to set or check, printed without a stack; exit code 1.
 */
export async function run(options: { beforeExit?: () => Promise<void> } = {}): Promise<void> {
  await main(options).catch((err: unknown) => {
    const explained = err instanceof StartupError || err instanceof DatabaseUnreachableError;
    process.stderr.write(`${explained ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
