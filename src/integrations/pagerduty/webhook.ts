import { z } from 'zod';
import { unauthenticated } from '../../errors';
import type { OperationEvent } from '../../services/operations/operationInput';
import { INCIDENT_URGENCIES, type IncidentUrgency } from '../../../db/vocabulary';
import { fixedBy, readPayload, rootCause } from '../common/payload';
import { providerTime } from '../common/times';
import type { Delivery, Webhook } from '../provider';
import { DEFAULT_BODY_LIMIT_BYTES, header, jsonBody, signedWithAnyOf } from '../webhook';

/**
 * PagerDuty's Webhooks v3 (docs/incidents.md#pagerduty), `POST /ingest/pagerduty/{app_id}`: `X-PagerDuty-Signature`
 * holds one or more comma-separated `v1=<hex HMAC-SHA256 of the body>` keyed with the subscription's secret (several
 * while PagerDuty rotates it); any one made with the app's secret will do. The event's own id names the delivery.
 * The incident's service is its board, mapped to a repository with `npm run apps -- map`.
 */
export const pagerdutyWebhook: Webhook = {
  eventHeader: 'x-pagerduty-signature',
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  authenticate: {
    body(headers, body, secrets) {
      const signatures = header(headers, 'x-pagerduty-signature');
      if (!signatures) throw unauthenticated("Missing X-PagerDuty-Signature: give the PagerDuty webhook subscription the app's secret (npm run apps -- set-secret with the one PagerDuty shows)");
      const digests = signatures.split(',').map((s) => /^\s*v1=([0-9a-f]{64})\s*$/i.exec(s)?.[1] ?? '');
      if (!signedWithAnyOf(digests, body, secrets)) throw unauthenticated("X-PagerDuty-Signature does not match the body: the subscription's secret differs from the app's");
    },
  },

  parse({ headers, body }): Delivery {
    const payload = jsonBody(headers, body);
    const { event } = readPayload(envelope, payload, 'PagerDuty webhook (v3)');
    const base = { id: event.id, event: event.event_type };
    const operation = incidentEvent(event.event_type, payload);
    return typeof operation === 'string' ? { ...base, ignored: operation } : { ...base, operations: [operation] };
  },
};

/** What an event does to an incident, or why it changes none. */
function incidentEvent(type: string, payload: unknown): OperationEvent | string {
  switch (type) {
    case 'incident.triggered':
    case 'incident.reopened':
    case 'incident.resolved': {
      const { event } = readPayload(incidentPayload, payload, `PagerDuty ${type}`);
      const incident = event.data;
      const at = providerTime(event.occurred_at, 'event.occurred_at');
      return incidentOperation({
        id: incident.id,
        title: incident.title,
        serviceId: incident.service.id,
        createdAt: providerTime(incident.created_at, 'event.data.created_at'),
        resolvedAt: type === 'incident.resolved' ? at : null,
        updatedAt: at,
        ...triageOf(incident),
      });
    }
    case 'incident.annotated': {
      const { event } = readPayload(notePayload, payload, 'PagerDuty incident.annotated');
      return noteOperation(event.data.incident.id, event.data.content);
    }
    case 'pagey.ping':
      return 'a ping: the subscription reaches this app';
    default:
      return `event '${type}' changes no figure: incidents are opened, resolved and reopened, and notes may name commits`;
  }
}

/** An incident as PagerDuty shows it at one time; its service is its board. */
export interface PagerDutyIncident {
  id: string;
  title: string;
  serviceId: string;
  createdAt: Date;
  resolvedAt: Date | null;
  /** When it came to this state: the event's time, or the API's last status change. */
  updatedAt: Date;
  /** What counts in time to restore (docs/metrics.md#what-counts), triageOf's: left out when PagerDuty gives none. */
  urgency?: IncidentUrgency;
  priority?: string;
  serviceName?: string;
}

/**
 * An incident's urgency, priority (by its name: P1 unless the account renamed its priorities) and service name, as
 * a webhook's `data` and the REST API's incident both carry them. An urgency other than high or low (none is
 * documented) is none.
 */
export function triageOf(incident: TriagedIncident): Pick<PagerDutyIncident, 'urgency' | 'priority' | 'serviceName'> {
  return {
    urgency: INCIDENT_URGENCIES.find((u) => u === incident.urgency?.toLowerCase()),
    priority: incident.priority?.summary?.trim() || undefined,
    serviceName: incident.service.summary?.trim() || undefined,
  };
}

/** What an incident is, whether a delivery or the history importer (history.ts) read it. */
export function incidentOperation(incident: PagerDutyIncident): OperationEvent {
  return {
    kind: 'incident',
    board: { candidates: [incident.serviceId], namesRepository: false },
    incident: {
      externalId: incident.id,
      title: incident.title,
      causeSha: null,
      fixSha: null,
      createdAt: incident.createdAt,
      resolvedAt: incident.resolvedAt,
      updatedAt: incident.updatedAt,
      urgency: incident.urgency,
      priority: incident.priority,
      service: incident.serviceName,
    },
  };
}

/** A note on an incident: the commits it names, or why it changes nothing. */
export function noteOperation(incidentId: string, content: string): OperationEvent | string {
  const note = { causeSha: rootCause(content), fixSha: fixedBy(content) };
  if (!note.causeSha && !note.fixSha) return 'a note that names no commit (`root cause: <sha>` or `fixed by: <sha>`) changes no figure';
  return { kind: 'incident_note', externalId: incidentId, note };
}

const id = z.string().min(1).max(100);

/** An incident's urgency and priority, beside its service's `summary` (its name), in a webhook's `data` and the REST API's incident alike. */
export const triage = {
  urgency: z.string().nullish(),
  priority: z.looseObject({ summary: z.string().nullish() }).nullish(),
};
type TriagedIncident = { service: { summary?: string | null } } & z.infer<z.ZodObject<typeof triage>>;

const envelope = z.looseObject({
  event: z.looseObject({
    id: id.regex(/^[A-Za-z0-9._:-]+$/, { error: "a PagerDuty event id: letters, digits, '.', '_', ':' or '-'" }),
    event_type: z.string().min(1).max(64),
  }),
});

const incidentPayload = z.looseObject({
  event: z.looseObject({
    occurred_at: z.string(),
    data: z.looseObject({
      id,
      type: z.literal('incident'),
      title: z.string().max(10_000),
      created_at: z.string(),
      service: z.looseObject({ id: id, summary: z.string().nullish() }),
      ...triage,
    }),
  }),
});

const notePayload = z.looseObject({
  event: z.looseObject({
    data: z.looseObject({
      type: z.literal('incident_note'),
      content: z.string().max(100_000),
      incident: z.looseObject({ id }),
    }),
  }),
});
