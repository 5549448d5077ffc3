import { createHash } from 'node:crypto';
import type { Attributes, MetricPoint } from './batch';
import type { ChangeSql } from '../../persistence/changes/changeSql';

/** A point ready to store: its series, the interval it covers, and its delta (Sum) or reading (Gauge). */
export interface StoredPoint {
  point: MetricPoint;
  seriesKey: string;
  startMs: number;
  endMs: number;
  value: number;
}

const sorted = (a: Attributes) => JSON.stringify(Object.keys(a).sort().map((k) => [k, a[k]]));

/** A request's points share their resource's attributes (one object each): sorted once per resource. */
const resourceIdentities = new WeakMap<Attributes, string>();
function resourceIdentity(resource: Attributes): string {
  let identity = resourceIdentities.get(resource);
  if (identity === undefined) resourceIdentities.set(resource, (identity = sorted(resource)));
  return identity;
}

/** A series is its metric, scope, resource and point attributes (the OpenTelemetry data model's identity). */
export function seriesKey(p: MetricPoint): string {
  const identity = `[${JSON.stringify(p.name)},${JSON.stringify(p.kind)},${JSON.stringify(p.scope)},${resourceIdentity(p.resource)},${sorted(p.attributes)}]`;
  return createHash('sha256').update(identity).digest('hex').slice(0, 32);
}

interface SeriesState {
  series_key: string;
  start_at: Date | string;
  last_at: Date | string;
  last_value: number;
}

/** MariaDB answers dates as Date, SQLite as Sequelize's `YYYY-MM-DD HH:MM:SS.SSS +00:00` text. */
const ms = (value: Date | string) => new Date(value).getTime();

/**
 * Cumulative series become deltas against the state stored for them, read with a lock so every instance
 * continues from the same point: a point after the last one adds the difference (all of its value when it fell,
 * the counter having been reset); a point at or before the last one is a redelivery and adds nothing; a new start
 * time is a restarted sender, whose series starts afresh with its whole value.
 */
export async function cumulativeToDeltas(sql: ChangeSql, organizationId: string, points: { point: MetricPoint; seriesKey: string }[]): Promise<StoredPoint[]> {
  if (!points.length) return [];
  const keys = [...new Set(points.map((p) => p.seriesKey))].sort();
  const rows = await sql.select<SeriesState>(
    `SELECT series_key, start_at, last_at, last_value FROM telemetry_series WHERE organization_id = :organizationId AND series_key IN (:keys) ORDER BY series_key${sql.forUpdate}`,
    { organizationId, keys },
  );
  const states = new Map(rows.map((r) => [r.series_key, { startMs: ms(r.start_at), lastMs: ms(r.last_at), lastValue: Number(r.last_value), known: true, changed: false }]));
  const out: StoredPoint[] = [];
  const ordered = [...points].sort((a, b) => a.point.timeMs - b.point.timeMs);
  for (const { point, seriesKey } of ordered) {
    const state = states.get(seriesKey);
    if (!state || state.startMs !== point.startMs) {
      out.push({ point, seriesKey, startMs: point.startMs || point.timeMs, endMs: point.timeMs, value: point.value });
      states.set(seriesKey, { startMs: point.startMs, lastMs: point.timeMs, lastValue: point.value, known: state?.known ?? false, changed: true });
      continue;
    }
    if (point.timeMs <= state.lastMs) continue;
    const delta = point.value >= state.lastValue ? point.value - state.lastValue : point.value;
    out.push({ point, seriesKey, startMs: state.lastMs, endMs: point.timeMs, value: delta });
    Object.assign(state, { lastMs: point.timeMs, lastValue: point.value, changed: true });
  }
  const changed = [...states].filter(([, s]) => s.changed).sort(([a], [b]) => (a < b ? -1 : 1));
  const fresh = changed.filter(([, s]) => !s.known).map(([key, s]) => stateRow(organizationId, key, s));
  await sql.insert('telemetry_series', ['organization_id', 'series_key', 'start_at', 'last_at', 'last_value'], fresh);
  for (const [key, s] of changed.filter(([, s]) => s.known)) {
    const row = stateRow(organizationId, key, s);
    await sql.run(
      `UPDATE telemetry_series SET start_at = ${sql.time(row.start_at)}, last_at = ${sql.time(row.last_at)}, last_value = :last_value
        WHERE organization_id = :organization_id AND series_key = :series_key`,
      row,
    );
  }
  return out;
}

function stateRow(organizationId: string, key: string, s: { startMs: number; lastMs: number; lastValue: number }) {
  return { organization_id: organizationId, series_key: key, start_at: new Date(s.startMs), last_at: new Date(s.lastMs), last_value: s.lastValue };
}

/** Delta Sums and Gauges are stored as sent: a Gauge is a reading at one instant. */
export function asSent(p: { point: MetricPoint; seriesKey: string }): StoredPoint {
  const startMs = p.point.kind === 'gauge' ? p.point.timeMs : p.point.startMs || p.point.timeMs;
  return { ...p, startMs, endMs: p.point.timeMs, value: p.point.value };
}

/** Drops points already stored (a redelivered delta point, or a batch that overlaps an earlier one). */
export async function newPoints(sql: ChangeSql, organizationId: string, points: StoredPoint[]): Promise<StoredPoint[]> {
  if (!points.length) return [];
  const keys = [...new Set(points.map((p) => p.seriesKey))];
  const from = new Date(Math.min(...points.map((p) => p.endMs)));
  const to = new Date(Math.max(...points.map((p) => p.endMs)));
  const rows = await sql.select<{ series_key: string; start_at: Date | string; end_at: Date | string }>(
    `SELECT series_key, start_at, end_at FROM telemetry_points
      WHERE organization_id = :organizationId AND series_key IN (:keys) AND end_at BETWEEN ${sql.time(from)} AND ${sql.time(to)}`,
    { organizationId, keys },
  );
  const stored = new Set(rows.map((r) => `${r.series_key}|${ms(r.start_at)}|${ms(r.end_at)}`));
  const seen = new Set<string>();
  return points.filter((p) => {
    const key = `${p.seriesKey}|${p.startMs}|${p.endMs}`;
    if (stored.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
