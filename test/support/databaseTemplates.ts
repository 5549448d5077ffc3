import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createConnection, Connection, RowDataPacket } from 'mysql2/promise';
import type { Sequelize } from 'sequelize';
import type { DemoScale } from '../../db/demo/generator';

/**
 * Every test app starts from the demo data, migrated and seeded: 1.1 s to 1.6 s a start, a few hundred starts a run.
 * The first app of a run to need a given demo (scale and end day) builds it as before and leaves a copy, its
 * template; every later one starts from a copy of that: the file on SQLite, each table's definition and rows on
 * MariaDB (one round trip, about 0.5 s). A template lasts one jest run (globalSetup names the run in
 * PLATFORM_TEST_RUN, globalTeardown removes them), so a run always starts from its own migrations and seed.
 */
const RUN_VARIABLE = 'PLATFORM_TEST_RUN';

/** Which demo a test app starts from, as seedDemo takes it. */
export interface DemoKey {
  scale: DemoScale;
  endDay: string;
}

const runId = () => process.env[RUN_VARIABLE];
const keyName = (key: DemoKey) => `${key.scale}-${key.endDay}`;

/** globalSetup: names this run; its templates are made on first use. */
export function beginTemplateRun(id: string): void {
  process.env[RUN_VARIABLE] = id;
}

// --- SQLite: a file per template ---

const sqliteFolder = (run: string) => path.join(os.tmpdir(), `platform-test-templates-${run}`);

/** Copies the demo's template to `file`; false when this run has none yet (or runs without templates). */
export function copySqliteTemplate(key: DemoKey, file: string): boolean {
  const run = runId();
  if (!run) return false;
  const template = path.join(sqliteFolder(run), `${keyName(key)}.sqlite`);
  if (!fs.existsSync(template)) return false;
  fs.copyFileSync(template, file);
  return true;
}

/** Keeps a just-seeded database as the demo's template. `VACUUM INTO` writes a consistent copy of the open file. */
export async function saveSqliteTemplate(key: DemoKey, sequelize: Sequelize): Promise<void> {
  const run = runId();
  if (!run) return;
  const folder = sqliteFolder(run);
  fs.mkdirSync(folder, { recursive: true });
  const template = path.join(folder, `${keyName(key)}.sqlite`);
  const partial = `${template}.${process.pid}.partial`;
  fs.rmSync(partial, { force: true });
  await sequelize.query(`VACUUM INTO '${partial.replace(/'/g, "''")}'`);
  // A rename is atomic: another worker copies the whole template or finds none.
  fs.renameSync(partial, template);
}

// --- MariaDB: a database per template ---

/** The server of DATABASE_URL, with the statements of a copy sent in one round trip. */
const serverConnection = (databaseUrl: string): Promise<Connection> => {
  const server = new URL(databaseUrl);
  server.pathname = '/';
  return createConnection({ uri: server.toString(), multipleStatements: true });
};

const templatePrefix = (databaseUrl: string, run: string) => `${new URL(databaseUrl).pathname.slice(1) || 'platform_test'}_tpl_${run}`;

const templateDatabase = (databaseUrl: string, run: string, key: DemoKey) =>
  `${templatePrefix(databaseUrl, run)}_${createHash('sha1').update(keyName(key)).digest('hex').slice(0, 8)}`;

/** Templates are made and looked for under one lock, so a copy never reads one half made. */
async function underLock<T>(connection: Connection, name: string, work: () => Promise<T>): Promise<T> {
  await connection.query('SELECT GET_LOCK(?, 120)', [name]);
  try {
    return await work();
  } finally {
    await connection.query('SELECT RELEASE_LOCK(?)', [name]);
  }
}

async function databaseExists(connection: Connection, name: string): Promise<boolean> {
  const [rows] = await connection.query<RowDataPacket[]>('SELECT 1 FROM information_schema.schemata WHERE schema_name = ?', [name]);
  return rows.length > 0;
}

/** Every table of `source` made again in `target` (which exists) with its rows. */
async function copyDatabase(connection: Connection, source: string, target: string): Promise<void> {
  const [tables] = await connection.query<RowDataPacket[]>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
    [source],
  );
  const names = tables.map((t) => String(t.name));
  const definitions = await Promise.all(
    names.map(async (name) => {
      const [rows] = await connection.query<RowDataPacket[]>(`SHOW CREATE TABLE \`${source}\`.\`${name}\``);
      return String(rows[0]['Create Table']);
    }),
  );
  // Foreign keys are checked by neither the definitions (made in any order) nor the rows (copied as they were).
  const script = [
    `USE \`${target}\``,
    'SET FOREIGN_KEY_CHECKS = 0',
    ...definitions,
    ...names.map((name) => `INSERT INTO \`${name}\` SELECT * FROM \`${source}\`.\`${name}\``),
    'SET FOREIGN_KEY_CHECKS = 1',
  ];
  await connection.query(script.join(';\n'));
}

/** Copies the demo's template into the empty database `target`; false when this run has none yet. */
export async function copyMysqlTemplate(databaseUrl: string, key: DemoKey, target: string): Promise<boolean> {
  const run = runId();
  if (!run) return false;
  const template = templateDatabase(databaseUrl, run, key);
  const connection = await serverConnection(databaseUrl);
  try {
    if (!(await underLock(connection, template, () => databaseExists(connection, template)))) return false;
    await copyDatabase(connection, template, target);
    return true;
  } finally {
    await connection.end();
  }
}

/** Keeps a just-seeded database as the demo's template, unless another worker made it first. */
export async function saveMysqlTemplate(databaseUrl: string, key: DemoKey, source: string): Promise<void> {
  const run = runId();
  if (!run) return;
  const template = templateDatabase(databaseUrl, run, key);
  const connection = await serverConnection(databaseUrl);
  try {
    await underLock(connection, template, async () => {
      if (await databaseExists(connection, template)) return;
      await connection.query(`CREATE DATABASE \`${template}\``);
      await copyDatabase(connection, source, template);
    });
  } finally {
    await connection.end();
  }
}

/** globalTeardown: this run's templates, on either backend. */
export async function removeTemplates(databaseUrl: string | undefined): Promise<void> {
  const run = runId();
  if (!run) return;
  fs.rmSync(sqliteFolder(run), { recursive: true, force: true });
  if (!databaseUrl) return;
  const connection = await serverConnection(databaseUrl);
  try {
    const [rows] = await connection.query<RowDataPacket[]>('SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ?', [
      `${templatePrefix(databaseUrl, run).replace(/_/g, '\\_')}\\_%`,
    ]);
    for (const row of rows) await connection.query(`DROP DATABASE IF EXISTS \`${String(row.name)}\``);
  } finally {
    await connection.end();
  }
}
