import { z } from 'zod';
import { unauthenticated } from '../../errors';
import type { OperationEvent } from '../../services/operations/operationInput';
import { fixedBy, readPayload, rootCause } from '../common/payload';
import type { Delivery, Webhook } from '../provider';
import { bearerOneOf, DEFAULT_BODY_LIMIT_BYTES, jsonBody } from '../webhook';

/**
 * Opsgenie's outgoing Webhook integration (docs/incidents.md#opsgenie), `POST /ingest/opsgenie/{app_id}`. Opsgenie
 * signs nothing: its integration sends the custom header `Authorization: Bearer <the app's secret>` that its owner
 * adds. An alert is an incident: `Create` opens it, `Close` resolves it (Opsgenie has no reopen: an alert raised
 * again is a new alert), `AddNote` may name its cause or fix. Its board is the first of its team, responding
 * teams, team ids and tags mapped to a repository. A delivery is named by the alert, the action and the alert's
 * update time, which a retry repeats.
 */
export const opsgenieWebhook: Webhook = {
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  authenticate: {
    head(headers, secrets) {
      if (!headers.authorization) throw unauthenticated("Missing Authorization: add the custom header `Authorization: Bearer <the app's secret>` to the Opsgenie Webhook integration");
      if (!bearerOneOf(headers, secrets)) throw unauthenticated("Authorization does not carry the app's secret: the Opsgenie integration's header must be `Bearer <secret>` with the secret npm run apps printed");
    },
  },

  parse({ headers, body }): Delivery {
    const { action, alert } = readPayload(delivery, jsonBody(headers, body), 'Opsgenie webhook');
    const updatedAt = fromNanoseconds(alert.updatedAt);
    const operation = alertEvent(action, alert, updatedAt);
    if (typeof operation === 'string') return { id: null, event: action, ignored: operation };
    return { id: `${alert.alertId}:${action}:${updatedAt.getTime()}`, event: action, operations: [operation] };
  },
};

type Alert = z.infer<typeof delivery>['alert'];

function alertEvent(action: string, alert: Alert, updatedAt: Date): OperationEvent | string {
  switch (action) {
    case 'Create':
    case 'Close':
      return alertOperation({
        alertId: alert.alertId,
        message: alert.message,
        description: alert.description,
        createdAt: new Date(alert.createdAt),
        // Opsgenie sends no close time: the alert's update time is when it was closed.
        closedAt: action === 'Close' ? updatedAt : null,
        updatedAt,
        boards: boardsOf(alert),
        priority: priorityOf(alert.priority),
        team: teamOf(alert),
      });
    case 'AddNote':
      return noteOperation(alert.alertId, alert.note);
    default:
      return `action '${action}' changes no figure: alerts are created and closed, and notes may name commits`;
  }
}

/** An alert as Opsgenie shows it at one time. */
export interface OpsgenieAlert {
  alertId: string;
  message: string;
  /** Read for the commits it names; none when not known (the history importer's listing has none). */
  description: string | null | undefined;
  createdAt: Date;
  closedAt: Date | null;
  updatedAt: Date;
  /** boardsOf's names. */
  boards: string[];
  /** What counts in time to restore (docs/metrics.md#what-counts): its priority (priorityOf's) and its team's name (teamOf's), when it has them. */
  priority?: string;
  team?: string;
}

/** What an alert is, whether a delivery or the history importer (history.ts) read it. */
export function alertOperation(alert: OpsgenieAlert): OperationEvent {
  return {
    kind: 'incident',
    board: { candidates: alert.boards, namesRepository: false },
    incident: {
      externalId: alert.alertId,
      title: alert.message,
      causeSha: rootCause(alert.description),
      fixSha: fixedBy(alert.description),
      createdAt: alert.createdAt,
      resolvedAt: alert.closedAt,
      updatedAt: alert.updatedAt,
      priority: alert.priority,
      service: alert.team,
    },
  };
}

/** A note on an alert: the commits it names, or why it changes nothing. */
export function noteOperation(alertId: string, note: string | null | undefined): OperationEvent | string {
  const named = { causeSha: rootCause(note), fixSha: fixedBy(note) };
  if (!named.causeSha && !named.fixSha) return 'a note that names no commit (`root cause: <sha>` or `fixed by: <sha>`) changes no figure';
  return { kind: 'incident_note', externalId: alertId, note: named };
}

/** The teams and tags an alert names, as a delivery carries them (responders with their names, teams by id). */
export interface AlertNames {
  team?: string | null;
  responders?: readonly { type?: string | null; name?: string | null }[] | null;
  teams?: readonly string[] | null;
  tags?: readonly string[] | null;
}

/** The names an alert may be mapped by, most specific first, each once. */
export function boardsOf(alert: AlertNames): string[] {
  const teams = (alert.responders ?? []).filter((r) => r.type === 'team' && r.name).map((r) => r.name ?? '');
  const names = [alert.team ?? '', ...teams, ...(alert.teams ?? []), ...(alert.tags ?? [])].map((n) => n.trim()).filter((n) => n.length > 0 && n.length <= 200);
  return [...new Set(names)];
}

/** The team an alert came from, by name: its owner team, else the first team responding to it. */
export function teamOf(alert: AlertNames): string | undefined {
  const responding = (alert.responders ?? []).find((r) => r.type === 'team' && r.name?.trim());
  return alert.team?.trim() || responding?.name?.trim() || undefined;
}

/** P1 to P5, as Opsgenie names them; deliveries of 2017 gave the number alone. */
export function priorityOf(priority: string | number | null | undefined): string | undefined {
  if (priority === null || priority === undefined) return undefined;
  const name = typeof priority === 'number' ? `P${priority}` : priority.trim().toUpperCase();
  return name || undefined;
}

/** Opsgenie's update times are nanoseconds since the epoch (beyond a double's exact integers: whole milliseconds are kept). */
const fromNanoseconds = (ns: number) => new Date(Math.floor(ns / 1e6));

/** Milliseconds between 1970 and 9999, as Opsgenie's `createdAt`; its `updatedAt` is the same in nanoseconds. */
const MAX_MS = 253_402_300_799_999;

const name = z.string().max(1_000);

const delivery = z.looseObject({
  action: z.string().min(1).max(200),
  alert: z.looseObject({
    alertId: z.string().min(1).max(60).regex(/^[A-Za-z0-9-]+$/, { error: 'an Opsgenie alert id: letters, digits and -' }),
    message: z.string().max(10_000),
    createdAt: z.number().int().min(0).max(MAX_MS),
    updatedAt: z.number().min(0).max(MAX_MS * 1e6),
    description: z.string().nullish(),
    note: z.string().nullish(),
    team: name.nullish(),
    teams: z.array(name).max(100).nullish(),
    tags: z.array(name).max(100).nullish(),
    responders: z.array(z.looseObject({ type: z.string().nullish(), name: name.nullish() })).max(100).nullish(),
    priority: z.union([z.string().max(50), z.number().int()]).nullish(),
  }),
});
