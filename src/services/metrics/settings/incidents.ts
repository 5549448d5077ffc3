import { z } from 'zod';
import { INCIDENT_PRIORITIES } from '../../../../db/vocabulary';

/**
 * Which incidents count in time to restore (docs/metrics.md#what-counts), by what their incident tool says of them
 * (docs/incidents.md#what-is-stored): PagerDuty's urgency, the priority, the service or team. An incident that says
 * nothing of one (a git provider's issue, a script's call without it, one stored before these were kept) is never
 * left out by a filter on it. The defaults count every incident, as the figures did before these settings.
 */

export const INCIDENT_URGENCY_SETTINGS = ['high', 'any'] as const;
export const MAX_INCIDENT_SERVICES = 50;

const PRIORITY_LIST = INCIDENT_PRIORITIES.join(', ');

const priorityEntry = z
  .string({ error: `each incident priority must be one of ${PRIORITY_LIST}` })
  .trim()
  .toUpperCase()
  .pipe(z.enum(INCIDENT_PRIORITIES, { error: (issue) => `incident priority ${JSON.stringify(issue.input)} is none of ${PRIORITY_LIST}` }));

/** A service's or team's name, or the board an incident was placed by; compared without regard to case. */
const serviceEntry = z
  .string({ error: 'each incident service must be a service or team name or id' })
  .trim()
  .min(1, { error: 'an incident service must not be empty' })
  .max(200, { error: 'an incident service must be at most 200 characters' })
  .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'an incident service must not hold control characters' })
  .transform((v) => v.toLowerCase());

export const incidentSettingsShape = {
  incident_urgency: z.enum(INCIDENT_URGENCY_SETTINGS, { error: 'incident_urgency must be high or any' }).meta({
    description:
      "Which PagerDuty urgencies count in time to restore: `high` leaves low-urgency incidents out, `any` counts both. An incident without an urgency (every source but PagerDuty) always counts. Default: `any`.",
  }),
  incident_priorities: z
    .array(priorityEntry, { error: `incident_priorities must be a list of ${PRIORITY_LIST} (empty: any priority)` })
    .transform((list) => INCIDENT_PRIORITIES.filter((p) => list.includes(p)))
    .meta({
      description:
        'The priorities that count in time to restore, of P1 to P5 (Opsgenie’s, PagerDuty’s by name); empty: any. An incident without a priority always counts. Default: `[]`. Example: `["P1", "P2"]`.',
    }),
  incident_services: z
    .array(serviceEntry, { error: 'incident_services must be a list of service or team names or ids (empty: any)' })
    .max(MAX_INCIDENT_SERVICES, { error: `incident_services takes at most ${MAX_INCIDENT_SERVICES} names or ids` })
    .transform((list) => [...new Set(list)])
    .meta({
      description:
        'The PagerDuty services and Opsgenie teams whose incidents count in time to restore, by name or by the board the incident was placed by (a PagerDuty service id, an Opsgenie team or tag), without regard to case; empty: any. An incident without a service always counts. Default: `[]`.',
    }),
};

type IncidentSettings = { [K in keyof typeof incidentSettingsShape]: z.infer<(typeof incidentSettingsShape)[K]> };

export const DEFAULT_INCIDENT_SETTINGS: IncidentSettings = { incident_urgency: 'any', incident_priorities: [], incident_services: [] };

/**
 * The incidents of `alias` that count, as a condition with its named replacements: each filter set passes an
 * incident that has the value asked for, or has none. `1 = 1` under the defaults.
 */
export function incidentCondition(settings: IncidentSettings, alias: string): { sql: string; replacements: Record<string, string[]> } {
  const parts: string[] = [];
  const replacements: Record<string, string[]> = {};
  if (settings.incident_urgency === 'high') parts.push(`(${alias}.urgency IS NULL OR ${alias}.urgency = 'high')`);
  if (settings.incident_priorities.length) {
    replacements.incident_priorities = settings.incident_priorities;
    parts.push(`(${alias}.priority IS NULL OR UPPER(${alias}.priority) IN (:incident_priorities))`);
  }
  if (settings.incident_services.length) {
    replacements.incident_services = settings.incident_services;
    parts.push(`(${alias}.service IS NULL OR LOWER(${alias}.service) IN (:incident_services) OR LOWER(${alias}.board_key) IN (:incident_services))`);
  }
  return { sql: parts.length ? parts.join(' AND ') : '1 = 1', replacements };
}
