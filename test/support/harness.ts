import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sequelize } from 'sequelize';
import request from 'supertest';
import { loadConfig, Config } from '../../src/config';
import { createLogger, Logger } from '../../src/logger';
import { createRuntime, Runtime } from '../../src/runtime';
import { migrate } from '../../db/migrator';
import { DemoScale, seedDemo } from '../../db/demo/generator';
import { copyMysqlTemplate, copySqliteTemplate, DemoKey, saveMysqlTemplate, saveSqliteTemplate } from './databaseTemplates';
import { DEMO_END_DAY } from '../../db/demo/fixtures/timeline';
import { day } from '../../src/services/metrics/reading/window';
import { createToken, CreateTokenInput } from '../../src/auth/tokens/apiTokens';
import type { IntegrationProvider } from '../../src/integrations/provider';

export { DEMO } from '../../db/demo/fixtures/ids';
export { DEMO_END_DAY } from '../../db/demo/fixtures/timeline';

/**
 * The servers this run uses, read as the service reads them (an empty variable means unset): MariaDB when
 * DATABASE_URL is set, Redis when REDIS_URL is set.
 */
export const SERVICES = (() => {
  const config = loadConfig();
  return { databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL };
})();

/**
 * A test app on a database of its own: a temporary SQLite file on the embedded default, or, when
 * DATABASE_URL is set (CI's MariaDB run), a fresh database created on that server and dropped at the end.
 * REDIS_URL, when set, is used with a key prefix of its own so test files never share rate-limit counters.
 */
export interface TestApp {
  runtime: Runtime;
  config: Config;
  /** Creates a token (default: ada, unscoped) and returns its plain value. */
  token(input?: Partial<CreateTokenInput>): Promise<string>;
  /** GET with a bearer token. */
  get(pathAndQuery: string, token: string): request.Test;
  /** Serves the app on a free local port, for clients that need a real address; resolves to its origin. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

async function createDatabase(url: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const parsed = new URL(url);
  const name = `${parsed.pathname.slice(1) || 'platform_test'}_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(4).toString('hex')}`;
  parsed.pathname = '/';
  const admin = new Sequelize(parsed.toString(), { dialect: 'mysql', logging: false });
  await admin.query(`CREATE DATABASE \`${name}\``);
  await admin.close();
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  return {
    name,
    url: dbUrl.toString(),
    drop: async () => {
      const again = new Sequelize(parsed.toString(), { dialect: 'mysql', logging: false });
      await again.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await again.close();
    },
  };
}

export interface TestAppOptions {
  logger?: Logger;
  /**
   * The service's "now" (default: the wall clock). Given, the demo data ends on its UTC day, as on a first start
   * that day; without it the demo ends on DEMO_END_DAY, the dates db/demo/fixtures/ names and the hand-worked
   * figures of the tests are for.
   */
  clock?: () => Date;
  /** Default: tiny. */
  scale?: DemoScale;
  /** MySQL runs: the app reaches its database through this port on 127.0.0.1 (a proxy the test can cut). */
  databasePort?: number;
  /** The providers connected to (default: the registry's, src/integrations/registry.ts). */
  integrations?: readonly IntegrationProvider[];
}

export async function startTestApp(env: Record<string, string | undefined> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  let drop = async () => {};
  const overrides: Record<string, string | undefined> = { LOG_LEVEL: 'silent', ...env };
  const demo: DemoKey = { scale: options.scale ?? 'tiny', endDay: options.clock ? day(options.clock()) : DEMO_END_DAY };
  let fromTemplate: boolean;
  let saveTemplate: (sequelize: Sequelize) => Promise<void>;
  if (SERVICES.databaseUrl) {
    const server = SERVICES.databaseUrl;
    const db = await createDatabase(server);
    fromTemplate = await copyMysqlTemplate(server, demo, db.name);
    saveTemplate = () => saveMysqlTemplate(server, demo, db.name);
    const url = new URL(db.url);
    if (options.databasePort) {
      url.hostname = '127.0.0.1';
      url.port = String(options.databasePort);
    }
    overrides.DATABASE_URL = url.toString();
    // Required with MySQL (src/secrets/secretBox.ts); on the embedded default a key file is made beside the database.
    overrides.SECRETS_KEY ??= randomBytes(32).toString('hex');
    drop = db.drop;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-test-'));
    overrides.SQLITE_PATH = path.join(dir, 'test.sqlite');
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
    fromTemplate = copySqliteTemplate(demo, overrides.SQLITE_PATH);
    saveTemplate = (sequelize) => saveSqliteTemplate(demo, sequelize);
  }
  const config = loadConfig({ ...process.env, ...overrides });
  const runtime = createRuntime(config, options.logger ?? createLogger(config.LOG_LEVEL), {
    rateLimitKeyPrefix: `test:${randomBytes(6).toString('hex')}`,
    clock: options.clock,
    integrations: options.integrations,
  });
  // A copy of this run's template is migrated and seeded already: migrate() then finds nothing to do.
  await migrate(runtime.sequelize);
  if (!fromTemplate) {
    await seedDemo(runtime.sequelize, demo);
    await saveTemplate(runtime.sequelize);
  }
  const servers: Server[] = [];
  return {
    runtime,
    config,
    token: async (input = {}) => (await createToken({ user: 'ada@demo.test', ...input })).token,
    get: (pathAndQuery, token) => request(runtime.app).get(pathAndQuery).set('Authorization', `Bearer ${token}`),
    listen: async () => {
      const server = runtime.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(server);
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
      // A test may have closed the database on purpose; the files and databases must go all the same.
      await runtime.close().catch(() => undefined);
      await drop();
    },
  };
}
