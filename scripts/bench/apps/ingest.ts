/**
 * The app-ingest rows of `npm run bench` (docs/performance.md#benchmark): a provider's webhook deliveries POSTed to
 * `/ingest/{provider}/{app_id}` of the API, to the ingest floor (floor/ingest.ts), which writes the same rows with
 * mysql2 and nothing else, and to its stack floor (floor/ingestStack.ts). Jira Cloud's (scripts/bench/jira/) and
 * PagerDuty's (scripts/bench/pagerduty/). Everything is prepared before the load: an app of the benchmark's
 * organization with its plain secret, the signed bodies, the floor's rows.
 *
 * The app is made with the service's AppWriter on the benchmark's database (as `npm run apps -- create` does);
 * what the runs write is found by the app and deleted after each run (the API would otherwise find every delivery
 * already received), and at the end with the app itself, whatever happens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection } from 'mysql2/promise';
import { createSequelize } from '../../../db/connection';
import { initModels } from '../../../db/models';
import { ChangeRunner } from '../../../src/persistence/changes/change';
import { SecretBox } from '../../../src/secrets/secretBox';
import { AppWriter } from '../../../src/services/apps/apps';
import { providerCatalog } from '../../../src/integrations/catalog';

/** The app as the floors' rows need it. */
export interface BenchApp {
  id: string;
  organization_id: string;
  points_field: string | null;
}

/** One prepared delivery: its signed body, its headers, and the floor's statements for it. */
export interface PreparedDelivery {
  body: Buffer;
  headers: Record<string, string>;
  statements: string[];
}

export type RowCounts = Record<string, number>;

/** A provider's row: how its deliveries are made, what they store, and how that is found and removed. */
export interface AppIngestSource {
  provider: 'jira' | 'pagerduty';
  /** The row's name in the report, in --filter and in baselines: the app's id changes from run to run. */
  rowPath: string;
  itemName: string;
  /**
   * `count` deliveries to `app`, happening a second apart from `startMs`, a later one acting on what one at least
   * `lag` before made (so with fewer concurrent senders its row is stored when it arrives); and what the first stores.
   */
  deliveries(app: BenchApp, secret: string, count: number, lag: number, startMs: number): { deliveries: PreparedDelivery[]; first: RowCounts; summary: string };
  /** What the app's deliveries stored. */
  stored(db: Connection, appId: string): Promise<RowCounts>;
  /** Everything they stored. */
  removeRows(db: Connection, appId: string): Promise<void>;
  /** What the row measures, for the report's notes. */
  note: string;
}

/**
 * Deliveries prepared per second of load (warm-up included): more than the floor's pace on this kind of machine
 * (about 1,500 small transactions a second); a run that uses them all is measured until its last answer.
 */
const BODIES_PER_SECOND = 3_000;

export interface AppIngestPlan {
  /** `/ingest/<provider>/<the app's id>`. */
  path: string;
  deliveries: PreparedDelivery[];
  first: RowCounts;
  floorEnv: Record<string, string>;
  dir: string;
}

/** An app of the organization, and its plain secret (shown once, stored sealed with the API's SECRETS_KEY). */
export async function createBenchApp(url: string, secretsKey: Buffer, organizationId: string, provider: AppIngestSource['provider']): Promise<{ app: BenchApp; secret: string }> {
  const sequelize = createSequelize({ url, sqlitePath: '' });
  try {
    initModels(sequelize);
    const apps = new AppWriter(ChangeRunner.for(sequelize), new SecretBox(secretsKey), providerCatalog());
    const { app, secret } = await apps.create(organizationId, provider, { name: 'npm run bench' });
    if (secret === null) throw new Error(`${provider} sends no deliveries: nothing to benchmark at /ingest`);
    return { app: { id: app.id, organization_id: app.organization_id, points_field: app.points_field }, secret };
  } finally {
    await sequelize.close();
  }
}

export function prepareAppIngest(source: AppIngestSource, app: BenchApp, secret: string, opts: { connections: number; seconds: number; warmUpSeconds: number }, log: (s: string) => void): AppIngestPlan {
  const started = Date.now();
  const count = opts.connections + Math.ceil((opts.warmUpSeconds + opts.seconds) * BODIES_PER_SECOND);
  // Timed in the past, a second apart, ending now: every later event is newer than what it acts on.
  const { deliveries, first, summary } = source.deliveries(app, secret, count, 2 * opts.connections, started - count * 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${source.provider}-`));
  const file = path.join(dir, `${source.provider}.jsonl`);
  fs.writeFileSync(file, deliveries.map((d) => `${JSON.stringify(d.statements)}\n`).join(''));
  const kb = deliveries.reduce((n, d) => n + d.body.length, 0) / count / 1024;
  log(`${source.provider}: ${count} deliveries (${summary}; ${kb.toFixed(1)} KB each) and their rows prepared in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const appPath = `/ingest/${source.provider}/${app.id}`;
  return { path: appPath, deliveries, first, floorEnv: { FLOOR_INGEST_APP: file, FLOOR_INGEST_APP_PATH: appPath, FLOOR_INGEST_APP_PROVIDER: source.provider }, dir };
}

/** The app and all it holds (its audit entry stays, as the benchmark's revoked tokens do). */
export async function removeBenchApp(db: Connection, source: AppIngestSource, appId: string): Promise<void> {
  await source.removeRows(db, appId);
  for (const table of ['app_boards', 'board_repositories', 'app_status_overrides', 'user_apps']) await db.query(`DELETE FROM ${table} WHERE app_id = ?`, [appId]);
  await db.query('DELETE FROM apps WHERE id = ?', [appId]);
}

export function removeAppIngestFiles(plan: AppIngestPlan): void {
  fs.rmSync(plan.dir, { recursive: true, force: true });
}
