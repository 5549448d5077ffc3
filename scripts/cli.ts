/**
 * What the operator CLIs (tokens, gitapps, import) share: argument parsing with usage errors, tables, and opening
 * the server's database (migrated first) without creating an empty one by mistake.
 */
import fs from 'node:fs';
import { parseArgs, ParseArgsConfig } from 'node:util';
import type { Sequelize } from 'sequelize';
import { Config, loadConfig } from '../src/config';
import { DomainError } from '../src/errors';
import { createSequelize, describeDatabase, waitForDatabase } from '../db/connection';
import { initModels } from '../db/models';
import { migrate } from '../db/migrator';
import { createRedisClient, RedisClient } from '../src/redis';
import { shareDataVersions } from '../src/persistence/query/versionBroadcast';

export class UsageError extends Error {}

/** The flags as their options declare them: a string option's value is a string, a boolean's a boolean. */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (e) {
    // node:util reports unknown options, missing values and stray arguments as ERR_PARSE_ARGS_* errors.
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((e as Error).message);
    throw e;
  }
}

export function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return value;
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** The server's database as a CLI holds it, with what tells the service's instances of the CLI's changes. */
export interface ServerDatabase {
  sequelize: Sequelize;
  close(): Promise<void>;
}

/** How long a CLI waits for Redis before writing, so that its changes' data versions reach every instance. */
const REDIS_WAIT_MS = 3_000;

/**
 * The database the server uses, migrated: DATABASE_URL or the embedded SQLite file, which must exist already
 * (opening a missing file would create an empty database and answer from it as if all were well). Undefined,
 * after saying why on stderr, when there is none.
 *
 * A change made here raises its data versions in its transaction and, with REDIS_URL, publishes them on the
 * service's channel before the writer returns, exactly as a change made through the service: a list read on any
 * instance once the command has reported success counts it. Without Redis (or with Redis down) the instances
 * learn of it by their poll, within DATA_VERSIONS_POLL_MS.
 */
export async function openServerDatabase(cli: string, config: Config, quiet: boolean): Promise<ServerDatabase | undefined> {
  const target = { url: config.DATABASE_URL, sqlitePath: config.SQLITE_PATH };
  if (!target.url && !fs.existsSync(target.sqlitePath)) {
    process.stderr.write(
      `${cli}: no database at ${describeDatabase(target)}. Point SQLITE_PATH (or DATABASE_URL) at the server's database, ` +
        'or run "npm start" once to create the embedded one.\n',
    );
    return undefined;
  }
  if (!quiet) process.stdout.write(`Database: ${describeDatabase(target)}\n`);
  const sequelize = createSequelize(target);
  initModels(sequelize);
  await waitForDatabase(sequelize, target, config.DATABASE_START_WAIT_S * 1000);
  await migrate(sequelize);
  const redis = config.REDIS_URL ? await connectRedis(cli, config.REDIS_URL, config.DATA_VERSIONS_POLL_MS) : undefined;
  const versions = shareDataVersions(sequelize, {
    database: target,
    redis,
    pollMs: config.DATA_VERSIONS_POLL_MS,
    onError: (err) =>
      process.stderr.write(
        `${cli}: warning: could not tell the service's instances of this change over Redis (${err instanceof Error ? err.message : String(err)}); ` +
          `they see it within ${config.DATA_VERSIONS_POLL_MS} ms (DATA_VERSIONS_POLL_MS)\n`,
      ),
  });
  return {
    sequelize,
    async close() {
      await versions.stop();
      if (redis?.isReady) await redis.quit().catch(() => redis.destroy());
      else if (redis?.isOpen) redis.destroy();
      await sequelize.close();
    },
  };
}

/** Redis, once it answers (or, after saying so, not: the changes are made all the same, and learnt by the poll). */
async function connectRedis(cli: string, url: string, pollMs: number): Promise<RedisClient> {
  let lastError = '';
  const redis = createRedisClient(url, (err) => (lastError = err.message));
  let timer: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => redis.once('ready', () => resolve(true))),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), REDIS_WAIT_MS))),
  ]);
  clearTimeout(timer);
  if (!ready && !redis.isReady) {
    process.stderr.write(
      `${cli}: warning: Redis did not answer within ${REDIS_WAIT_MS / 1000} s${lastError ? ` (${lastError})` : ''}; ` +
        `the service's instances see this command's changes within ${pollMs} ms (DATA_VERSIONS_POLL_MS) instead of at once\n`,
    );
  }
  return redis;
}

/**
 * The command line as a command, or the exit code when there is nothing to run: 0 after printing the usage
 * (`help`, `--help`), 2 after a usage error with the usage.
 */
export function commandOrExit<C extends { kind: string }>(cli: string, usage: string, parseCommand: (argv: string[]) => C, argv: string[]): Exclude<C, { kind: 'help' }> | number {
  let cmd: C;
  try {
    cmd = parseCommand(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${cli}: ${e.message}\n\n${usage}\n`);
      return 2;
    }
    throw e;
  }
  if (cmd.kind === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return cmd as Exclude<C, { kind: 'help' }>;
}

/**
 * A command-line writer's main (gitapps, webhooks): the command, the server's database, the command run against
 * it; a writer's refusal (DomainError) is its message on stderr and exit code 1.
 */
export async function runWriterCommand<C extends { kind: 'help' } | { kind: string; json: boolean }>(
  cli: string,
  usage: string,
  parseCommand: (argv: string[]) => C,
  argv: string[],
  /** Its exit code when not 0 (a file some of whose lines were refused), or nothing. */
  run: (cmd: Exclude<C, { kind: 'help' }>, config: Config, out: (s: string) => void) => Promise<void | number>,
): Promise<number> {
  const cmd = commandOrExit(cli, usage, parseCommand, argv);
  if (typeof cmd === 'number') return cmd;
  const config = loadConfig();
  const database = await openServerDatabase(cli, config, (cmd as { json: boolean }).json);
  if (!database) return 1;
  try {
    const code = await run(cmd, config, (s) => {
      process.stdout.write(s);
    });
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof DomainError) {
      process.stderr.write(`${cli}: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await database.close();
  }
}

/** Runs a CLI's main: its exit code, and a failure's message without a stack (configuration errors explain themselves). */
export function runCli(cli: string, main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${cli}: failed: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
