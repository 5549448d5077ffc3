import path from 'node:path';
import fs from 'node:fs';
import { AccessDeniedError, ConnectionError, Sequelize, Options, FindOptions, ConnectionOptions, Transaction } from 'sequelize';
import type { Database as SqliteConnection } from 'sqlite3';
import type { Connection as MysqlConnection } from 'mysql2';
import { createConnection } from 'mysql2/promise';
import { DomainError } from './errors';

export interface DatabaseOptions {
  /** mysql://user:pass@host:port/db; absent means the embedded SQLite file. */
  url?: string;
  /**
   * mysql:// URLs of read replicas of `url` (only with `url`). SELECTs outside a transaction go to them, unless
   * a query says `useMaster: true`; writes, transactions and everything else go to `url`.
   */
  readUrls?: string[];
  sqlitePath: string;
  logging?: (sql: string) => void;
}

export function isEmbedded(opts: DatabaseOptions): boolean {
  return !opts.url;
}

/** The database without credentials, for messages: `SQLite /path/file.sqlite` or `MySQL host:port/db`. */
export function describeDatabase(opts: DatabaseOptions): string {
  if (!opts.url) return `SQLite ${path.resolve(opts.sqlitePath)}`;
  try {
    const u = new URL(opts.url);
    return `MySQL ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'MySQL (DATABASE_URL)';
  }
}

/** The database did not answer at start: what was tried, what it said, and what to check. Exit code 1. */
export class DatabaseUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * Waits until the database answers, trying each second for up to `waitMs` (a database starting beside the
 * service), then fails saying what to check. A refusal no wait can cure (a wrong password, a database that does
 * not exist) fails at once.
 */
export async function waitForDatabase(sequelize: Sequelize, opts: DatabaseOptions, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await sequelize.authenticate({ useMaster: true, logging: false });
      return;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const code = err instanceof ConnectionError && 'code' in err.parent ? err.parent.code : undefined;
      if (err instanceof AccessDeniedError || code === 'ER_DBACCESS_DENIED_ERROR') {
        throw new DatabaseUnreachableError(`${describeDatabase(opts)} refused the credentials: ${reason}. Check the user and password in DATABASE_URL.`);
      }
      if (code === 'ER_BAD_DB_ERROR') {
        throw new DatabaseUnreachableError(`${describeDatabase(opts)} does not exist: ${reason}. Create it (CREATE DATABASE …) or fix the name in DATABASE_URL.`);
      }
      if (Date.now() + 1_000 > deadline) {
        throw new DatabaseUnreachableError(
          `Could not reach ${describeDatabase(opts)} within ${Math.round(waitMs / 1000)} s (DATABASE_START_WAIT_S): ${reason}. ` +
            (opts.url ? 'Check DATABASE_URL and that the database is running and reachable from here.' : 'Check SQLITE_PATH: its directory must be writable.'),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** The migrator's ledger table (SequelizeStorage in db/migrator.ts). */
const MIGRATIONS_TABLE = 'schema_migrations';

/**
 * A statement that carries a NUL character in its text. SQLite reads a statement only up to a NUL, so such a
 * statement would run cut short ("unrecognized token", or worse, a shorter statement that parses). Values the
 * query builder binds are unaffected; those it writes into the text (a `where`) are refused before they run, on
 * both databases alike. Every surface refuses NUL at its edge; this is the net below them.
 */
export class NulInStatementError extends DomainError {
  constructor() {
    super('invalid', 'A value holds a NUL character (\\u0000), which no text here may contain');
    this.name = 'NulInStatementError';
  }
}

function refuseNulStatements(sequelize: Sequelize): Sequelize {
  const query = sequelize.query.bind(sequelize) as (sql: unknown, options?: unknown) => Promise<unknown>;
  const guarded = (sql: unknown, options?: unknown) => {
    const text = typeof sql === 'string' ? sql : (sql as { query?: unknown } | null)?.query;
    if (typeof text === 'string' && text.includes('\u0000')) return Promise.reject(new NulInStatementError());
    return query(sql, options);
  };
  sequelize.query = guarded as Sequelize['query'];
  return sequelize;
}

/** One Sequelize instance per process; the same models and queries run on MySQL/MariaDB and SQLite. */
export function createSequelize(opts: DatabaseOptions): Sequelize {
  return refuseNulStatements(createConnectionPool(opts));
}

/** How long a write waits for another connection's transaction on the SQLite file before it fails. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

function createConnectionPool(opts: DatabaseOptions): Sequelize {
  const common: Options = {
    logging: opts.logging ?? false,
    define: { timestamps: false, underscored: true, freezeTableName: true },
  };
  if (opts.url) {
    const dialectOptions = { dateStrings: false, supportBigNumbers: true, connectTimeout: 5_000 };
    const readUrls = opts.readUrls ?? [];
    const sequelize = new Sequelize(opts.url, {
      ...common,
      dialect: 'mysql',
      timezone: '+00:00',
      // With replicas this is the size of each pool: the write pool (primary) and the read pool (replicas).
      pool: { max: 20, min: 0, idle: 10_000, acquire: 10_000 },
      dialectOptions: { ...dialectOptions },
      // Sequelize's own replication: `write: {}` is the primary from the URL above; new read connections go
      // round-robin over the replicas.
      ...(readUrls.length
        ? { replication: { write: {}, read: readUrls.map((u) => replicaConnection(u, dialectOptions)) } }
        : {}),
    });
    sequelize.addHook('afterConnect', sortWholeRows);
    if (readUrls.length) {
      // The migrator's ledger (db/migrator.ts) is read with a SELECT; from a lagging replica a migration the
      // primary already has would look pending and run again. Its reads go to the primary like its writes.
      sequelize.addHook('beforeFind', function pinMigrationLedger(this: unknown, options: FindOptions) {
        const model = this as { getTableName?: () => unknown };
        if (model.getTableName?.() === MIGRATIONS_TABLE) options.useMaster = true;
      });
    }
    return sequelize;
  }
  if (opts.sqlitePath !== ':memory:') fs.mkdirSync(path.dirname(opts.sqlitePath), { recursive: true });
  // SQLite serialises writers; one connection avoids SQLITE_BUSY between pooled connections.
  const sequelize = new Sequelize({
    ...common,
    dialect: 'sqlite',
    storage: opts.sqlitePath,
    pool: { max: 1, min: 0, idle: 60_000 },
    // Sequelize opens a connection per transaction, and another process (a CLI, `npm run worker`) may write the
    // file too. A transaction takes the write lock when it begins, so two writers queue (for up to the busy
    // timeout) instead of both reading, then one failing at once with SQLITE_BUSY when it comes to write.
    transactionType: Transaction.TYPES.IMMEDIATE,
  });
  sequelize.addHook('afterConnect', (connection) => {
    // The hook's typing is dialect-neutral (unknown); on this dialect it is node-sqlite3's Database.
    (connection as SqliteConnection).configure('busyTimeout', SQLITE_BUSY_TIMEOUT_MS);
  });
  return sequelize;
}

/**
 * MariaDB sorts whole rows up to `max_length_for_sort_data` bytes (1024 by default) and, past it, sorts row ids and
 * reads every row again by its key. A lead-time band's values carry their environment (up to 200 characters, 4 bytes
 * each): at the default, a year's median re-read 5,000 rows by key (16 ms against 6 ms). MySQL 8.0.20 and later ignore
 * the variable; a server without it keeps its own way, so a refusal here is no failure to connect.
 */
function sortWholeRows(connection: unknown): Promise<void> {
  return new Promise((resolve) => (connection as MysqlConnection).query('SET SESSION max_length_for_sort_data = 4096', () => resolve()));
}

/**
 * One replica's connection settings, all taken from its own URL (user, password, host, port, database; query
 * parameters become driver options as on DATABASE_URL). Sequelize fills only what is missing from the primary's,
 * so an absent password or port is set here explicitly rather than inherited.
 */
function replicaConnection(url: string, dialectOptions: Record<string, unknown>): ConnectionOptions & { dialectOptions: object } {
  const u = new URL(url);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 3306,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    ...(u.pathname.length > 1 ? { database: decodeURIComponent(u.pathname.slice(1)) } : {}),
    dialectOptions: { ...dialectOptions, ...Object.fromEntries(u.searchParams) },
  };
}

/**
 * Whether each replica accepts a connection and answers `SELECT 1` within the timeout. A fresh connection per
 * replica, outside the read pool: the pool spreads connections over the replicas, so one pooled query would
 * say nothing about the others.
 */
export async function pingReplicas(urls: string[], timeoutMs = 5_000): Promise<boolean[]> {
  return Promise.all(
    urls.map(async (uri) => {
      const conn = await createConnection({ uri, connectTimeout: timeoutMs }).catch(() => undefined);
      if (!conn) return false;
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('replica ping timed out')), timeoutMs);
        });
        await Promise.race([conn.query('SELECT 1'), timeout]);
        return true;
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
        conn.destroy();
      }
    }),
  );
}

/**
 * Runs `work` with every query of `sequelize` on the primary, reads included: a migration reads what is left to fill
 * or rebuilds a rollup from the stored rows, which must be what its own writes left. A replica is behind (and in the
 * tests, a database of its own, migrated already), so a migration that read it failed or filled the wrong rows.
 */
export async function onPrimary<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  // Without replicas every connection is the primary's already; `useMaster` changes nothing there.
  const manager = sequelize.connectionManager;
  const getConnection = manager.getConnection;
  manager.getConnection = (options) => getConnection.call(manager, { ...options, useMaster: true });
  try {
    return await work();
  } finally {
    manager.getConnection = getConnection;
  }
}
