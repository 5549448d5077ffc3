import { z } from 'zod';
import { idParam } from '../../wire/query';
import { EVENT_TYPES } from '../../persistence/changes/events';

/** Names people give credentials: shown in lists, never empty. */
export const label = (what: string) =>
  z.string({ error: `name must be the ${what}'s name` }).trim().min(1, { error: 'name must not be empty' }).max(200, { error: 'name must be at most 200 characters' });

/** A field of free text, trimmed: never empty, at most `max` characters. */
export const text = (field: string, max: number) =>
  z.string({ error: `${field} must be a string` }).trim().min(1, { error: `${field} must not be empty` }).max(max, { error: `${field} must be at most ${max} characters` });

export const organizationInput = { organization_id: idParam('organization_id') };

/** null: every event, including ones added later. */
export const eventsInput = z
  .array(z.enum(EVENT_TYPES, { error: `events must be names from: ${EVENT_TYPES.join(', ')}` }))
  .min(1, { error: 'events must name at least one event, or be null to receive them all' })
  .max(EVENT_TYPES.length)
  .nullable();
