import { z } from 'zod';
import type { AuditEntry } from '../../db/models';
import { timestamp } from '../wire/envelopes';
import { storedObject } from '../wire/record';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, isAuditAction, isAuditTargetType } from '../persistence/changes/auditRecord';
import { defineResource, iso } from './resource';

/** One change to an organization's credentials or webhooks (docs/settings.md), as its admins read it. */
export const AuditEntryResource = defineResource(
  'AuditEntry',
  'A change to the organization’s credentials or webhooks: who made it (a signed-in user in the settings, or an operator with the CLIs), what it changed, when. Never a secret or a token’s value.',
  {
    id: z.string(),
    organization_id: z.string(),
    actor_type: z.enum(['user', 'operator']).meta({ description: '`user`: a signed-in user in the settings; `operator`: someone with shell access, through the CLIs' }),
    actor_user_id: z.string().nullable().meta({ description: 'The signed-in user who made the change; null for an operator' }),
    action: z.enum(AUDIT_ACTIONS).meta({ description: 'What happened. Example: `webhook_endpoint.created`' }),
    target_type: z.enum(AUDIT_TARGET_TYPES).meta({ description: 'What kind of thing changed' }),
    target_id: z.string().meta({ description: 'The id of what changed. Example: `whep_…`, `tok_…`' }),
    details: z.record(z.string(), z.unknown()).meta({ description: 'What changed, such as a name, URL, events or scope' }),
    created_at: timestamp.meta({ description: 'When the change was committed' }),
  },
);

/** A value the audit writer took from its list; another is our fault, not the caller's. */
function listed<T extends string>(value: string, isListed: (value: string) => value is T, what: string): T {
  if (!isListed(value)) throw new Error(`An audit entry has an unknown ${what} '${value}'`);
  return value;
}

/** An organization's log never lists the deletion entries, the only ones that belong to none. */
function ownerOf(e: AuditEntry): string {
  if (e.organization_id === null) throw new Error(`The audit entry ${e.id} belongs to no organization and is listed in one`);
  return e.organization_id;
}

export const toAuditEntry = (e: AuditEntry) => ({
  id: e.id,
  organization_id: ownerOf(e),
  actor_type: e.actor_type,
  actor_user_id: e.actor_user_id,
  action: listed(e.action, isAuditAction, 'action'),
  target_type: listed(e.target_type, isAuditTargetType, 'target type'),
  target_id: e.target_id,
  details: storedObject(e.details),
  created_at: iso(e.created_at),
});
