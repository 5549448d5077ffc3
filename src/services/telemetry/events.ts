import { createHash } from 'node:crypto';
import { columnText as text, LogRecord } from './batch';
import type { ChangeSql } from '../../persistence/changes/changeSql';

/** A log record as an event: its name, where it came from, its session and the key that makes a resend a no-op. */
export interface EventRecord {
  record: LogRecord;
  name: string;
  source: string;
  sessionId: string | null;
  key: string;
}

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);

/**
 * docs/telemetry.md: the name is Claude Code's `event.name`, else OTLP's `eventName`, else a string body; a record with
 * none of them (as text a column may hold) is refused. Claude Code's `event.name` is the short name (`user_prompt`) and its body the full one
 * (`claude_code.user_prompt`): the full one is kept. The key is (session, `event.sequence`, name) when the sender
 * numbers its events, else the record's own content.
 */
export function eventOf(record: LogRecord, toolOf: (name: string) => string | undefined): EventRecord | undefined {
  const short = text(record.attributes['event.name']);
  const body = text(record.body);
  const name = (short && body?.endsWith(`.${short}`) ? body : (short ?? text(record.eventName) ?? body))?.slice(0, 200);
  if (!name) return undefined;
  const source = (toolOf(name) ?? text(record.resource['service.name']) ?? 'unknown').slice(0, 100);
  const sessionId = (text(record.attributes['session.id']) ?? text(record.attributes['conversation.id']))?.slice(0, 100) ?? null;
  const sequence = record.attributes['event.sequence'];
  const key =
    sessionId && (typeof sequence === 'number' || typeof sequence === 'string')
      ? hash(['sequence', sessionId, String(sequence), name])
      : hash(['record', name, record.timeMs, record.attributes, record.resource]);
  return { record, name, source, sessionId, key };
}

/** Drops events already stored, and repeats within the request. */
export async function newEvents(sql: ChangeSql, organizationId: string, events: EventRecord[]): Promise<EventRecord[]> {
  if (!events.length) return [];
  const keys = [...new Set(events.map((e) => e.key))];
  const rows = await sql.select<{ event_key: string }>('SELECT event_key FROM telemetry_events WHERE organization_id = :organizationId AND event_key IN (:keys)', {
    organizationId,
    keys,
  });
  const seen = new Set(rows.map((r) => r.event_key));
  return events.filter((e) => !seen.has(e.key) && (seen.add(e.key), true));
}
