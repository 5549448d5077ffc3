import { z } from 'zod';
import type { OperationEvent } from '../../services/operations/operationInput';
import { INCIDENT_PRIORITIES, INCIDENT_URGENCIES } from '../../../db/vocabulary';
import { invalid, unauthenticated } from '../../errors';
import { readPayload, time } from '../common/payload';
import { providerTime } from '../common/times';
import type { Delivery, Webhook } from '../provider';
import { bearerOneOf, DEFAULT_BODY_LIMIT_BYTES, jsonBody } from '../webhook';

/**
 * The deployments API (docs/incidents.md#the-deployments-api) for any CI or script: `POST
 * /ingest/deployments/{app_id}/deployments` and `…/incidents`, with `Authorization: Bearer <the app's secret>`, one
 * deployment or incident per call, keyed by the caller's `id`: a retried call finds its row and changes nothing,
 * a later one for the same id moves it on (a deployment's later finish, an incident's resolution). `repository`
 * names the repository by id or full name, or a board mapped to one (`npm run apps -- map`).
 */
export const deploymentsWebhook: Webhook = {
  bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
  authenticate: {
    head(headers, secrets) {
      if (!headers.authorization) throw unauthenticated("Missing Authorization: send `Authorization: Bearer <the app's secret>` (npm run apps printed it)");
      if (!bearerOneOf(headers, secrets)) throw unauthenticated("Authorization does not carry the app's secret: send `Bearer <secret>` with the secret npm run apps printed");
    },
  },

  parse({ headers, body, resource }): Delivery {
    const payload = jsonBody(headers, body);
    const operation = resource === 'incidents' ? incident(payload) : deployment(payload);
    return { id: null, event: operation.kind, operations: [operation] };
  },

  resources: ['deployments', 'incidents'],
};

function deployment(payload: unknown): OperationEvent {
  const d = readPayload(deploymentBody, payload, 'deployment');
  const createdAt = providerTime(d.created_at, 'created_at');
  const finishedAt = notBefore(createdAt, providerTime(d.finished_at, 'finished_at'), 'finished_at');
  return {
    kind: 'deployment',
    board: { candidates: [d.repository], namesRepository: true },
    deployment: { externalId: d.id, environment: d.environment, status: d.status, sha: d.sha, createdAt, finishedAt },
  };
}

function incident(payload: unknown): OperationEvent {
  const i = readPayload(incidentBody, payload, 'incident');
  const createdAt = providerTime(i.created_at, 'created_at');
  const resolvedAt = i.resolved_at === null || i.resolved_at === undefined ? null : notBefore(createdAt, providerTime(i.resolved_at, 'resolved_at'), 'resolved_at');
  return {
    kind: 'incident',
    board: { candidates: i.repository ? [i.repository] : [], namesRepository: true },
    incident: {
      externalId: i.id,
      title: i.title,
      causeSha: i.cause_sha ?? null,
      fixSha: i.fix_sha ?? null,
      createdAt,
      resolvedAt,
      // Its state moves only forward: open, then resolved; a retried opening call after the resolution is older.
      updatedAt: resolvedAt ?? createdAt,
      urgency: i.urgency ?? undefined,
      priority: i.priority ?? undefined,
      service: i.service ?? undefined,
    },
  };
}

const callerId = z
  .string({ error: 'id is required: your own id for it, the same on every retry' })
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._:\/-]+$/, { error: "id: letters, digits, '.', '_', ':', '/' or '-' (at most 100)" });
const name = (field: string) => z.string({ error: `${field} is required` }).trim().min(1, { error: `${field} must not be empty` }).max(200);
const shortSha = (field: string) => z.string().regex(/^[0-9a-fA-F]{7,40}$/, { error: `${field}: a commit's sha, 7 to 40 hex digits` }).transform((v) => v.toLowerCase());
/** Read by providerTime: ISO 8601 with an offset (or Unix seconds), from 1970 to 9999. */
const at = (field: string) => time.refine((v) => v !== '', { error: `${field} is required: an ISO 8601 time such as 2026-11-27T10:15:00Z` });

/** A time that may not come before another: a 400 naming the field. */
function notBefore(start: Date, time: Date, field: string): Date {
  if (time < start) throw invalid(`${field} (${time.toISOString()}) is before created_at (${start.toISOString()})`);
  return time;
}

const deploymentBody = z.strictObject({
  id: callerId,
  repository: name('repository'),
  environment: name('environment'),
  status: z.enum(['success', 'failure'], { error: 'status must be success or failure (report a deployment once it finished)' }),
  sha: z.string().regex(/^[0-9a-fA-F]{40}$/, { error: "sha: the deployed commit's full 40-digit sha" }).transform((v) => v.toLowerCase()),
  created_at: at('created_at'),
  finished_at: at('finished_at'),
});

const ONE_OF_PRIORITIES = `priority must be one of ${INCIDENT_PRIORITIES.join(', ')}`;

const incidentBody = z.strictObject({
  id: callerId,
  title: z.string({ error: 'title is required' }).trim().min(1, { error: 'title must not be empty' }).max(300),
  created_at: at('created_at'),
  resolved_at: time.nullish(),
  repository: name('repository').nullish(),
  cause_sha: shortSha('cause_sha').nullish(),
  fix_sha: shortSha('fix_sha').nullish(),
  // What counts in time to restore (docs/metrics.md#what-counts), as an incident tool would say it.
  urgency: z.enum(INCIDENT_URGENCIES, { error: 'urgency must be high or low' }).nullish(),
  priority: z.string({ error: ONE_OF_PRIORITIES }).trim().toUpperCase().pipe(z.enum(INCIDENT_PRIORITIES, { error: ONE_OF_PRIORITIES })).nullish(),
  service: name('service').nullish(),
});
