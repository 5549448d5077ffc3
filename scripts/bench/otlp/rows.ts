/**
 * The rows the service writes for an OTLP body (src/services/telemetry/writer.ts), worked out once before the
 * load so the ingest floor (floor/ingest.ts) only inserts them: the batch row (the body, gzip-compressed), the
 * points or events, the account ids seen with a member's e-mail (INSERT IGNORE, as the writer does) and the
 * additions to the daily AI usage rollups. Bodies are read into a batch by the service's own requests.ts; rows are
 * built with the writer's own helpers, for a sender token bound to no user, as the benchmark's is.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { format } from 'mysql2';
import { readRequest } from '../../../src/otlp/requests';
import type { LogsBatch, MetricsBatch } from '../../../src/services/telemetry/batch';
import { eventContributions, metricContributions, toolOf } from '../../../src/services/telemetry/aiTools';
import { eventOf } from '../../../src/services/telemetry/events';
import { subjectOf, Subject } from '../../../src/services/telemetry/identity';
import { asSent, seriesKey } from '../../../src/services/telemetry/points';
import { withoutNeverStored } from '../../../src/services/telemetry/privacy';
import { UsageRollup } from '../../../src/services/telemetry/rollups';
import type { ChangeSql } from '../../../src/persistence/changes/changeSql';
import { EVENT_COLUMNS, eventRow, POINT_COLUMNS, pointRow } from '../../../src/services/telemetry/writer';
import type { IngestSignal, Member } from './bodies';

/** What one body becomes: its statements, in the writer's order, and what they write. */
export interface RowSet {
  statements: string[];
  /** Points or events. */
  items: number;
  /** Of those, attributed to a member. */
  attributed: number;
  /** Rollup rows added to, and the tables they are in. */
  rollups: number;
  rollupTables: RollupTable[];
  /** The first and last time a point ends or an event happened, in ms. */
  fromMs: number;
  toMs: number;
}

/**
 * A rollup table, and the key column that says when: a `day` (YYYY-MM-DD), a `month` (YYYY-MM), or a `year` whose
 * months are columns (ai_active_years).
 */
export interface RollupTable {
  table: string;
  time: 'day' | 'month' | 'year';
}

export interface Sender {
  organizationId: string;
  tokenId: string;
}

/** The writer's statements hold at most 500 rows (ChangeSql.insertRows). */
const CHUNK = 500;

/** DATETIME(3) in UTC, as the API's Sequelize (timezone +00:00) writes it. */
const utc = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
/** The service's own row, its times as MariaDB DATETIME(3) text for mysql2. */
const forMysql = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? utc(v.getTime()) : v]));

function insert(verb: string, table: string, columns: readonly string[], rows: Record<string, unknown>[], tail = ''): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values = rows.slice(i, i + CHUNK).map((row) => columns.map((c) => row[c] ?? null));
    out.push(format(`${verb} INTO ${table} (${columns.join(', ')}) VALUES ?${tail}`, [values] as Parameters<typeof format>[1]));
  }
  return out;
}

/** The members matched by e-mail, as `resolveActors` would match them, and the account ids it would remember. */
function actors(sender: Sender, members: Map<string, string>, subjects: Subject[], nowMs: number) {
  const accounts = new Map<string, string>();
  for (const s of subjects) {
    const userId = s.email ? members.get(s.email) : undefined;
    if (userId && s.accountId) accounts.set(s.accountId, userId);
  }
  const rows = [...accounts].map(([account_id, user_id]) => ({ organization_id: sender.organizationId, account_id, user_id, created_at: utc(nowMs) }));
  const actorOf = (s: Subject) => (s.email ? members.get(s.email) : undefined) ?? (s.accountId ? accounts.get(s.accountId) : undefined) ?? null;
  return { actorOf, statements: insert('INSERT IGNORE', 'telemetry_accounts', ['organization_id', 'account_id', 'user_id', 'created_at'], rows) };
}

/**
 * The rollup statements of a request: `UsageRollup.addRollups` itself is run against a stand-in for its SQL that
 * writes down what it is asked to add (tables, rows and their order), as ChangeSql.addTo would on MariaDB. The
 * floor leaves out what the writer does after them, weighing the commits of the days a request reports code of
 * (git/rollups/aiEvidence.ts, reads of the commits and the rollups they move): the API's figures include that work.
 */
async function rollupStatements(rollup: UsageRollup): Promise<{ statements: string[]; rows: number; tables: RollupTable[] }> {
  const out = { statements: [] as string[], rows: 0, tables: [] as RollupTable[] };
  const recorder = {
    addTo: async (table: string, keys: readonly string[], added: readonly string[], rows: Record<string, unknown>[], combine = '+') => {
      const tail = ` ON DUPLICATE KEY UPDATE ${added.map((c) => `${c} = ${c} ${combine} VALUES(${c})`).join(', ')}`;
      out.statements.push(...insert('INSERT', table, [...keys, ...added], rows, tail));
      out.rows += rows.length;
      // The benchmark deletes what it added by organization and time (ingest.ts): it must know the time key.
      const time = keys.includes('day') ? 'day' : keys.includes('month') ? 'month' : keys.includes('year') ? 'year' : undefined;
      if (!time || !keys.includes('organization_id')) throw new Error(`rollup table ${table} has no organization_id and day, month or year key; the benchmark cannot delete what it adds there`);
      if (!out.tables.some((t) => t.table === table)) out.tables.push({ table, time });
    },
  };
  const sql = new Proxy(recorder, {
    get: (target, name) => {
      if (name in target) return target[name as keyof typeof target];
      throw new Error(`UsageRollup.addRollups uses ChangeSql.${String(name)}, which the benchmark's ingest floor (scripts/bench/otlp/rows.ts) does not know yet`);
    },
  });
  await rollup.addRollups(sql as unknown as ChangeSql);
  return out;
}

