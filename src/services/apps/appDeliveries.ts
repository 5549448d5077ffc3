import type { Transaction } from 'sequelize';
import { ChangeSql } from '../../persistence/changes/changeSql';

/** A delivery to an app as its provider names it: the id a redelivery repeats, and its event. */
export interface NamedDelivery {
  id: string;
  event: string;
}

const DELIVERY_COLUMNS = ['app_id', 'delivery_id', 'event', 'received_at'] as const;

/**
 * Which of the deliveries to one app are seen for the first time, recorded in the change that stores them (trackers,
 * incident tools, chat: docs/trackers.md#how-deliveries-are-stored): one read of the ids already stored, one insert
 * of the new ones. A delivery received before, or a second copy in the same batch, is not among them, so a
 * redelivery changes nothing; two changes recording the same id at once meet on the table's key, and the loser runs
 * again and finds it.
 */
export async function firstDeliveries<D extends NamedDelivery>(transaction: Transaction, appId: string, deliveries: D[], receivedAt: Date): Promise<Set<D>> {
  if (deliveries.length === 0) return new Set();
  const sql = new ChangeSql(transaction);
  const stored = await sql.select<{ delivery_id: string }>('SELECT delivery_id FROM ingest_deliveries WHERE app_id = :appId AND delivery_id IN (:ids)', {
    appId,
    ids: deliveries.map((d) => d.id),
  });
  const seen = new Set(stored.map((d) => d.delivery_id));
  const fresh = deliveries.filter((d) => !seen.has(d.id) && seen.add(d.id));
  if (fresh.length) await sql.insert('ingest_deliveries', DELIVERY_COLUMNS, fresh.map((d) => ({ app_id: appId, delivery_id: d.id, event: d.event, received_at: receivedAt })));
  return new Set(fresh);
}
