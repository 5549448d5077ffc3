import { z } from 'zod';
import type { TelemetryEvent } from '../../db/models';
import { timestamp } from '../wire/envelopes';
import { storedObject } from '../wire/record';
import { defineResource, iso } from './resource';

/** An OTLP log record as stored (docs/telemetry.md): custom workflow events and the AI coding tools' events. */
export const TelemetryEventResource = defineResource(
  'TelemetryEvent',
  'An event an OpenTelemetry exporter sent to /otlp/v1/logs: a custom workflow event, or an AI coding tool’s (Claude Code, Gemini CLI, Codex). Prompt text, tool input and API bodies are never stored.',
  {
    id: z.string(),
    organization_id: z.string(),
    name: z.string().meta({ description: 'The event’s name: `event.name`, else the record’s eventName, else its body. Example: `claude_code.api_request`, `deploy.approved`' }),
    source: z.string().meta({ description: 'What sent it: `claude_code`, `gemini_cli`, `codex`, or the sender’s `service.name`' }),
    user_id: z.string().nullable().meta({ description: 'The member it was matched to (docs/telemetry.md#whose-telemetry-it-is); null when it matched none' }),
    session_id: z.string().nullable().meta({ description: 'The sender’s session (`session.id`, Codex’s `conversation.id`); null without one' }),
    attributes: z.record(z.string(), z.unknown()).meta({ description: 'The record’s attributes as sent, at most 4 KB of JSON (`dropped_attributes` counts those that did not fit)' }),
    created_at: timestamp.meta({ description: 'When it happened, as the sender timed it' }),
  },
);

export const toTelemetryEvent = (e: TelemetryEvent) => ({
  id: e.id,
  organization_id: e.organization_id,
  name: e.name,
  source: e.source,
  user_id: e.user_id,
  session_id: e.session_id,
  attributes: storedObject(e.attributes),
  created_at: iso(e.created_at),
});
