import path from 'node:path';
import fs from 'node:fs';
import { Sequelize, Options } from 'sequelize';

export interface DatabaseOptions {
  /** mysql://user:pass@host:port/db; absent means the embedded SQLite file. */
  url?: string;
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

/** One Sequelize instance per process; the same models and queries run on MySQL/MariaDB and SQLite. */
export function createSequelize(opts: DatabaseOptions): Sequelize {
  const common: Options = {
    logging: opts.logging ?? false,
    define: { timestamps: false, underscored: true, freezeTableName: true },
  };
  if (opts.url) {
    return new Sequelize(opts.url, {
      ...common,
      dialect: 'mysql',
      timezone: '+00:00',
      pool: { max: 20, min: 0, idle: 10_000, acquire: 10_000 },
      dialectOptions: { dateStrings: false, supportBigNumbers: true, connectTimeout: 5_000 },
    });
  }
  if (opts.sqlitePath !== ':memory:') fs.mkdirSync(path.dirname(opts.sqlitePath), { recursive: true });
  // SQLite serialises writers; one connection avoids SQLITE_BUSY between pooled connections.
  return new Sequelize({
    ...common,
    dialect: 'sqlite',
    storage: opts.sqlitePath,
    pool: { max: 1, min: 0, idle: 60_000 },
  });
}
