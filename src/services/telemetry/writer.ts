import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { ChangeRunner } from '../../persistence/changes/change';
import { newId } from '../../persistence/changes/ids';
import { Attributes, columnText, LogsBatch, MetricsBatch, RawBody, Refusal } from './batch';
import { eventContributions, metricContributions, toolOf } from './aiTools';
import { EventRecord, eventOf, newEvents } from './events';
import { resolveActors, subjectOf } from './identity';
import { asSent, cumulativeToDeltas, newPoints, seriesKey, StoredPoint } from './points';
import { storedAttributes, withoutNeverStored } from './privacy';
import { UsageRollup } from './rollups';
import { ChangeSql } from '../../persistence/changes/changeSql';

/** Who sends: an OTLP token's organization, and its user when the token is bound to one. */
export interface TelemetrySender {
  tokenId: string;
  organizationId: string;
  userId: string | null;
}

/** What the sender is told (OTLP `partialSuccess`): how many records were refused, and why, and what was dropped. */
export interface Receipt {
  rejected: number;
  message: string;
}

const BATCH_MEMORY_MS = 24 * 60 * 60 * 1000;

/**
 * Telemetry in (docs/telemetry.md): each request is one change, holding its points or events, the daily AI usage
 * rollups they add to, and its raw body; a body already received in the last 24 hours writes nothing. It raises
 * no data version: every batch would wait on that one row, and senders export every few seconds per laptop, so
 * cached figures and list totals of telemetry are instead at most COUNT_CACHE_TTL_MS old.
 */
export class TelemetryWriter {
  constructor(private readonly changes: ChangeRunner, private readonly now: () => Date = () => new Date()) {}

  async receiveMetrics(sender: TelemetrySender, batch: MetricsBatch, raw: RawBody): Promise<Receipt> {
    let dropped = 0;
    const points = batch.points.map((p) => {
      const { kept, dropped: n } = withoutNeverStored(p.attributes);
      dropped += n;
      return n ? { ...p, attributes: kept } : p;
    });
    await this.once(sender, raw, dropped > 0, { points }, async (sql, now) => {
      const keyed = points.map((point) => ({ point, seriesKey: seriesKey(point) }));
      const cumulative = keyed.filter((p) => p.point.kind === 'sum' && p.point.cumulative);
      const asIs = keyed.filter((p) => !(p.point.kind === 'sum' && p.point.cumulative)).map(asSent);
      const stored = await newPoints(sql, sender.organizationId, [...(await cumulativeToDeltas(sql, sender.organizationId, cumulative)), ...asIs]);
      const actorOf = await resolveActors(sql, sender.organizationId, sender.userId ? [] : stored.map((s) => subjectOf(s.point.attributes, s.point.resource)), now);
      const rollup = new UsageRollup(sender.organizationId);
      const rows = stored.map((s) => {
        const userId = sender.userId ?? actorOf(subjectOf(s.point.attributes, s.point.resource));
        const tool = toolOf(s.point.name);
        if (tool && s.point.kind === 'sum') rollup.add(s.endMs, userId, tool, metricContributions(s.point.name, s.value, s.point.attributes));
        return pointRow(sender.organizationId, s, userId, tool);
      });
      await sql.insert('telemetry_points', POINT_COLUMNS, rows);
      await rollup.write(sql);
    });
    return receipt(batch.refused, dropped, 'attribute(s) of points');
  }

  async receiveLogs(sender: TelemetrySender, batch: LogsBatch, raw: RawBody): Promise<Receipt> {
    let dropped = 0;
    const refused = [...batch.refused];
    const events = batch.records.flatMap((r) => {
      const { kept, dropped: n } = withoutNeverStored(r.attributes);
      dropped += n;
      const event = eventOf(n ? { ...r, attributes: kept } : r, toolOf);
      if (!event) refused.push({ count: 1, reason: "a log record without a name: 'event.name', eventName or a string body, without NUL characters" });
      return event ? [event] : [];
    });
    await this.once(sender, raw, dropped > 0, { events: events.map((e) => ({ name: e.name, timeMs: e.record.timeMs, attributes: e.record.attributes })) }, async (sql, now) => {
      const fresh = await newEvents(sql, sender.organizationId, events);
      const actorOf = await resolveActors(sql, sender.organizationId, sender.userId ? [] : fresh.map((e) => subjectOf(e.record.attributes, e.record.resource)), now);
      const rollup = new UsageRollup(sender.organizationId);
      const rows = fresh.map((e) => {
        const userId = sender.userId ?? actorOf(subjectOf(e.record.attributes, e.record.resource));
        const tool = toolOf(e.name);
        if (tool) rollup.add(e.record.timeMs, userId, tool, eventContributions(e.name, e.record.attributes));
        return eventRow(sender.organizationId, e, userId);
      });
      await sql.insert('telemetry_events', EVENT_COLUMNS, rows);
      await rollup.write(sql);
    });
    return receipt(refused, dropped, 'attribute(s) of log records');
  }