function batchStatement(sender: Sender, signal: IngestSignal, body: Buffer, nowMs: number): string[] {
  const row = {
    organization_id: sender.organizationId,
    token_id: sender.tokenId,
    signal_type: signal,
    body_hash: createHash('sha256').update(body).digest('hex'),
    content_type: 'application/x-protobuf',
    sanitized: false,
    body_gzip: gzipSync(body, { level: 1 }),
    received_at: utc(nowMs),
  };
  return insert('INSERT', 'telemetry_batches', Object.keys(row), [row]);
}

async function metricsRows(sender: Sender, members: Map<string, string>, body: Buffer, nowMs: number): Promise<RowSet> {
  const request = readRequest('metrics', 'application/x-protobuf', body);
  if (request.signal !== 'metrics') throw new Error('not a metrics request');
  const batch: MetricsBatch = request.batch;
  if (batch.refused.length) throw new Error(`the service would refuse part of a benchmark body: ${batch.refused[0].reason}`);
  const stored = batch.points.map((p) => {
    const { kept, dropped } = withoutNeverStored(p.attributes);
    if (dropped) throw new Error('a benchmark body carries never-stored attributes');
    if (p.kind !== 'sum' || p.cumulative) throw new Error('the benchmark sends delta sums only');
    const point = { ...p, attributes: kept };
    return asSent({ point, seriesKey: seriesKey(point) });
  });
  const { actorOf, statements: accounts } = actors(sender, members, stored.map((s) => subjectOf(s.point.attributes, s.point.resource)), nowMs);
  const rollup = new UsageRollup(sender.organizationId);
  let attributed = 0;
  const rows = stored.map((s) => {
    const userId = actorOf(subjectOf(s.point.attributes, s.point.resource));
    if (userId) attributed++;
    const tool = toolOf(s.point.name);
    if (tool) rollup.add(s.endMs, userId, tool, metricContributions(s.point.name, s.value, s.point.attributes));
    return forMysql(pointRow(sender.organizationId, s, userId, tool));
  });
  const rollups = await rollupStatements(rollup);
  return {
    statements: [...batchStatement(sender, 'metrics', body, nowMs), ...accounts, ...insert('INSERT', 'telemetry_points', POINT_COLUMNS, rows), ...rollups.statements],
    items: rows.length,
    attributed,
    rollups: rollups.rows,
    rollupTables: rollups.tables,
    fromMs: Math.min(...stored.map((s) => s.endMs)),
    toMs: Math.max(...stored.map((s) => s.endMs)),
  };
}

async function logsRows(sender: Sender, members: Map<string, string>, body: Buffer, nowMs: number): Promise<RowSet> {
  const request = readRequest('logs', 'application/x-protobuf', body);
  if (request.signal !== 'logs') throw new Error('not a logs request');
  const batch: LogsBatch = request.batch;
  if (batch.refused.length) throw new Error(`the service would refuse part of a benchmark body: ${batch.refused[0].reason}`);
  const keys = new Set<string>();
  const events = batch.records.map((r) => {
    const { kept, dropped } = withoutNeverStored(r.attributes);
    if (dropped) throw new Error('a benchmark body carries never-stored attributes');
    const event = eventOf({ ...r, attributes: kept }, toolOf);
    if (!event) throw new Error('a benchmark log record has no event name');
    if (keys.has(event.key)) throw new Error('two benchmark events share a key');
    keys.add(event.key);
    return event;
  });
  const { actorOf, statements: accounts } = actors(sender, members, events.map((e) => subjectOf(e.record.attributes, e.record.resource)), nowMs);
  const rollup = new UsageRollup(sender.organizationId);
  let attributed = 0;
  const rows = events.map((e) => {
    const userId = actorOf(subjectOf(e.record.attributes, e.record.resource));
    if (userId) attributed++;
    const tool = toolOf(e.name);
    if (tool) rollup.add(e.record.timeMs, userId, tool, eventContributions(e.name, e.record.attributes));
    return forMysql(eventRow(sender.organizationId, e, userId));
  });
  const rollups = await rollupStatements(rollup);
  return {
    statements: [...batchStatement(sender, 'logs', body, nowMs), ...accounts, ...insert('INSERT', 'telemetry_events', EVENT_COLUMNS, rows), ...rollups.statements],
    items: rows.length,
    attributed,
    rollups: rollups.rows,
    rollupTables: rollups.tables,
    fromMs: Math.min(...events.map((e) => e.record.timeMs)),
    toMs: Math.max(...events.map((e) => e.record.timeMs)),
  };
}

/** Members' ids by e-mail, lower-case as the writer compares them. */
export const membersByEmail = (members: Member[]) => new Map(members.map((m) => [m.email.toLowerCase(), m.userId]));

/** The rows of one body, for a sender token bound to no user, received at `nowMs`. */
export function rowSet(signal: IngestSignal, sender: Sender, byEmail: Map<string, string>, body: Buffer, nowMs: number): Promise<RowSet> {
  return (signal === 'metrics' ? metricsRows : logsRows)(sender, byEmail, body, nowMs);
}
