/**
 * The tracker-ingest row of `npm run bench` (docs/performance.md#benchmark): Jira Cloud's webhook deliveries POSTed
 * to `/ingest/jira/{app_id}` of the API, and to the ingest floor (floor/ingest.ts), which writes the same rows with
 * mysql2 and nothing else. Everything is prepared before the load: a Jira app of the benchmark's organization
 * with its plain secret, the signed bodies (bodies.ts), the floor's rows (rows.ts).
 *
 * The app is made with the service's AppWriter on the benchmark's database (as `npm run apps -- create` does);
 * what the runs write is found by the app and deleted after the floor's run (the API would otherwise find every
 * delivery already received), after the API's, and at the end with the app itself, whatever happens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { createSequelize } from '../../../db/connection';
import { initModels } from '../../../db/models';
import { ChangeRunner } from '../../../src/persistence/changes/change';
import { SecretBox } from '../../../src/secrets/secretBox';
import { AppWriter } from '../../../src/services/apps/apps';
import { JiraDelivery, jiraDeliveries } from './bodies';
import { BenchApp, jiraRowSet, JiraRowSet, KnownTasks } from './rows';

/** The row's name in the report, in --filter and in baselines: the app's id changes from run to run. */
export const JIRA_INGEST_PATH = '/ingest/jira/{app_id}';

/**
 * Deliveries prepared per second of load (warm-up included): more than the floor's pace on this kind of machine
 * (about 1,500 small transactions a second); a run that uses them all is measured until its last answer.
 */
const BODIES_PER_SECOND = 3_000;

export interface JiraPlan {
  app: BenchApp;
  /** `/ingest/jira/<the app's id>`. */
  path: string;
  deliveries: JiraDelivery[];
  /** What the first delivery becomes in the database, to check the API's rows against. */
  first: Omit<JiraRowSet, 'statements'>;
  created: number;
  floorEnv: Record<string, string>;
  dir: string;
}

/** A Jira app of the organization, and its plain secret (shown once, stored sealed with the API's SECRETS_KEY). */
export async function createJiraApp(url: string, secretsKey: Buffer, organizationId: string): Promise<{ app: BenchApp; secret: string }> {
  const sequelize = createSequelize({ url, sqlitePath: '' });
  try {
    initModels(sequelize);
    const apps = new AppWriter(ChangeRunner.for(sequelize), new SecretBox(secretsKey));
    const { app, secret } = await apps.create(organizationId, 'jira', { name: 'npm run bench' });
    return { app: { id: app.id, organization_id: app.organization_id, points_field: app.points_field }, secret };
  } finally {
    await sequelize.close();
  }
}

export function prepareJira(app: BenchApp, secret: string, opts: { connections: number; seconds: number; warmUpSeconds: number }, log: (s: string) => void): JiraPlan {
  const started = Date.now();
  const count = opts.connections + Math.ceil((opts.warmUpSeconds + opts.seconds) * BODIES_PER_SECOND);
  // Timed in the past, a second apart, ending now: every update is newer than its issue's creation.
  const deliveries = jiraDeliveries(count, secret, { lag: 2 * opts.connections, startMs: started - count * 1000 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-jira-'));
  const file = path.join(dir, 'jira.jsonl');
  const fd = fs.openSync(file, 'w');
  const known: KnownTasks = new Map();
  let first: Omit<JiraRowSet, 'statements'> | undefined;
  try {
    for (const d of deliveries) {
      const { statements, ...summary } = jiraRowSet(app, d.id, d.body, new Date(), known);
      first ??= summary;
      fs.writeSync(fd, `${JSON.stringify(statements)}\n`);
    }
  } finally {
    fs.closeSync(fd);
  }
  const created = deliveries.filter((d) => d.kind === 'created').length;
  const kb = deliveries.reduce((n, d) => n + d.body.length, 0) / count / 1024;
  log(`jira: ${count} deliveries (${created} issues created, ${count - created} status changes; ${kb.toFixed(0)} KB each) and their rows prepared in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const appPath = `/ingest/jira/${app.id}`;
  return { app, path: appPath, deliveries, first: first!, created, floorEnv: { FLOOR_INGEST_JIRA: file, FLOOR_INGEST_JIRA_PATH: appPath }, dir };
}

/** Everything the app's deliveries wrote: its tasks with their history, its deliveries, tombstones and account links. */
export async function removeJiraRows(db: Connection, appId: string): Promise<void> {
  await db.query('DELETE c FROM task_status_changes c JOIN tasks t ON t.id = c.task_id WHERE t.app_id = ?', [appId]);
  for (const table of ['tasks', 'ingest_deliveries', 'removed_tasks', 'user_apps']) await db.query(`DELETE FROM ${table} WHERE app_id = ?`, [appId]);
}

/** The app and all it holds (its audit entry stays, as the benchmark's revoked tokens do). */
export async function removeJiraApp(db: Connection, appId: string): Promise<void> {
  await removeJiraRows(db, appId);
  for (const table of ['app_boards', 'app_status_overrides']) await db.query(`DELETE FROM ${table} WHERE app_id = ?`, [appId]);
  await db.query('DELETE FROM apps WHERE id = ?', [appId]);
}

export async function storedJira(db: Connection, appId: string): Promise<{ deliveries: number; tasks: number; statusChanges: number }> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT (SELECT COUNT(*) FROM ingest_deliveries WHERE app_id = ?) AS deliveries, (SELECT COUNT(*) FROM tasks WHERE app_id = ?) AS tasks,
            (SELECT COUNT(*) FROM task_status_changes c JOIN tasks t ON t.id = c.task_id WHERE t.app_id = ?) AS changes`,
    [appId, appId, appId],
  );
  return { deliveries: Number(rows[0].deliveries), tasks: Number(rows[0].tasks), statusChanges: Number(rows[0].changes) };
}

export function removeJiraFiles(plan: JiraPlan): void {
  fs.rmSync(plan.dir, { recursive: true, force: true });
}
