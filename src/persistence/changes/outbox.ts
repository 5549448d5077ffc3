import { Transaction } from 'sequelize';
import { OutboxEvent, WebhookDelivery, WebhookEndpoint } from '../../../db/models';
import { ChangeSql } from './changeSql';
import { newId } from './ids';

export interface EmittedEvent {
  id: string;
  organization_id: string;
  type: string;
}

/** The event types an endpoint asked for; null for all of them. */
export function subscribedTypes(endpoint: Pick<WebhookEndpoint, 'event_types'>): string[] | null {
  if (endpoint.event_types === null) return null;
  const types: unknown = JSON.parse(endpoint.event_types);
  if (!Array.isArray(types) || !types.every((type): type is string => typeof type === 'string')) throw new Error(`An endpoint's event types are not a list of names: ${endpoint.event_types}`);
  return types;
}

/**
 * A delivery per event and subscribed active endpoint, written in the change's own transaction (docs/webhooks.md), so an
 * event is either committed with its deliveries or not at all; a worker finds them due at once. An endpoint
 * created after the change does not get its events. Returns how many deliveries were made.
 */
export async function fanOut(events: readonly EmittedEvent[], transaction: Transaction, now: Date): Promise<number> {
  const organizations = [...new Set(events.map((e) => e.organization_id))];
  const sql = new ChangeSql(transaction);
  const endpoints = await sql.select<Pick<WebhookEndpoint, 'id' | 'organization_id' | 'event_types'>>(
    'SELECT id, organization_id, event_types FROM webhook_endpoints WHERE organization_id IN (:organizations) AND is_active = :active',
    { organizations, active: true },
  );
  if (endpoints.length === 0) return 0;
  const seqs = await OutboxEvent.findAll({ where: { id: events.map((e) => e.id) }, attributes: ['id', 'seq'], transaction });
  const seqOf = new Map(seqs.map((e) => [e.id, Number(e.seq)]));
  const deliveries = events.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.organization_id === event.organization_id && (subscribedTypes(endpoint)?.includes(event.type) ?? true))
      .map((endpoint) => ({
        id: newId('dlv'),
        endpoint_id: endpoint.id,
        organization_id: event.organization_id,
        event_seq: seqOf.get(event.id)!,
        event_id: event.id,
        event_type: event.type,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })),
  );
  if (deliveries.length) await WebhookDelivery.bulkCreate(deliveries, { transaction });
  return deliveries.length;
}
