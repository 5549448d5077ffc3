/**
 * The ingest rows of `npm run bench` (docs/performance.md#benchmark): Claude Code's telemetry POSTed to `/otlp/v1/metrics`
 * and `/otlp/v1/logs` of the API, and to the ingest floor (floor/ingest.ts), which inserts the same rows with
 * mysql2 and nothing else. Everything is prepared before the load: the bodies (bodies.ts), the floor's rows
 * (rows.ts), an OTLP token of the benchmark's organization.
 *
 * What the runs insert is deleted again: after the floor's run (the API would otherwise find every batch
 * already received and write nothing) and after the API's, and at the end whatever happens. The benchmark reuses
 * its database from run to run (seeding it takes minutes) and adds nothing to it but its revoked tokens, so
 * telemetry of past runs would otherwise pile up and change what `ai-usage` and the telemetry lists read. The
 * rows are found by the benchmark's token (batches), its account ids, and its time range (points, events, and
 * the rollups' days or months), which lies after the demo data's end: the runs refuse to start when it would not.
 * Rollup rows of those days are deleted whole: on a benchmark's database nothing else writes telemetry then.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { DEMO_END } from '../../../db/demo/fixtures/timeline';
import { MONTH_COLUMNS, monthColumn } from '../../../db/rollups/aiActiveYears';
import { RefusalError } from '../database';
import { accountUuidOf, IngestSignal, ITEMS_PER_BODY, logsBodies, Member, metricsBodies } from './bodies';
import { membersByEmail, RollupTable, rowSet, RowSet, Sender } from './rows';

export const INGEST_SIGNALS: readonly IngestSignal[] = ['metrics', 'logs'];
export const ingestPath = (signal: IngestSignal) => `/otlp/v1/${signal}`;
export const ITEM_NAMES: Record<IngestSignal, string> = { metrics: 'points', logs: 'log records' };

/**
 * Bodies prepared per second of load (warm-up included): more than the ingest floor's pace on this kind of
 * machine (about 30 metrics or 20 logs requests a second at 32 connections); the API takes a fraction of them.
 * A run that uses them all is measured until its last answer (the report says so).
 */
const BODIES_PER_SECOND: Record<IngestSignal, number> = { metrics: 50, logs: 35 };
/** Members whose e-mails the telemetry carries (the organization's first ones by id). */
const MEMBERS = 2_000;

export interface SignalPlan {
  signal: IngestSignal;
  path: string;
  bodies: Buffer[];
  itemsPerBody: number;
  /** What the first body becomes in the database, to check the API's rows against. */
  first: Omit<RowSet, 'statements'>;
  fromMs: number;
  toMs: number;
  /** The rollup tables its requests add to (keyed by organization and day or month). */
  rollupTables: RollupTable[];
}

export interface IngestPlan {
  signals: SignalPlan[];
  /** Environment of the ingest floor: its prepared statements. */
  floorEnv: Record<string, string>;
  sender: Sender;
  members: Member[];
  dir: string;
}

async function membersOf(db: Connection, organizationId: string): Promise<Member[]> {
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT u.id, u.email FROM organization_memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = ? AND m.status = 'active' ORDER BY m.user_id LIMIT ?`,
    [organizationId, MEMBERS],
  );
  return rows.map((r) => ({ userId: r.id as string, email: r.email as string }));
}

export async function prepareIngest(
  db: Connection,
  sender: Sender,
  signals: readonly IngestSignal[],
  opts: { connections: number; seconds: number; warmUpSeconds: number },
  log: (s: string) => void,
): Promise<IngestPlan> {
  const members = await membersOf(db, sender.organizationId);
  if (members.length < 2) throw new RefusalError(`organization ${sender.organizationId} has no active members to send telemetry for`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-'));
  const plan: IngestPlan = { signals: [], floorEnv: {}, sender, members, dir };
  for (const signal of signals) {
    const count = opts.connections + Math.ceil((opts.warmUpSeconds + opts.seconds) * BODIES_PER_SECOND[signal]);
    const started = Date.now();
    const bodies = signal === 'metrics' ? await metricsBodies(members, count) : logsBodies(members, count);
    // Written as they are made (hundreds of MB of SQL in all), one line per body; only their summaries are kept.
    const file = path.join(dir, `${signal}.jsonl`);
    const fd = fs.openSync(file, 'w');
    const byEmail = membersByEmail(members);
    const sets: Omit<RowSet, 'statements'>[] = [];
    for (const body of bodies) {
      const { statements, ...summary } = await rowSet(signal, sender, byEmail, body, started);
      fs.writeSync(fd, `${JSON.stringify(statements)}\n`);
      sets.push(summary);
    }
    fs.closeSync(fd);
    plan.floorEnv[signal === 'metrics' ? 'FLOOR_INGEST_METRICS' : 'FLOOR_INGEST_LOGS'] = file;
    const kb = bodies.reduce((n, b) => n + b.length, 0) / bodies.length / 1024;
    const [first] = sets;
    if (first.items !== ITEMS_PER_BODY || first.attributed !== first.items) {
      throw new Error(`a ${signal} body holds ${first.items} items, ${first.attributed} of them attributed to a member; expected ${ITEMS_PER_BODY}, all`);
    }
    log(`${signal}: ${count} bodies of ${ITEMS_PER_BODY} ${ITEM_NAMES[signal]} (${kb.toFixed(0)} KB each) and their rows prepared in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    plan.signals.push({
      signal,
      path: ingestPath(signal),
      bodies,
      itemsPerBody: ITEMS_PER_BODY,
      first,
      fromMs: Math.min(...sets.map((s) => s.fromMs)),
      toMs: Math.max(...sets.map((s) => s.toMs)),
      rollupTables: sets[0].rollupTables,
    });
  }
  // Rollups are deleted by day or month afterwards: the first must hold no demo data (which ends before DEMO_END).
  const first = Math.min(...plan.signals.map((p) => p.fromMs)) - MARGIN_MS;
  if (plan.signals.length && (day(first) < day(DEMO_END.getTime()) || month(first) <= month(DEMO_END.getTime() - 1))) {
    removeFiles(plan);
    throw new RefusalError(`the ingest rows write telemetry timed now, which must lie after the demo data's end (${DEMO_END.toISOString()}) so that it can be told apart and deleted`);
  }
  return plan;
}

