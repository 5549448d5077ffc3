import { TelemetryEvent } from '../../../db/models';
import type { ListSource } from '../../persistence/query/listSource';
import { toTelemetryEvent } from '../../resources/telemetry';

export interface EventFilters {
  name?: string;
  source?: string;
  user_id?: string;
}

/** An organization's events, optionally of one name, source or member: each a range of its own index. */
export function organizationEvents(organizationId: string, filters: EventFilters): ListSource<ReturnType<typeof toTelemetryEvent>, TelemetryEvent> {
  const where = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined));
  return { model: TelemetryEvent, where: { organization_id: organizationId, ...where }, toItem: toTelemetryEvent };
}
