import type { Model } from 'sequelize';
import type { Change } from '../../persistence/changes/change';

export type Applied = 'created' | 'updated' | 'unchanged' | 'stale';

export type Recorded<Row> = { applied: 'stale' | 'unchanged' } | { applied: 'created' | 'updated'; row: Row };

/**
 * How every git writer records one provider object that deliveries may bring out of order: a state older than the
 * stored one changes nothing (stale); otherwise the row is created, or updated, and a visible difference marks
 * the table written (list totals, events). The caller emits its events from what comes back.
 */
export async function recordIfNewer<Row extends Model>(
  change: Change,
  table: string,
  existing: Row | null,
  spec: {
    olderThanStored: (stored: Row) => boolean;
    visiblyDiffers: (stored: Row) => boolean;
    create: () => Promise<Row>;
    update: (stored: Row) => Promise<unknown>;
  },
): Promise<Recorded<Row>> {
  if (existing && spec.olderThanStored(existing)) return { applied: 'stale' };
  if (!existing) {
    const row = await spec.create();
    change.wrote(table);
    return { applied: 'created', row };
  }
  const visible = spec.visiblyDiffers(existing);
  // Updated even when nothing shows: the provider's own update time moves on, and older deliveries stay stale.
  await spec.update(existing);
  if (!visible) return { applied: 'unchanged' };
  change.wrote(table);
  return { applied: 'updated', row: existing };
}

/** A delivery showing a state older than the stored one (by the provider's updated_at) changes nothing. */
export const olderThanStored = (stored: Date | null | undefined, incoming: Date) => !!stored && stored > incoming;

export const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