/** Around the bodies' own times when deleting: the API stamps nothing outside them, but a margin costs nothing. */
const MARGIN_MS = 60_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const month = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

/**
 * Deletes in slices, so no statement holds locks on hundreds of thousands of rows at once. A slice that loses a
 * deadlock (the API's hourly telemetry purge deletes from the same tables, the first time a minute after it
 * starts) is run again.
 */
async function deleteAll(db: Connection, sql: string, args: unknown[]): Promise<number> {
  let total = 0;
  for (let deadlocks = 0; ; ) {
    let n: number;
    try {
      const [result] = await db.query(`${sql} LIMIT 5000`, args);
      n = (result as { affectedRows: number }).affectedRows;
    } catch (err) {
      if ((err as { errno?: number }).errno !== 1213 || ++deadlocks > 10) throw err;
      await new Promise((r) => setTimeout(r, 100 * deadlocks));
      continue;
    }
    total += n;
    if (n < 5000) return total;
  }
}

/** Everything the ingest rows wrote (see the top of this file); returns the points and events deleted. */
export async function removeIngested(db: Connection, plan: IngestPlan): Promise<number> {
  if (!plan.signals.length) return 0;
  const org = plan.sender.organizationId;
  const from = Math.min(...plan.signals.map((s) => s.fromMs)) - MARGIN_MS;
  const to = Math.max(...plan.signals.map((s) => s.toMs)) + MARGIN_MS;
  let items = 0;
  await deleteAll(db, 'DELETE FROM telemetry_batches WHERE organization_id = ? AND token_id = ?', [org, plan.sender.tokenId]);
  items += await deleteAll(db, 'DELETE FROM telemetry_points WHERE organization_id = ? AND end_at BETWEEN ? AND ?', [org, utc(from), utc(to)]);
  items += await deleteAll(db, 'DELETE FROM telemetry_events WHERE organization_id = ? AND created_at BETWEEN ? AND ?', [org, utc(from), utc(to)]);
  const tables = new Map(plan.signals.flatMap((s) => s.rollupTables).map((t) => [t.table, t.time]));
  for (const [table, time] of tables) {
    if (time === 'year') {
      await clearMonthColumns(db, table, org, from, to);
      continue;
    }
    const [a, b] = time === 'day' ? [day(from), day(to)] : [month(from), month(to)];
    await deleteAll(db, `DELETE FROM ${table} WHERE organization_id = ? AND ${time} BETWEEN ? AND ?`, [org, a, b]);
  }
  const accounts = plan.members.map((m) => accountUuidOf(m.email));
  for (let i = 0; i < accounts.length; i += 1000) {
    await deleteAll(db, 'DELETE FROM telemetry_accounts WHERE organization_id = ? AND account_id IN (?)', [org, accounts.slice(i, i + 1000)]);
  }
  return items;
}

/**
 * A year's row keeps the run's months beside the seeded ones: the run's months are set to 0, as the monthly tables'
 * rows of those months are deleted, and the rows left with no day at all go.
 */
async function clearMonthColumns(db: Connection, table: string, org: string, from: number, to: number): Promise<void> {
  for (let at = Date.parse(`${month(from)}-01T00:00:00Z`); at <= to; at = Date.UTC(new Date(at).getUTCFullYear(), new Date(at).getUTCMonth() + 1, 1)) {
    const column = monthColumn(month(at));
    await db.query(`UPDATE ${table} SET ${column} = 0 WHERE organization_id = ? AND year = ?`, [org, new Date(at).getUTCFullYear()]);
  }
  const empty = MONTH_COLUMNS.map((c) => `${c} = 0`).join(' AND ');
  await deleteAll(db, `DELETE FROM ${table} WHERE organization_id = ? AND ${empty}`, [org]);
}

/** Points or events stored in the benchmark's range, and how many of them belong to no member. */
export async function storedItems(db: Connection, plan: IngestPlan, signal: IngestSignal): Promise<{ items: number; unattributed: number }> {
  const s = plan.signals.find((p) => p.signal === signal)!;
  const [table, column] = signal === 'metrics' ? ['telemetry_points', 'end_at'] : ['telemetry_events', 'created_at'];
  const [rows] = await db.query<RowDataPacket[]>(
    `SELECT COUNT(*) AS items, COUNT(*) - COUNT(user_id) AS unattributed FROM ${table} WHERE organization_id = ? AND ${column} BETWEEN ? AND ?`,
    [plan.sender.organizationId, utc(s.fromMs - MARGIN_MS), utc(s.toMs + MARGIN_MS)],
  );
  return { items: Number(rows[0].items), unattributed: Number(rows[0].unattributed) };
}

export function removeFiles(plan: IngestPlan): void {
  fs.rmSync(plan.dir, { recursive: true, force: true });
}