  /** Spans are not stored (docs/telemetry.md); the body is kept like any other, so a support case can look at it. */
  async receiveTraces(sender: TelemetrySender, spans: number, raw: RawBody): Promise<Receipt> {
    await this.once(sender, raw, false, {}, async () => undefined);
    return { rejected: spans, message: spans ? `${spans} span(s) not stored: this service keeps metrics and log records; send spans to a tracing backend` : '' };
  }

  /**
   * One change per request, unless its body was received in the last 24 hours. The body is kept gzip-compressed;
   * when never-stored content was dropped from it, what was stored is kept instead (`sanitized`).
   */
  private async once(
    sender: TelemetrySender,
    raw: RawBody,
    sanitized: boolean,
    stored: unknown,
    work: (sql: ChangeSql, now: Date) => Promise<void>,
  ): Promise<void> {
    const bodyHash = createHash('sha256').update(raw.bytes).digest('hex');
    const kept = sanitized ? Buffer.from(JSON.stringify(stored)) : raw.bytes;
    const body = gzipSync(kept, { level: 1 });
    await this.changes.run(async (change) => {
      const sql = new ChangeSql(change.transaction);
      const now = this.now();
      // Not a locking read: the unique (organization, hash) index settles two copies sent at once (the loser's
      // insert fails, and its retry finds the winner's row).
      const [seen] = await sql.select<{ id: number; received_at: Date | string }>(
        'SELECT id, received_at FROM telemetry_batches WHERE organization_id = :organizationId AND body_hash = :bodyHash',
        { organizationId: sender.organizationId, bodyHash },
      );
      if (seen && now.getTime() - new Date(seen.received_at).getTime() < BATCH_MEMORY_MS) return;
      const row = {
        organization_id: sender.organizationId,
        token_id: sender.tokenId,
        signal_type: raw.signal,
        body_hash: bodyHash,
        content_type: sanitized ? 'application/json' : raw.contentType,
        sanitized,
        body_gzip: body,
        received_at: now,
      };
      if (seen) await sql.run('DELETE FROM telemetry_batches WHERE id = :id', { id: seen.id });
      await sql.insert('telemetry_batches', Object.keys(row), [row]);
      await work(sql, now);
    }, { readCommitted: true });
  }
}

export const POINT_COLUMNS = ['organization_id', 'series_key', 'start_at', 'end_at', 'name', 'tool', 'user_id', 'value', 'attributes'] as const;
export const EVENT_COLUMNS = ['id', 'organization_id', 'event_key', 'name', 'source', 'user_id', 'session_id', 'attributes', 'created_at'] as const;

/** A point as stored (also what the ingest floor of `npm run bench` inserts). */
export function pointRow(organizationId: string, s: StoredPoint, userId: string | null, tool: string | undefined) {
  return {
    organization_id: organizationId,
    series_key: s.seriesKey,
    start_at: new Date(s.startMs),
    end_at: new Date(s.endMs),
    name: s.point.name.slice(0, 200),
    tool: (tool ?? sourceOf(s.point.resource)).slice(0, 40),
    user_id: userId,
    value: s.value,
    attributes: storedAttributes(s.point.attributes),
  };
}

/** An event as stored (also what the ingest floor inserts). */
export function eventRow(organizationId: string, e: EventRecord, userId: string | null) {
  return {
    id: newId('tev'),
    organization_id: organizationId,
    event_key: e.key,
    name: e.name,
    source: e.source,
    user_id: userId,
    session_id: e.sessionId,
    attributes: storedAttributes(e.record.attributes),
    created_at: new Date(e.record.timeMs),
  };
}

const sourceOf = (resource: Attributes) => columnText(resource['service.name']) ?? 'unknown';

function receipt(refused: Refusal[], dropped: number, what: string): Receipt {
  const rejected = refused.reduce((n, r) => n + r.count, 0);
  const reasons = [...new Set(refused.map((r) => r.reason))];
  if (dropped) reasons.push(`${dropped} ${what} dropped: prompt text, tool input and API bodies are never stored`);
  return { rejected, message: reasons.join('; ').slice(0, 2000) };
}
