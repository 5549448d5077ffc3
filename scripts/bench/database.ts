/**
 * The benchmark's database: checked, seeded when empty, never altered otherwise (but for its tokens, and the
 * telemetry the ingest rows write and delete again: otlp/ingest.ts). Plain mysql2 so that what the benchmark
 * reads about the database does not depend on the code under test.
 */
import { Connection, createConnection, RowDataPacket } from 'mysql2/promise';
import { Sequelize } from 'sequelize';
import { createMigrator } from '../../db/migrator';
import { DEMO_END_DAY } from '../../db/demo/fixtures/timeline';
import { run } from './processes';

export const LARGE_USERS = 100_000;
export const CALLER_EMAIL = 'ada@demo.test';
/** The burst rows' member: a collaborator of the caller's organization in the demo data. */
export const MEMBER_EMAIL = 'linus@demo.test';

export class RefusalError extends Error {}

/** `MySQL host:port/db` for messages: never the password. */
export function describe(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 3306}${u.pathname}`;
}

export function requireDatabaseUrl(url: string | undefined): string {
  if (!url || !/^mysql:\/\/[^/]+\/[^/?]+/.test(url)) {
    throw new RefusalError(
      'DATABASE_URL must name the MariaDB database to benchmark, e.g.\n' +
        '  DATABASE_URL=mysql://root@127.0.0.1:3306/platform_large npm run bench\n' +
        'An empty database is filled with the large demo data first (about half an hour on 2 CPUs); one that holds it already is reused.',
    );
  }
  return url;
}

export async function connect(url: string): Promise<Connection> {
  try {
    return await createConnection({ uri: url, connectTimeout: 5_000 });
  } catch (e) {
    const err = e as { code?: string; message: string };
    if (err.code === 'ER_BAD_DB_ERROR') {
      const name = new URL(url).pathname.slice(1);
      throw new RefusalError(`database ${describe(url)} does not exist; create it (mysql -uroot -e 'CREATE DATABASE ${name}') and run again`);
    }
    throw new RefusalError(`cannot connect to ${describe(url)}: ${err.message}`);
  }
}

export async function scalar<T>(db: Connection, sql: string, args: unknown[] = []): Promise<T | undefined> {
  const [rows] = await db.query<RowDataPacket[]>(sql, args);
  return rows[0] ? (Object.values(rows[0])[0] as T) : undefined;
}

async function userCount(db: Connection): Promise<number> {
  try {
    return Number(await scalar(db, 'SELECT COUNT(*) FROM users'));
  } catch (e) {
    if ((e as { code?: string }).code === 'ER_NO_SUCH_TABLE') return 0;
    throw e;
  }
}

/**
 * Empty: seed the large data with the project's own CLI. Large already: reuse it. Anything else is somebody's
 * data of another size, which a benchmark must neither mix with nor measure as if it were the large data, unless
 * asked to (`anySize`: a smoke run of the benchmark itself).
 */
export async function ensureLargeData(db: Connection, url: string, log: (s: string) => void, anySize = false): Promise<void> {
  let users = await userCount(db);
  if (users > 0 && users < LARGE_USERS && anySize) {
    log(`${describe(url)} holds ${users.toLocaleString('en-US')} users, not the large data: using it as it is (--any-size, a smoke run)`);
  } else if (users === 0) {
    // Ending on the day its dates are written for: the OTLP benchmark's rows, timed now, must lie in later months.
    log(`${describe(url)} has no users: seeding the large demo data (npm run seed -- --scale large --end-day ${DEMO_END_DAY}, about half an hour on 2 CPUs)`);
    await run('npm', ['run', 'seed', '--', '--scale', 'large', '--end-day', DEMO_END_DAY], { env: { DATABASE_URL: url } });
    users = await userCount(db);
  } else if (users >= LARGE_USERS) {
    log(`${describe(url)} already holds the large demo data (${users.toLocaleString('en-US')} users): reusing it`);
  }
  if (users < LARGE_USERS && !anySize) {
    throw new RefusalError(
      `${describe(url)} has ${users.toLocaleString('en-US')} user(s), not the large demo data (≥ ${LARGE_USERS.toLocaleString('en-US')}). ` +
        `Point DATABASE_URL at an empty database (it will be seeded) or at one seeded with "npm run seed -- --scale large --end-day ${DEMO_END_DAY}" ` +
        '(or pass --any-size for a smoke run on smaller data).',
    );
  }
  // The seed writes dashboard views last: none means a seed still running or one that died half-way.
  if (!Number(await scalar(db, 'SELECT COUNT(*) FROM dashboard_views'))) {
    throw new RefusalError(`${describe(url)} has users but no dashboard views: its seed is still running or did not finish`);
  }
  if (!(await scalar(db, 'SELECT id FROM users WHERE email = ?', [CALLER_EMAIL]))) {
    throw new RefusalError(`${describe(url)} has no user ${CALLER_EMAIL}: it does not hold the demo data`);
  }
}

/**
 * The API migrates its database when it starts. Against data someone else uses that is a schema change (and,
 * for some migrations, minutes of writes), so the benchmark does it only when asked.
 */
export async function pendingMigrations(url: string): Promise<string[]> {
  const sequelize = new Sequelize(url, { dialect: 'mysql', logging: false });
  try {
    return (await createMigrator(sequelize).pending()).map((m) => m.name);
  } finally {
    await sequelize.close();
  }
}

/** Ids to put in the API's path templates: the largest scopes the caller can reach, so deep pages are deep. */
export interface Fixtures {
  user_id: string;
  organization_id: string;
  team_id: string;
  id: string;
  repo: string;
  /** The repository's pull request with the most review activity (its activity list). */
  pr?: string;
  /** The last day with deployments (YYYY-MM-DD): metrics windows end there, so they hold data. */
  last_day: string;
}

export async function findFixtures(db: Connection): Promise<Fixtures> {
  const user = (await scalar<string>(db, 'SELECT id FROM users WHERE email = ?', [CALLER_EMAIL]))!;
  const org = await scalar<string>(
    db,
    "SELECT organization_id FROM organization_memberships WHERE user_id = ? ORDER BY role = 'admin' DESC, organization_id LIMIT 1",
    [user],
  );
  if (!org) throw new RefusalError(`${CALLER_EMAIL} belongs to no organization`);
  const team = await scalar<string>(
    db,
    'SELECT t.id FROM teams t JOIN team_memberships tm ON tm.team_id = t.id WHERE t.organization_id = ? GROUP BY t.id ORDER BY COUNT(*) DESC, t.id LIMIT 1',
    [org],
  );
  // Counted on the (scope, created_at, id) indexes, without reading commit rows.
  const gitApp = await scalar<string>(
    db,
    'SELECT g.id FROM git_apps g WHERE g.organization_id = ? ORDER BY (SELECT COUNT(*) FROM commits c WHERE c.git_app_id = g.id) DESC, g.id LIMIT 1',
    [org],
  );
  const repo = await scalar<string>(
    db,
    'SELECT r.id FROM repositories r WHERE r.git_app_id = ? ORDER BY (SELECT COUNT(*) FROM commits c WHERE c.repository_id = r.id) DESC, r.id LIMIT 1',
    [gitApp],
  );
  if (!team || !gitApp || !repo) throw new RefusalError(`organization ${org} has no team, git app or repository`);
  const pr = await scalar<string>(db, 'SELECT pull_request_id FROM pull_request_activities WHERE repository_id = ? GROUP BY pull_request_id ORDER BY COUNT(*) DESC, pull_request_id LIMIT 1', [repo]);
  const lastDay = await scalar<string>(db, "SELECT DATE_FORMAT(MAX(finished_at), '%Y-%m-%d') FROM deployments WHERE organization_id = ?", [org]);
  return { user_id: user, organization_id: org, team_id: team, id: gitApp, repo, pr: pr ?? undefined, last_day: lastDay ?? new Date().toISOString().slice(0, 10) };
}

/** The burst rows measure what a member may do: refused up front, not after an hour of rows, when the data has no such member. */
export async function requireCollaborator(db: Connection, email: string, organizationId: string): Promise<void> {
  const role = await scalar<string>(
    db,
    "SELECT m.role FROM organization_memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.organization_id = ? AND m.status = 'active'",
    [email, organizationId],
  );
  if (role !== 'collaborator') {
    throw new RefusalError(`${email} is ${role ? `a ${role}` : 'no active member'} of ${organizationId}, not a collaborator: the burst rows need the demo data's collaborator`);
  }
}
